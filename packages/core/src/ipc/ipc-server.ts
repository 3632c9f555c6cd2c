/**
 * The daemon's end of the IPC socket: JSON Lines over a Unix socket, the reference
 * implementation's wire format. It owns framing, error answers, per-connection ordering and
 * whisper delivery; what a request *does* is the handler's business (the daemon's).
 *
 * Errors are answered, never fatal: a bad line gets an `ok:false` response and the connection
 * goes on. Requests on one connection are answered one at a time in order; connections do not
 * wait for each other.
 *
 * Whispers go to the agent's clients, which are short-lived (`culture channel` connects per
 * call), so they are usually queued and handed to the next client before its first response.
 * Two refinements keep them from being eaten by the wrong reader (a lesson from the reference
 * implementation): a connection only counts as a client once it has sent a request, and a
 * request marked `"observer": true` (status polls, `culture stop`, the single-instance probe)
 * makes its connection an observer that never receives whispers. And a long-lived link of the
 * agent's IRC tools (`culture mcp`, the in-process MCP server) marks its requests
 * `"whispers": "pull"`: nothing is pushed to it (it would hold a whisper until the agent's next
 * IRC tool call, while a runner's tool-boundary hook could deliver it at once); it takes what
 * is queued before each of its responses, like a short-lived client.
 */
import { createServer, type Server, type Socket } from "node:net";
import { chmodSync, mkdirSync, statSync, unlinkSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { UNIX_SOCKET_PATH_LIMIT, ensureRuntimeDir, runtimeDir, socketPathFits } from "../paths.js";
import { errorMessage, ipcListenFailed, socketPathTooLong } from "../errors.js";
import type { IpcRequest, IpcResult, WhisperEvent } from "../events.js";
import type { Logger } from "../logger.js";
import { WhisperQueue } from "../daemon/whisper-queue.js";
import { JsonLinesDecoder, encodeJsonLine, type JsonLine } from "./json-lines.js";

/** Options of {@link IpcServer}. */
export interface IpcServerOptions {
  /** The socket path, normally `socketPath(nick)` from paths.ts. */
  path: string;
  /**
   * Answers one request. A throw becomes an `ok:false` answer with its message. `closed` is
   * aborted when the connection is gone for good (reset, or the server stopping); a client that
   * only ends its side (`printf ... | nc -U`) still gets its answer, so an ended side alone does
   * not abort it.
   */
  handler: (req: IpcRequest, closed: AbortSignal) => Promise<IpcResult>;
  logger: Logger;
  /** The largest request line, in bytes. Default 1 MiB. */
  maxLineBytes?: number;
  /**
   * The whisper queue this server delivers from (the daemon's, which its runner's hooks read
   * too). Default: a queue of its own holding `whisperQueueLimit` whispers.
   */
  whispers?: WhisperQueue;
  /** Whispers kept while no client is connected (newest kept), when no `whispers` queue is given. Default 100. */
  whisperQueueLimit?: number;
  /** Environment used to recognise (and create 0700) the runtime dir. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** Requests read ahead of the handler per connection before the socket is paused. */
const READ_AHEAD = 64;
/** How long a closing connection may take to flush before it is destroyed. */
const CLOSE_GRACE_MS = 1_000;

/** The IPC socket server of one daemon. */
export class IpcServer {
  private readonly opts: IpcServerOptions;
  private readonly maxLineBytes: number | undefined;
  private server: Server | null = null;
  private readonly connections = new Set<Connection>();
  /** Whispers waiting for a client (shared with the runner's hooks). */
  readonly whispers: WhisperQueue;
  private socketIno: number | null = null;

  constructor(opts: IpcServerOptions) {
    this.opts = opts;
    this.maxLineBytes = opts.maxLineBytes;
    this.whispers = opts.whispers ?? new WhisperQueue(opts.whisperQueueLimit ?? 100);
  }

  /** Open connections (clients and observers). */
  get clientCount(): number {
    return this.connections.size;
  }

  /**
   * Listens on the socket, created with mode 0600. The parent directory is created 0700 (the
   * runtime dir through `ensureRuntimeDir`). A file already at the path is an error
   * (`E_IPC`): deciding that it is stale is the caller's job (see `probeSocket`).
   */
  async start(): Promise<void> {
    if (this.server) return;
    const { path, logger } = this.opts;
    const env = this.opts.env ?? process.env;
    if (!socketPathFits(path)) throw socketPathTooLong(path, UNIX_SOCKET_PATH_LIMIT);
    const dir = dirname(resolve(path));
    if (dir === runtimeDir(env)) ensureRuntimeDir(env);
    else mkdirSync(dir, { recursive: true, mode: 0o700 });

    const server = createServer({ allowHalfOpen: true }, (socket) => this.accept(socket));
    await new Promise<void>((resolveListen, reject) => {
      const onError = (err: Error) => reject(ipcListenFailed(path, err));
      server.once("error", onError);
      // bind() runs synchronously inside listen(): with this umask the socket is born 0600,
      // so there is no moment when another user could connect. chmod below covers workers,
      // where process.umask() cannot be changed.
      const restoreUmask = tightenUmask(0o177);
      try {
        server.listen(path, () => {
          server.off("error", onError);
          resolveListen();
        });
      } finally {
        restoreUmask();
      }
    });
    try {
      chmodSync(path, 0o600);
      this.socketIno = statSync(path).ino;
    } catch (err) {
      server.close();
      throw ipcListenFailed(path, err);
    }
    server.on("error", (err) => logger.error("IPC server error", { error: errorMessage(err) }));
    this.server = server;
    logger.debug("IPC socket listening", { path });
  }

  /**
   * Stops listening and removes the socket file. Idle connections are closed now; a connection
   * in the middle of a request gets that answer first (so a `shutdown` request that calls
   * `stop()` is still answered), then is closed. Resolves without waiting for clients.
   */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    this.unlinkOwnSocket();
    await new Promise<void>((resolveClose) => {
      server.close();
      // close() stops accepting at once; its callback waits for every client, which we don't.
      setImmediate(resolveClose);
    });
    for (const conn of this.connections) this.closeConnection(conn);
  }

  /**
   * Takes the whispers still queued for a client. A backend that delivers whispers at a tool
   * boundary (a PostToolUse hook, a steer) calls this through `RunnerContext.takeWhispers`;
   * what it takes is not delivered again on the socket.
   */
  takeQueuedWhispers(): WhisperEvent[] {
    return this.whispers.take();
  }

  /**
   * Sends a supervisor whisper to every connected client; with none, queues it (bounded,
   * newest kept) for the next client, which gets every queued whisper right before its
   * first response.
   */
  sendWhisper(w: WhisperEvent): void {
    // Pushed only to short-lived clients; pullers take it from the queue with their next response.
    const targets = [...this.connections].filter((c) => c.role === "client" && !c.closing && c.socket.writable);
    if (targets.length === 0) {
      this.whispers.push(w);
      this.opts.logger.debug("whisper queued (no client connected)", { queued: this.whispers.length });
      return;
    }
    // Anything still queued goes first, so whispers arrive in the order they were sent.
    const payload = encodeWhispers([...this.whispers.take(), w]);
    for (const c of targets) c.socket.write(payload);
  }

  private accept(socket: Socket): void {
    const conn: Connection = {
      socket,
      decoder: new JsonLinesDecoder(this.maxLineBytes === undefined ? {} : { maxLineBytes: this.maxLineBytes }),
      queue: [],
      busy: false,
      ended: false,
      closing: false,
      role: "new",
      closed: new AbortController(),
    };
    this.connections.add(conn);
    socket.on("data", (chunk: Buffer) => {
      if (conn.closing) return;
      for (const item of conn.decoder.write(chunk)) conn.queue.push(item);
      if (conn.queue.length >= READ_AHEAD) socket.pause();
      void this.pump(conn);
    });
    socket.on("end", () => {
      // The client half-closed (`printf ... | nc -U`): answer what it sent, then close.
      conn.ended = true;
      for (const item of conn.decoder.end()) conn.queue.push(item);
      void this.pump(conn);
      // Half-closed (still reading its answers) or gone for good (destroyed): only a write tells.
      // While an answer is owed, a blank line (JSON-lines readers skip it) goes out each second;
      // to a gone client it fails, the socket closes, and `closed` withdraws what waited on it
      // (an IrcSend approval request, say).
      const probe = setInterval(() => {
        if (conn.closing || socket.destroyed) clearInterval(probe);
        else if (conn.busy || conn.queue.length > 0) socket.write("\n");
      }, 1_000);
      probe.unref();
      socket.once("close", () => clearInterval(probe));
    });
    socket.on("error", (err) => this.opts.logger.debug("IPC client connection error", { error: errorMessage(err) }));
    socket.on("close", () => {
      conn.closed.abort();
      conn.closing = true;
      conn.queue.length = 0;
      this.connections.delete(conn);
    });
  }

  /** Answers a connection's queued lines one at a time, in order. */
  private async pump(conn: Connection): Promise<void> {
    if (conn.busy) return;
    conn.busy = true;
    try {
      let item: JsonLine | undefined;
      while (!conn.closing && (item = conn.queue.shift()) !== undefined) {
        if (conn.queue.length < READ_AHEAD / 2 && conn.socket.isPaused()) conn.socket.resume();
        const line = await this.answer(conn, item);
        if (conn.socket.destroyed) break; // the client left mid-request
        if ((conn.role === "client" || conn.role === "puller") && this.whispers.length > 0) conn.socket.write(encodeWhispers(this.whispers.take()));
        if (!conn.socket.write(line)) await drained(conn.socket);
      }
    } finally {
      conn.busy = false;
    }
    if (conn.closing || (conn.ended && conn.queue.length === 0)) this.closeConnection(conn);
  }

  /** The response line for one decoded line. Never throws. */
  private async answer(conn: Connection, item: JsonLine): Promise<string> {
    if (!item.ok) return response("", { ok: false, error: item.error.message });
    const v = item.value;
    if (typeof v !== "object" || v === null || Array.isArray(v)) {
      return response("", { ok: false, error: `invalid request at line ${item.line}: expected a JSON object, got ${describe(v)}` });
    }
    const req = v as Record<string, unknown>;
    // The id is echoed as sent (a string, or a number from a hand-written client); otherwise "".
    const id = typeof req.id === "string" || (typeof req.id === "number" && Number.isFinite(req.id)) ? req.id : "";
    if (typeof req.type !== "string" || req.type.length === 0) {
      return response(id, {
        ok: false,
        error: `invalid request: the field 'type' is ${req.type === undefined ? "missing" : "not a non-empty string"} (expected e.g. "type":"status")`,
      });
    }
    if (req.observer === true) conn.role = "observer";
    else if (req.whispers === "pull") conn.role = "puller";
    else if (conn.role === "new") conn.role = "client";

    let result: IpcResult;
    try {
      result = await this.opts.handler({ ...req, type: req.type, id: String(id) }, conn.closed.signal);
    } catch (err) {
      this.opts.logger.warn("IPC request failed", { type: req.type, error: errorMessage(err) });
      return response(id, { ok: false, error: errorMessage(err) || "request failed" });
    }
    try {
      if (result?.ok === true) return response(id, { ok: true, data: isRecord(result.data) ? result.data : {} });
      if (result?.ok === false) return response(id, { ok: false, error: typeof result.error === "string" ? result.error : "request failed" });
      throw new Error("the handler returned no result");
    } catch (err) {
      this.opts.logger.error("IPC handler produced an invalid answer", { type: req.type, error: errorMessage(err) });
      return response(id, { ok: false, error: `internal error answering '${req.type}': ${errorMessage(err)}` });
    }
  }

  private closeConnection(conn: Connection): void {
    conn.closing = true;
    if (conn.busy) return; // pump() closes it after the answer in flight
    const { socket } = conn;
    if (socket.destroyed) return;
    socket.end(() => socket.destroy());
    setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
  }

  /** Removes the socket file if it is still the one we created (not a successor's). */
  private unlinkOwnSocket(): void {
    const { path } = this.opts;
    try {
      if (this.socketIno !== null && statSync(path).ino === this.socketIno) unlinkSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") {
        this.opts.logger.warn("couldn't remove the IPC socket file", { path, error: errorMessage(err) });
      }
    }
    this.socketIno = null;
  }
}

interface Connection {
  socket: Socket;
  decoder: JsonLinesDecoder;
  /** Decoded lines not answered yet. */
  queue: JsonLine[];
  /** True while pump() is answering. */
  busy: boolean;
  /** The client half-closed its side. */
  ended: boolean;
  /** No more answers: the server is stopping or the socket closed. */
  closing: boolean;
  /**
   * `new` until its first request; `observer` connections never receive whispers; `puller`
   * connections get them only with their responses, never pushed.
   */
  role: "new" | "client" | "observer" | "puller";
  /** Aborted when the socket closes. */
  closed: AbortController;
}

/** The wire lines of whispers (the reference implementation's format). */
function encodeWhispers(whispers: WhisperEvent[]): string {
  return whispers.map((w) => encodeJsonLine({ type: "whisper", whisper_type: w.action, message: w.message })).join("");
}

function response(id: string | number, result: IpcResult): string {
  return result.ok
    ? encodeJsonLine({ type: "response", id, ok: true, data: result.data })
    : encodeJsonLine({ type: "response", id, ok: false, error: result.error });
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return `a ${typeof v}`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function drained(socket: Socket): Promise<void> {
  return new Promise((resolveDrain) => {
    const done = () => {
      socket.off("drain", done);
      socket.off("close", done);
      resolveDrain();
    };
    socket.on("drain", done);
    socket.on("close", done);
  });
}

/** Sets the umask and returns a function restoring it; a no-op where it can't be set (workers). */
function tightenUmask(mask: number): () => void {
  try {
    const old = process.umask(mask);
    return () => process.umask(old);
  } catch {
    return () => {};
  }
}
