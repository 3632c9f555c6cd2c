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
 * and `gitHubToken` with forUri, and a BYOK agent needs `useLoggedInUser: false`. So the private
 * field is read here, and only here.
 */
import type { CopilotClient } from "@github/copilot-sdk";
import { ChildProcess } from "node:child_process";
import { constants } from "node:os";

/** The runtime child process of a started client, or null when there is none (or the SDK changed). */
export function runtimeProcessOf(client: CopilotClient): ChildProcess | null {
  const child = (client as unknown as { cliProcess?: unknown }).cliProcess;
  return child instanceof ChildProcess ? child : null;
}

/** Resolves with the process's exit code (128 + n for signal n) once it has exited. */
export function exitCodeOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const done = (code: number | null, signal: NodeJS.Signals | null) => resolve(toExitCode(code, signal));
    if (child.exitCode !== null || child.signalCode !== null) done(child.exitCode, child.signalCode);
    else child.once("exit", done);
  });
}

/** An exit status as one number: the code, or 128 + the signal's number. */
export function toExitCode(code: number | null, signal: NodeJS.Signals | null): number {
  if (typeof code === "number") return code;
  if (signal) return 128 + (constants.signals[signal] ?? 0);
  return 1;
}
