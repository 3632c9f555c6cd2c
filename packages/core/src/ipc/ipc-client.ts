/**
 * The client side of the IPC socket, used by `culture channel` (run by the agent on every
 * IRC action), `culture status`/`stop`, and the daemon's single-instance probe.
 *
 * It is its own lean build entry (`@culture/core/ipc-client`) and imports node builtins only:
 * errors.ts lives in the heavy barrel, so failures here are plain Errors with the same shape
 * as a CultureError (`name: "CultureError"`, `code`), which `isCultureError` recognises.
 */
import { connect as netConnect, type Socket } from "node:net";
import { JsonLinesDecoder, encodeJsonLine } from "./json-lines.js";

/** A response on the socket: `{"type":"response","id":...,"ok":true,"data":{...}}` or `ok:false` with `error`. */
export interface IpcResponse {
  type: "response";
  id: string;
  ok: boolean;
  data?: Record<string, unknown>;
  error?: string;
}

/** An unsolicited supervisor whisper: `{"type":"whisper","whisper_type":"CORRECTION","message":"..."}`. */
export interface IpcWhisper {
  whisper_type: string;
  message: string;
}

/** Options of {@link IpcClient.connect}. */
export interface IpcConnectOptions {
  /** Give up connecting after this long. Default 5000 ms. */
  timeoutMs?: number;
}

/** Options of {@link IpcClient.request}. */
export interface IpcRequestOptions {
  /** Give up waiting for the answer after this long (the connection stays usable). Default 30000 ms; 0 waits forever. */
  timeoutMs?: number;
}

/** The shape of a CultureError, built without importing errors.ts. */
export interface IpcClientError extends Error {
  name: "CultureError";
  code: "E_NOT_RUNNING" | "E_IPC" | "E_TIMEOUT";
  details: Record<string, unknown>;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/**
 * One connection to a daemon's socket. Requests are matched to responses by id (a UUID per
 * request); whispers are collected in {@link whispers} as they arrive.
 */
export class IpcClient {
  /** Whispers received on this connection, oldest first. The caller may empty the array. */
  readonly whispers: IpcWhisper[] = [];
  /** The socket path this client is connected to. */
  readonly path: string;
  private readonly socket: Socket;
  private readonly pending = new Map<string, Pending>();
  private closedError: Error | null = null;

  private constructor(path: string, socket: Socket) {
    this.path = path;
    this.socket = socket;
    const decoder = new JsonLinesDecoder();
    socket.on("data", (chunk: Buffer) => {
      for (const item of decoder.write(chunk)) if (item.ok) this.dispatch(item.value);
    });
    socket.on("error", () => {
      // 'close' follows and fails whatever is pending.
    });
    socket.on("close", () => {
      for (const item of decoder.end()) if (item.ok) this.dispatch(item.value);
      this.closedError ??= ipcError("E_IPC", `the daemon closed the IPC connection on ${path} before answering`, { path });
      for (const p of this.pending.values()) p.fail(this.closedError);
      this.pending.clear();
    });
  }

  /**
   * Connects to a daemon's socket. A missing socket or one nobody listens on fails with code
   * `E_NOT_RUNNING` (the message names the path); other failures are `E_IPC`, a connect that
   * hangs is `E_TIMEOUT`.
   */
  static connect(path: string, opts: IpcConnectOptions = {}): Promise<IpcClient> {
    const timeoutMs = opts.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      const socket = netConnect({ path });
      // The timeout is armed only if the connect is still pending after the first turn of the
      // event loop: a Unix-socket connect is answered at once (accepted, refused, or EAGAIN when
      // the backlog is full), so a timer would almost never be needed, and making one is ~1% of
      // a `culture channel` call (bench/channel-cold-start.mjs; an immediate costs less).
      let timer: NodeJS.Timeout | undefined;
      const arm = setImmediate(() => {
        timer = setTimeout(() => {
          socket.destroy();
          reject(ipcError("E_TIMEOUT", `timed out after ${timeoutMs} ms connecting to the IPC socket ${path}`, { path }));
        }, timeoutMs);
      });
      const settle = () => {
        clearImmediate(arm);
        if (timer) clearTimeout(timer);
      };
      const onError = (err: NodeJS.ErrnoException) => {
        settle();
        socket.destroy();
        reject(connectError(path, err));
      };
      socket.once("error", onError);
      socket.once("connect", () => {
        settle();
        socket.off("error", onError);
        resolve(new IpcClient(path, socket));
      });
    });
  }

  /**
   * Sends `{"type": type, "id": <uuid>, ...fields}` and resolves with the response, whether
   * `ok` or not (an `ok:false` answer is the daemon's, not a transport failure). Rejects with
   * `E_TIMEOUT` when no answer comes in time, `E_IPC` when the connection is lost.
   */
  request(type: string, fields: Record<string, unknown> = {}, opts: IpcRequestOptions = {}): Promise<IpcResponse> {
    if (this.closedError) return Promise.reject(this.closedError);
    const id = requestId();
    const timeoutMs = opts.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    return new Promise<IpcResponse>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        if (timer) clearTimeout(timer);
        this.pending.delete(id);
      };
      this.pending.set(id, {
        resolve: (r) => {
          done();
          resolve(r);
        },
        fail: (e) => {
          done();
          reject(e);
        },
      });
      if (timeoutMs > 0) {
        timer = setTimeout(() => {
          this.pending.delete(id);
          reject(ipcError("E_TIMEOUT", `no answer to "${type}" from the daemon on ${this.path} within ${timeoutMs} ms`, { path: this.path, type }));
        }, timeoutMs);
      }
      // Key order as the reference client writes it: type, id, then the fields.
      const msg: Record<string, unknown> = { type, id };
      for (const [k, v] of Object.entries(fields)) if (k !== "type" && k !== "id") msg[k] = v;
      this.socket.write(encodeJsonLine(msg));
    });
  }

  /** True once the connection is gone (closed by either side); every request then fails with `E_IPC`. */
  get closed(): boolean {
    return this.closedError !== null;
  }

  /** Closes the connection; pending requests fail with `E_IPC`. */
  close(): void {
    this.closedError ??= ipcError("E_IPC", `the IPC connection to ${this.path} was closed`, { path: this.path });
    this.socket.destroy();
  }

  private dispatch(msg: unknown): void {
    if (typeof msg !== "object" || msg === null) return;
    const m = msg as Record<string, unknown>;
    if (m.type === "response" && typeof m.id === "string") {
      this.pending.get(m.id)?.resolve(m as unknown as IpcResponse);
    } else if (m.type === "whisper") {
      this.whispers.push({ whisper_type: String(m.whisper_type ?? "UNKNOWN"), message: String(m.message ?? "") });
    }
  }
}

/** What {@link probeSocket} found. */
export interface SocketProbe {
  /** True when a process accepted the connection (a stale socket file refuses it). */
  alive: boolean;
  /** The daemon's pid from its `status` answer, when it gave one. */
  pid: number | null;
}

/**
 * Is a daemon listening on `path`, and which pid is it? Connects and sends a `status`
 * request marked `observer: true` (so it never takes whispers meant for the agent).
 * Refused or missing: `{alive: false}`. Accepted but unanswered within `timeoutMs`:
 * `{alive: true, pid: null}` — something owns the socket, so it must not be replaced.
 */
export async function probeSocket(path: string, timeoutMs: number): Promise<SocketProbe> {
  const deadline = Date.now() + timeoutMs;
  let client: IpcClient;
  try {
    client = await IpcClient.connect(path, { timeoutMs });
  } catch (err) {
    return { alive: (err as { code?: string }).code === "E_TIMEOUT", pid: null };
  }
  try {
    const res = await client.request("status", { observer: true }, { timeoutMs: Math.max(1, deadline - Date.now()) });
    const pid = res.ok ? res.data?.pid : undefined;
    return { alive: true, pid: typeof pid === "number" && Number.isSafeInteger(pid) ? pid : null };
  } catch (err) {
    // A timeout means a live but busy owner; a dropped connection means whoever accepted is gone.
    return { alive: (err as { code?: string }).code === "E_TIMEOUT", pid: null };
  } finally {
    client.close();
  }
}

/**
 * A random (version 4) UUID, the id format of the reference client. Built from Math.random,
 * not crypto.randomUUID: loading node:crypto costs ~4 ms of CPU on every `culture channel`
 * call (measured; see bench/channel-cold-start.mjs), and an id only has to be unique among one
 * connection's pending requests — it is a correlation id on an owner-only socket, not a secret.
 */
export function requestId(): string {
  const r = () => ((Math.random() * 0x1_0000_0000) >>> 0).toString(16).padStart(8, "0");
  const a = r();
  const b = r();
  const c = r();
  const d = r();
  const variant = ((parseInt(c[0] as string, 16) & 0x3) | 0x8).toString(16);
  return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-${variant}${c.slice(1, 4)}-${c.slice(4, 8)}${d}`;
}

interface Pending {
  resolve: (r: IpcResponse) => void;
  fail: (e: Error) => void;
}

function ipcError(code: IpcClientError["code"], message: string, details: Record<string, unknown>, cause?: unknown): IpcClientError {
  const err = new Error(message, cause === undefined ? undefined : { cause }) as IpcClientError;
  err.name = "CultureError";
  err.code = code;
  err.details = details;
  return err;
}

function connectError(path: string, err: NodeJS.ErrnoException): IpcClientError {
  if (err.code === "ENOENT" || err.code === "ECONNREFUSED") {
    return ipcError("E_NOT_RUNNING", `no daemon answers on ${path} (${err.code === "ENOENT" ? "no socket file" : "connection refused"})`, { path }, err);
  }
  return ipcError("E_IPC", `couldn't connect to the IPC socket ${path}: ${err.message}`, { path }, err);
}
