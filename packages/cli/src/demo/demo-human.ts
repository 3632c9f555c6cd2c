/**
 * The demo's scripted human: a minimal IRC client on a raw socket (registration, PING, JOIN,
 * PRIVMSG), so the demo shows exactly what a person in the channel sees.
 */
import { connect, type Socket } from "node:net";

/** A PRIVMSG the human saw. */
export interface SeenMessage {
  nick: string;
  target: string;
  text: string;
}

/** A tiny IRC client acting as a person. */
export class DemoHuman {
  private buffer = "";
  private listeners: Array<(m: SeenMessage) => void> = [];

  private constructor(private readonly socket: Socket) {}

  /** Connects, logs in as `nick` (with `password`), registers, joins `channel`; resolves once the JOIN is confirmed. */
  static async connect(port: number, nick: string, channel: string, timeoutMs = 15_000, password: string | null = null): Promise<DemoHuman> {
    const socket = connect({ host: "127.0.0.1", port });
    const human = new DemoHuman(socket);
    socket.setEncoding("utf8");
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the demo human could not join ${channel} within ${timeoutMs / 1000}s`)), timeoutMs);
      socket.once("error", reject);
      socket.on("data", (chunk: string) => {
        human.buffer += chunk;
        let i: number;
        while ((i = human.buffer.indexOf("\n")) >= 0) {
          const line = human.buffer.slice(0, i).replace(/\r$/, "");
          human.buffer = human.buffer.slice(i + 1);
          const parts = line.split(" ");
          if (parts[0] === "PING") socket.write(`PONG ${parts.slice(1).join(" ")}\r\n`);
          else if (parts[1] === "001") socket.write(`JOIN ${channel}\r\n`);
          else if (parts[1] === "JOIN" && parts[0]!.startsWith(`:${nick}!`)) {
            clearTimeout(timer);
            resolve();
          } else if (parts[1] === "PRIVMSG") human.emit(line);
        }
      });
      // The embedded server requires an account: PASS <account>:<password> logs in.
      socket.write(`${password ? `PASS ${nick}:${password}\r\n` : ""}NICK ${nick}\r\nUSER ${nick} 0 * :culture demo human\r\n`);
    });
    return human;
  }

  /** Says `text` in `target`. */
  say(target: string, text: string): void {
    this.socket.write(`PRIVMSG ${target} :${text.replace(/[\r\n]/g, " ")}\r\n`);
  }

  /** Calls `fn` for every PRIVMSG seen from now on. */
  onMessage(fn: (m: SeenMessage) => void): void {
    this.listeners.push(fn);
  }

  /** Resolves with the first message that passes `test`. */
  waitForMessage(test: (m: SeenMessage) => boolean, timeoutMs: number): Promise<SeenMessage> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("timed out")), timeoutMs);
      const fn = (m: SeenMessage) => {
        if (!test(m)) return;
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== fn);
        resolve(m);
      };
      this.listeners.push(fn);
    });
  }

  /** QUITs and closes the socket. */
  async close(): Promise<void> {
    if (this.socket.destroyed) return;
    this.socket.end("QUIT :demo over\r\n");
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        this.socket.destroy();
        resolve();
      }, 1000);
      this.socket.once("close", () => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  private emit(line: string): void {
    const m = /^:([^!\s]+)\S* PRIVMSG (\S+) :(.*)$/.exec(line);
    if (!m) return;
    const msg = { nick: m[1]!, target: m[2]!, text: m[3]! };
    for (const l of [...this.listeners]) l(msg);
  }
}
