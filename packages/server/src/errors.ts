/**
 * The server's expected failures. This package has no dependencies, so it cannot use
 * `@culture/core`'s CultureError class; its errors have the same shape instead (name
 * "CultureError", a `code`, `details`), which core's `isCultureError` recognises, so the
 * CLI prints the message alone as it does for its own errors.
 */

/** Codes of the server's errors. */
export type ServerErrorCode = "E_SERVER_LISTEN" | "E_SERVER_STATE";

/** An expected server failure with an actionable message. */
export class ServerError extends Error {
  override name = "CultureError";
  readonly code: ServerErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ServerErrorCode, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details ?? {};
  }
}

/** The server could not bind its port. */
export function listenFailed(host: string, port: number, cause: unknown): ServerError {
  const code = (cause as { code?: string } | null)?.code;
  const why =
    code === "EADDRINUSE"
      ? `the port is already in use. Another IRC server is probably running there: stop it (culture server stop) or choose another port (--port N).`
      : code === "EACCES"
        ? `permission denied. Ports below 1024 need privileges: choose another port (--port N).`
        : code === "EADDRNOTAVAIL"
          ? `${host} is not an address of this machine. Use 127.0.0.1 (local only) or 0.0.0.0 (all interfaces).`
          : cause instanceof Error
            ? cause.message
            : String(cause);
  return new ServerError("E_SERVER_LISTEN", `culture's IRC server couldn't listen on ${host}:${port}: ${why}`, {
    cause,
    details: { host, port, errno: code },
  });
}

/** The state dir (history) could not be created or read. */
export function stateDirFailed(dir: string, cause: unknown): ServerError {
  return new ServerError(
    "E_SERVER_STATE",
    `culture's IRC server couldn't use its state dir ${dir}: ${cause instanceof Error ? cause.message : String(cause)}\n` +
      `Fix its permissions, point --state-dir (stateDir) elsewhere, or run without history on disk (--no-state, stateDir: null).`,
    { cause, details: { dir } },
  );
}
