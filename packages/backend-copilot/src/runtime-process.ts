/**
 * The runtime process behind a CopilotClient. The SDK spawns it and keeps it private: it
 * reports neither its exit code nor its death (it only marks its sessions disconnected, and
 * a turn waiting for `session.idle` would wait forever). culture needs both: a crash must
 * reach `onExit(code)` so the daemon restarts the agent. So this reads the SDK's
 * `cliProcess` field — pinned to @github/copilot-sdk 1.0.x, and checked: when the field is
 * missing or not a ChildProcess, the runner logs that crash detection is unavailable.
 *
 * There is no supported way in SDK 1.0.14 (checked in its dist/client.js): the public API has
 * only `getState()` ("disconnected", no code) and session lifecycle events; the exit promise
 * (`processExitPromise`) is private too. Spawning the runtime ourselves and connecting with
 * `RuntimeConnection.forUri` would give us the process, but the SDK rejects `useLoggedInUser`
 * and `gitHubToken` with forUri, and a BYOK agent needs `useLoggedInUser: false`; we would also
 * have to copy the SDK's spawn (its flags, TCP port and token, "listening on port" parsing).
 * `ChildProcessRuntimeConnection` is only the path/args/env of the process the SDK spawns, not
 * a handle to it. So the private field is read here, and only here.
 */
import { exitStatus } from "@culture/core";
import type { CopilotClient } from "@github/copilot-sdk";
import { ChildProcess } from "node:child_process";

/** The runtime child process of a started client, or null when there is none (or the SDK changed). */
export function runtimeProcessOf(client: CopilotClient): ChildProcess | null {
  const child = (client as unknown as { cliProcess?: unknown }).cliProcess;
  return child instanceof ChildProcess ? child : null;
}

/** Resolves with the process's exit code (128 + n for signal n) once it has exited. */
export function exitCodeOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const done = (code: number | null, signal: NodeJS.Signals | null) => resolve(exitStatus(code, signal));
    if (child.exitCode !== null || child.signalCode !== null) done(child.exitCode, child.signalCode);
    else child.once("exit", done);
  });
}
