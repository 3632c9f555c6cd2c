/**
 * A line-level IRC client for protocol tests: it sends exact lines and reads exact lines,
 * so a test sees the wire as the server wrote it. Reads are sequential: `next()` returns the
 * next unread line, `waitFor()` skips ahead to the first line that matches.
 */
import { connect, type Socket } from "node:net";

/** Something a line can be matched against. */
export type LineMatch = RegExp | string | ((line: string) => boolean);

/** A raw IRC connection. */
export class RawClient {
  /** Every line received, in order. */
  readonly lines: string[] = [];
  /** Resolves when the server closed the connection. */
  readonly closed: Promise<void>;
  private cursor = 0;
  private buffer = "";
  private waiters: (() => void)[] = [];
  ended = false;

  private constructor(readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => {
      this.buffer += chunk.toString("utf8");
      let nl: number;
      while ((nl = this.buffer.indexOf("\r\n")) !== -1) {
        this.lines.push(this.buffer.slice(0, nl));
        this.buffer = this.buffer.slice(nl + 2);
      }
      this.wake();
    });
    this.closed = new Promise((resolve) => {
      socket.on("close", () => {
        this.ended = true;
        this.wake();
        resolve();
      });
    });
    socket.on("error", () => {});
  }

  /** Connects to 127.0.0.1:port. */
  static connect(port: number, host = "127.0.0.1"): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      socket.once("connect", () => resolve(new RawClient(socket)));
      socket.once("error", reject);
    });
  }

  /** Connects and registers; resolves after the end of the welcome burst (422/376). */
  static async register(port: number, nick: string, opts: { caps?: string[]; user?: string; realname?: string; pass?: string } = {}): Promise<RawClient> {
    const c = await RawClient.connect(port);
    await c.registerAs(nick, opts);
    return c;
  }

  /** Registers this connection (CAP REQ first when `caps` are given). */
  async registerAs(nick: string, opts: { caps?: string[]; user?: string; realname?: string; pass?: string } = {}): Promise<void> {
    if (opts.pass !== undefined) this.send(`PASS ${opts.pass}`);
    if (opts.caps && opts.caps.length > 0) {
      this.send("CAP LS 302");
      this.send(`CAP REQ :${opts.caps.join(" ")}`);
      this.send("CAP END");
    }
    this.send(`NICK ${nick}`);
    const user = opts.user ?? (nick.replace(/[^a-z]/gi, "").slice(0, 10) || "u");
    this.send(`USER ${user} 0 * :${opts.realname ?? `${nick} realname`}`);
    await this.waitFor(/ (376|422) /);
  }

  /** Sends one line (CR LF added). */
  send(line: string): void {
    this.socket.write(`${line}\r\n`);
  }

  /** Sends raw bytes as they are. */
  sendRaw(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** The next unread line. */
  async next(timeoutMs = 5000): Promise<string> {
    return this.waitFor(() => true, timeoutMs);
  }

  /** Skips to the first unread line that matches and returns it. */
  async waitFor(match: LineMatch, timeoutMs = 5000): Promise<string> {
    const test = toPredicate(match);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.cursor < this.lines.length) {
        const line = this.lines[this.cursor++]!;
        if (test(line)) return line;
      }
      if (this.ended) throw new Error(`connection closed while waiting for ${String(match)}; last lines:\n${this.recent()}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${String(match)}; last lines:\n${this.recent()}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Unread lines up to and including the first that matches. */
  async collectUntil(match: LineMatch, timeoutMs = 5000): Promise<string[]> {
    const start = this.cursor;
    await this.waitFor(match, timeoutMs);
    return this.lines.slice(start, this.cursor);
  }

  /**
   * Sends `PING :<token>` and waits for its PONG: every line the server sent before the PONG
   * is then readable, so "nothing arrived" can be asserted without sleeping.
   */
  async sync(): Promise<string[]> {
    const token = `sync${Math.random().toString(36).slice(2)}`;
    this.send(`PING :${token}`);
    const got = await this.collectUntil((l) => l.includes(" PONG ") && l.endsWith(`:${token}`));
    return got.slice(0, -1);
  }

  /** Closes the socket (no QUIT). */
  async close(): Promise<void> {
    this.socket.destroy();
    await this.closed;
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  private recent(): string {
    return this.lines.slice(-15).join("\n");
  }
}

/** Strips the tag section of a line. */
export function withoutTags(line: string): string {
  return line.startsWith("@") ? line.slice(line.indexOf(" ") + 1) : line;
}

/** The tags of a line as a map. */
export function tagsOf(line: string): Map<string, string> {
  const tags = new Map<string, string>();
  if (!line.startsWith("@")) return tags;
  for (const part of line.slice(1, line.indexOf(" ")).split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1) tags.set(part, "");
    else tags.set(part.slice(0, eq), part.slice(eq + 1));
  }
  return tags;
}

function toPredicate(match: LineMatch): (line: string) => boolean {
  if (typeof match === "function") return match;
  if (typeof match === "string") return (l) => l.includes(match);
  return (l) => match.test(l);
}
