/**
 * One client connection: framing and decoding its input, throttling its commands, batching
 * its output, and the liveness timers (registration timeout, idle PING, ping timeout). What
 * the commands mean lives in commands/; shared state (nicks, channels) lives in the server.
 */
import type { Socket } from "node:net";
import type { Channel } from "./channel.js";
import type { Capability } from "./capabilities.js";
import { dispatch, penaltyOf } from "./commands/index.js";
import { FloodGate } from "./flood-gate.js";
import { LineReader } from "./line-reader.js";
import { formatParams, type IrcMessage, MAX_LINE_BYTES, parseMessage, truncateUtf8 } from "./message.js";
import { N } from "./numerics.js";
import { TAG_BITS } from "./outgoing.js";
import type { ServerCore } from "./server-core.js";

/** SASL exchange in progress. */
export interface SaslState {
  mechanism: "PLAIN";
  /** base64 received so far (the payload may arrive in 400-byte chunks). */
  buffer: string;
}

/** A connected client and everything the server knows about it. */
export class Connection {
  /** The address the client connected from, in a form safe inside a prefix (`::1` -> `0::1`). */
  readonly host: string;
  /** The raw remote address (connection limits count by it). */
  readonly ip: string;
  nick: string | null = null;
  user: string | null = null;
  realname = "";
  registered = false;
  /** True once a PASS matched the server password (or none is needed). */
  passOk: boolean;
  /** True between CAP LS/REQ and CAP END before registration. */
  capNegotiating = false;
  /** 302 when the client sent `CAP LS 302`. */
  capVersion = 0;
  readonly caps = new Set<Capability>();
  /** {@link TAG_BITS} of the enabled caps, kept in step with `caps`. */
  tagBits = 0;
  sasl: SaslState | null = null;
  account: string | null = null;
  /** True while a password check (SASL or PASS) runs; registration waits for it. */
  authPending = false;
  /** True after a failed PASS login (the refusal then says so). */
  authFailed = false;
  /** performance.now() when the connection was accepted (the oldest idle one is closed first). */
  get acceptedAt(): number {
    return this.connectedAt;
  }
  away: string | null = null;
  invisible = false;
  readonly channels = new Set<Channel>();
  /** Epoch seconds. */
  readonly signonAt = Math.floor(Date.now() / 1000);
  /** Epoch ms of the last PRIVMSG/NOTICE (WHOIS idle time). */
  lastMessageAt = Date.now();
  closed = false;

  private readonly reader = new LineReader();
  private readonly gate: FloodGate<IrcMessage> | null;
  /** Output waiting for the next flush: lines as strings, relayed lines as shared bytes. */
  private out: (string | Buffer)[] = [];
  private flushQueued = false;
  private readonly connectedAt = performance.now();
  private lastActivity = performance.now();
  private pingSentAt: number | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly server: ServerCore,
    readonly socket: Socket,
  ) {
    this.ip = socket.remoteAddress ?? "unknown";
    const ip = this.ip.startsWith("::ffff:") ? this.ip.slice(7) : this.ip;
    this.host = ip.startsWith(":") ? `0${ip}` : ip;
    this.passOk = server.opts.password === null;
    const flood = server.opts.flood;
    this.gate = flood
      ? new FloodGate<IrcMessage>(flood, (m) => this.execute(m), () => server.disconnect(this, "Excess Flood"))
      : null;
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 60_000);
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("error", (err) => server.opts.logger.debug("client socket error", { host: this.host, error: err.message }));
    socket.on("close", () => server.disconnect(this, "Connection closed"));
    this.schedule(server.opts.registrationTimeoutMs);
  }

  /** `nick!user@host`. */
  get prefix(): string {
    return `${this.nick ?? "*"}!${this.user ?? "*"}@${this.host}`;
  }

  /** The nick for numerics (`*` before one is set). */
  get target(): string {
    return this.nick ?? "*";
  }

  /** True when the client enabled `cap`. */
  has(cap: Capability): boolean {
    return this.caps.has(cap);
  }

  /** Turns a capability on or off and keeps {@link tagBits} in step. */
  setCap(cap: Capability, on: boolean): void {
    if (on) this.caps.add(cap);
    else this.caps.delete(cap);
    const bit = cap === "message-tags" ? TAG_BITS.messageTags : cap === "server-time" ? TAG_BITS.serverTime : cap === "account-tag" ? TAG_BITS.accountTag : 0;
    if (bit !== 0) this.tagBits = on ? this.tagBits | bit : this.tagBits & ~bit;
  }

  /** Queues a raw line (no CR LF); lines go out together once the current I/O callbacks finish. */
  send(line: string): void {
    if (this.closed) return;
    this.out.push(line + "\r\n");
    this.queueFlush();
  }

  /**
   * Queues an encoded line (CR LF included). Channel fan-out encodes a message once and
   * shares the bytes among recipients: encoding per recipient was half the server's CPU.
   */
  sendBytes(line: Buffer): void {
    if (this.closed) return;
    this.out.push(line);
    this.queueFlush();
  }

  private queueFlush(): void {
    if (!this.flushQueued) {
      this.flushQueued = true;
      this.server.queueFlush(this);
    }
  }

  /** Sends a numeric reply: `:server CODE nick params... :last`. */
  numeric(code: string, ...params: string[]): void {
    this.send(truncateUtf8(`:${this.server.opts.name} ${formatParams(code, [this.target, ...params], params.length > 0)}`, MAX_LINE_BYTES - 2));
  }

  /** A numeric whose last parameter is a value, not text (`324 me #c +nt`): no forced `:`. */
  numericBare(code: string, ...params: string[]): void {
    this.send(`:${this.server.opts.name} ${formatParams(code, [this.target, ...params])}`);
  }

  /** Sends a message with the server as its source (the last parameter as needed). */
  fromServer(command: string, ...params: string[]): void {
    this.send(`:${this.server.opts.name} ${formatParams(command, params)}`);
  }

  /** Sends a message with the server as its source, the last parameter always trailing. */
  fromServerText(command: string, ...params: string[]): void {
    this.send(truncateUtf8(`:${this.server.opts.name} ${formatParams(command, params, true)}`, MAX_LINE_BYTES - 2));
  }

  /** Sends an IRCv3 standard reply: `FAIL <command> <code> [context...] :description`. */
  fail(command: string, code: string, ...rest: string[]): void {
    this.fromServerText("FAIL", command, code, ...rest);
  }

  /** Writes what {@link send} queued; disconnects a client that does not read its output. */
  flush(): void {
    this.flushQueued = false;
    if (this.out.length === 0 || this.socket.destroyed) return;
    this.socket.write(this.takeOutput());
    if (this.socket.writableLength > this.server.opts.maxSendQBytes) this.server.disconnect(this, "SendQ exceeded", { abort: true });
  }

  /** Writes what is queued plus a last line, then half-closes the socket. */
  end(lastLine: string): void {
    this.out.push(lastLine + "\r\n");
    this.socket.end(this.takeOutput());
  }

  /** The queued output as one buffer (one write, one syscall). */
  private takeOutput(): Buffer {
    const parts = this.out;
    this.out = [];
    if (parts.length === 1) {
      const only = parts[0]!;
      return typeof only === "string" ? Buffer.from(only, "utf8") : only;
    }
    const buffers = parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : p));
    return Buffer.concat(buffers);
  }

  /** Called by the server once registration completes: switch to idle checks. */
  startIdleTimer(): void {
    this.schedule(this.server.opts.idleTimeoutMs);
  }

  /** Stops timers and throttling (the server is disconnecting this client). */
  stop(): void {
    this.closed = true;
    this.gate?.close();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private onData(chunk: Buffer): void {
    this.lastActivity = performance.now();
    for (const ev of this.reader.push(chunk)) {
      if (this.closed) return;
      if (ev.kind === "too-long") {
        this.numeric(N.ERR_INPUTTOOLONG, "Input line was too long");
        continue;
      }
      const msg = parseMessage(ev.line);
      if (!msg) continue;
      if (this.gate) this.gate.submit(msg, penaltyOf(msg));
      else this.execute(msg);
    }
  }

  private execute(msg: IrcMessage): void {
    if (this.closed) return;
    try {
      dispatch(this.server, this, msg);
    } catch (err) {
      // A bug in one handler must not take the server down with it.
      this.server.opts.logger.error("command failed", { command: msg.command, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    }
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.checkLiveness(), Math.max(1, ms));
  }

  private checkLiveness(): void {
    this.timer = null;
    if (this.closed) return;
    const opts = this.server.opts;
    const now = performance.now();
    if (!this.registered) {
      const left = opts.registrationTimeoutMs - (now - this.connectedAt);
      if (left <= 0) this.server.disconnect(this, "Registration timeout");
      else this.schedule(left);
      return;
    }
    if (this.pingSentAt !== null) {
      if (this.lastActivity <= this.pingSentAt) {
        this.server.disconnect(this, `Ping timeout: ${Math.ceil(opts.pingTimeoutMs / 1000)} seconds`);
        return;
      }
      this.pingSentAt = null;
    }
    const idle = now - this.lastActivity;
    if (idle >= opts.idleTimeoutMs) {
      this.pingSentAt = now;
      this.send(`PING :${opts.name}`);
      this.schedule(opts.pingTimeoutMs);
    } else {
      this.schedule(opts.idleTimeoutMs - idle);
    }
  }
}
