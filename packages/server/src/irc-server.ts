/**
 * The public entry point: {@link startServer} starts a single-node IRC server for local use
 * and resolves once it accepts connections.
 */
import { listenFailed } from "./errors.js";
import { ServerCore } from "./server-core.js";
import { resolveOptions, type ServerOptions } from "./server-options.js";

/** A running server. */
export interface IrcServer {
  /** The bound port (the real one when started with port 0). */
  readonly port: number;
  /** The bound interface. */
  readonly host: string;
  /** Registered clients connected now. */
  readonly clientCount: number;
  /** Disconnects every client (ERROR line), stops listening and flushes history. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts the server: loads persisted history from `stateDir`, binds `host:port`, and
 * resolves once it is listening. Rejects with an `E_SERVER_LISTEN` error (e.g. the port is in
 * use), `E_SERVER_STATE` (the state dir is unusable), or a RangeError for a bad option.
 */
export async function startServer(options: ServerOptions = {}): Promise<IrcServer> {
  const opts = resolveOptions(options);
  const core = new ServerCore(opts);
  let bound: { host: string; port: number };
  try {
    bound = await core.listen();
  } catch (err) {
    await core.close().catch(() => {});
    const syscall = (err as { syscall?: unknown }).syscall;
    if (syscall === "listen" || syscall === "bind") throw listenFailed(opts.host, opts.port, err);
    throw err;
  }
  opts.logger.info("IRC server listening", { host: bound.host, port: bound.port, stateDir: opts.stateDir });
  return {
    port: bound.port,
    host: bound.host,
    get clientCount() {
      return core.registeredCount;
    },
    close: () => core.close(),
  };
}
