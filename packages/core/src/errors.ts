/**
 * Every error culture expects to happen has a code and a message that says what failed,
 * where, and how to fix it. The CLI prints a CultureError's message alone (a stack only with
 * `--debug`); anything else is a bug and is printed with its stack.
 *
 * One factory per condition keeps the wording in one place; tests assert the code and the
 * key sentence.
 */

/** Every error code culture uses. */
export type CultureErrorCode =
  | "E_CONFIG_NOT_FOUND"
  | "E_CONFIG_PARSE"
  | "E_CONFIG_INVALID"
  | "E_CONFIG_ENV"
  | "E_AGENT_NOT_FOUND"
  | "E_BACKEND_NOT_FOUND"
  | "E_BACKEND_LOAD_FAILED"
  | "E_BACKEND_INVALID"
  | "E_BACKEND_API_MISMATCH"
  | "E_BACKEND_OPTIONS"
  | "E_PLUGIN_NOT_FOUND"
  | "E_PLUGIN_LOAD_FAILED"
  | "E_HOOK_FAILED"
  | "E_SOCKET_PATH_TOO_LONG"
  | "E_ALREADY_RUNNING"
  | "E_NOT_RUNNING"
  | "E_NICK_MISSING"
  | "E_NICK_INVALID"
  | "E_IRC_UNREACHABLE"
  | "E_IPC"
  | "E_TIMEOUT"
  | "E_USAGE"
  | "E_AGENT_AUTH";

/** An expected failure with a code and an actionable message. */
export class CultureError extends Error {
  override name = "CultureError";
  readonly code: CultureErrorCode;
  /** Extra facts for programs (paths tried, key paths, ...). */
  readonly details: Record<string, unknown>;

  constructor(code: CultureErrorCode, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details ?? {};
  }
}

/** True when `err` is a CultureError (optionally with the given code), across module copies. */
export function isCultureError(err: unknown, code?: CultureErrorCode): err is CultureError {
  return (
    err instanceof Error &&
    (err as { name?: string }).name === "CultureError" &&
    typeof (err as { code?: unknown }).code === "string" &&
    (code === undefined || (err as { code?: string }).code === code)
  );
}

/** The message of any thrown value. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A hook tap threw or rejected. The daemon reports it and keeps running. */
export function hookFailed(hookName: string, tapName: string, cause: unknown): CultureError {
  return new CultureError(
    "E_HOOK_FAILED",
    `Daemon.hooks.${hookName}: the tap "${tapName}" failed: ${errorMessage(cause)}`,
    { cause, details: { hook: hookName, tap: tapName } },
  );
}

/** The Unix socket path does not fit in sockaddr_un. */
export function socketPathTooLong(path: string, limit: number): CultureError {
  return new CultureError(
    "E_SOCKET_PATH_TOO_LONG",
    `The IPC socket path is ${Buffer.byteLength(path)} bytes, over the AF_UNIX limit of ${limit}:\n  ${path}\n` +
      `Set XDG_RUNTIME_DIR or CULTURE_HOME to a shorter directory, or use a shorter nick.`,
    { details: { path, limit } },
  );
}

/** A second daemon for a nick whose daemon is alive. */
export function alreadyRunning(nick: string, pid: number | null): CultureError {
  return new CultureError(
    "E_ALREADY_RUNNING",
    `agent ${nick} is already running (pid ${pid ?? "unknown"})`,
    { details: { nick, pid } },
  );
}

/** No daemon answers on the nick's socket. */
export function notRunning(nick: string, socketPath: string): CultureError {
  return new CultureError(
    "E_NOT_RUNNING",
    `agent ${nick} is not running (no daemon answers on ${socketPath}).\nStart it with: culture start ${nick}`,
    { details: { nick, socketPath } },
  );
}

/** The IRC server could not be reached at startup. */
export function ircUnreachable(host: string, port: number, cause: unknown): CultureError {
  return new CultureError(
    "E_IRC_UNREACHABLE",
    `culture couldn't reach the IRC server at ${host}:${port}: ${errorMessage(cause)}\n` +
      `Start the embedded server with: culture server start --port ${port}\n` +
      `or point server.host / server.port in agents.yaml at a running IRC server.`,
    { cause, details: { host, port } },
  );
}

/** The config names no agent with this nick. */
export function agentNotFound(nick: string, file: string, known: string[]): CultureError {
  return new CultureError(
    "E_AGENT_NOT_FOUND",
    `No agent with nick "${nick}" in ${file}.` +
      (known.length ? `\nConfigured agents: ${known.join(", ")}` : "\nThe config has no agents."),
    { details: { nick, file, known } },
  );
}

/** A usage error: wrong arguments to a command. The CLI exits 2. */
export function usageError(message: string): CultureError {
  return new CultureError("E_USAGE", message);
}
