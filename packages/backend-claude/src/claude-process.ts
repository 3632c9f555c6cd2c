/**
 * Claude Code's process, spawned by culture for the Agent SDK (its `spawnClaudeCodeProcess`
 * option) so that culture, not the SDK's error text, knows how the process ended.
 *
 * Why: when the process dies, the SDK ends the message stream with an error, but if the last
 * `result` it saw was an error result, it REPLACES the exit error with "Claude Code returned an
 * error result: ..." and drops the exit code and signal. An interrupted turn (abort, turn
 * timeout) always ends with such a result, so a kill -9 after one was reported as "exited with
 * code 1". Owning the child process gives the real code or signal in every case.
 *
 * The spawn mirrors the SDK's own (same command, arguments, cwd, environment, piped stdio, the
 * SDK's forwarded abort signal); stderr, which the SDK only reads from processes it spawned
 * itself, is decoded here and handed to the caller line by line.
 */
import type { SpawnedProcess, SpawnOptions } from "@anthropic-ai/claude-agent-sdk";
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { StringDecoder } from "node:string_decoder";

/** How a Claude Code process ended. */
export interface ClaudeProcessExit {
  /** The exit code, or null when a signal ended it (or it never started). */
  code: number | null;
  /** The signal that ended it, or null. */
  signal: NodeJS.Signals | null;
  /** Why it never started (spawn failed), or null. */
  error: Error | null;
}

/** A spawned Claude Code process. */
export interface ClaudeProcess {
  /** What the SDK drives. */
  child: SpawnedProcess;
  pid: number | undefined;
  /** The command line, for logs and errors. */
  command: string;
  /** Set once it has ended. */
  exit: ClaudeProcessExit | null;
  /** Resolves once it has ended and its stderr is read (never rejects). */
  ended: Promise<ClaudeProcessExit>;
}

/** How long after the exit its stderr may still be read before `ended` resolves anyway. */
const STDERR_DRAIN_MS = 500;

/** Spawns Claude Code as the SDK asks; `onStderr` gets its stderr text as it comes. */
export function spawnClaudeProcess(options: SpawnOptions, onStderr: (text: string) => void): ClaudeProcess {
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: options.env as NodeJS.ProcessEnv,
    stdio: ["pipe", "pipe", "pipe"],
    signal: options.signal,
    windowsHide: true,
  });
  let resolveEnded!: (exit: ClaudeProcessExit) => void;
  const ended = new Promise<ClaudeProcessExit>((resolve) => {
    resolveEnded = resolve;
  });
  const proc: ClaudeProcess = {
    child: child as unknown as SpawnedProcess,
    pid: child.pid,
    command: [options.command, ...options.args].join(" "),
    exit: null,
    ended,
  };
  const decoder = new StringDecoder("utf8");
  let stderrClosed = false;
  let exited: ClaudeProcessExit | null = null;
  const finish = () => {
    if (!exited || proc.exit) return;
    proc.exit = exited;
    resolveEnded(exited);
  };
  child.stderr.on("data", (chunk: Buffer) => {
    const text = decoder.write(chunk);
    if (text) onStderr(text);
  });
  child.stderr.on("error", () => undefined);
  child.stderr.once("close", () => {
    const rest = decoder.end();
    if (rest) onStderr(rest);
    stderrClosed = true;
    finish();
  });
  child.once("exit", (code, signal) => {
    exited = { code, signal, error: null };
    if (stderrClosed) finish();
    else setTimeout(finish, STDERR_DRAIN_MS).unref();
  });
  child.once("error", (error) => {
    // A spawn failure emits no exit; an error after the spawn is followed by one.
    if (child.pid === undefined) {
      exited = { code: null, signal: null, error };
      finish();
    }
  });
  return proc;
}

/**
 * The exit status culture reports for a process: its exit code, or 128 + the signal's number
 * for a process a signal ended (137 for SIGKILL), as a shell reports it; null when unknown.
 */
export function exitStatus(exit: ClaudeProcessExit): number | null {
  if (exit.signal) return 128 + (constants.signals[exit.signal] ?? 0);
  return exit.code;
}
