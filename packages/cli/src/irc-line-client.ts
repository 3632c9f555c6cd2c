/**
 * A short-lived, line-level IRC connection for the CLI: `culture send` posts as an operator and
 * `culture doctor` checks that the server registers a client. irc-framework would do, but it
 * hides what matters here — which numeric the server answered, and when it has processed what
 * we sent — and it reconnects on its own. This client registers, answers PINGs, and offers
 * {@link IrcLineClient.sync}: a PING whose PONG proves that every line sent before it was
 * handled, returning the lines the server answered in between (the error numerics).
 */
import { connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { CultureError, ircUnreachable } from "@culture/core";

/** Options of {@link IrcLineClient.connect}. */
export interface IrcLineClientOptions {
  host: string;
  port: number;
  tls?: boolean;
  /** Verify the server's certificate (default true). */
  tlsVerify?: boolean;
  /** PASS sent before registering. */
  password?: string | null;
  /**
   * Log in with SASL PLAIN before registering (`server.sasl`): on a network with services this
   * is how the connection gets its account, which is what `operators:` names.
   */
  sasl?: { account: string; password: string } | null;
  /** The nick to register; `_` is appended while it is taken. */
  nick: string;
  /** The username (default `culture`). */
  username?: string;
  /** The real name (default `culture operator`). */
  realname?: string;
  /** How long connecting and registering may take (default 15 s). */
  timeoutMs?: number;
}

/** One parsed IRC line. */
export interface IrcLine {
  raw: string;
  /** The prefix without its colon (`nick!user@host` or a server name), or "". */
  prefix: string;
  /** The command, upper case, or the three-digit numeric. */
  command: string;
  params: string[];
}

/** Parses one IRC line (tags are skipped). */
export function parseIrcLine(raw: string): IrcLine {
  let rest = raw;
  if (rest.startsWith("@")) rest = rest.slice(rest.indexOf(" ") + 1 || rest.length);
  let prefix = "";
  if (rest.startsWith(":")) {
    const space = rest.indexOf(" ");
    prefix = rest.slice(1, space < 0 ? undefined : space);
    rest = space < 0 ? "" : rest.slice(space + 1);
  }
  const params: string[] = [];
  while (rest.length) {
    rest = rest.replace(/^ +/, "");
    if (!rest.length) break;
    if (rest.startsWith(":")) {
      params.push(rest.slice(1));
      break;
    }
    const space = rest.indexOf(" ");
    params.push(space < 0 ? rest : rest.slice(0, space));
    rest = space < 0 ? "" : rest.slice(space + 1);
  }
  const command = (params.shift() ?? "").toUpperCase();
  return { raw, prefix, command, params };
}

/** True for an error numeric (400-599). */
export function isErrorNumeric(line: IrcLine): boolean {
  return /^[45]\d\d$/.test(line.command);
}

/** A registered connection. Close it with {@link quit}. */
export class IrcLineClient {
  /** The nick the server registered (the requested one, or with `_` appended). */
  nick = "";
  private readonly socket: Socket;
  private readonly lines: IrcLine[] = [];
  private readonly waiters = new Set<Waiter>();
  private cursor = 0;
  private pings = 0;
  private closed: Error | null = null;
  /** `host:port`, for messages. */
  private readonly where: string;

  private constructor(socket: Socket, where: string) {
    this.socket = socket;
    this.where = where;
    let partial = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      partial += chunk;
      const parts = partial.split(/\r?\n/);
      partial = parts.pop() ?? "";
      for (const raw of parts) if (raw.trim()) this.receive(parseIrcLine(raw));
    });
    socket.on("error", (err) => {
      this.closed ??= new CultureError("E_IPC", `the connection to the IRC server ${where} failed: ${err.message}`);
    });
    socket.on("close", () => {
      const error = [...this.lines].reverse().find((l) => l.command === "ERROR");
      this.closed ??= new CultureError(
        "E_IRC_NOT_CONNECTED",
        `the IRC server ${where} closed the connection${error ? `: ${error.params.at(-1) ?? ""}` : ""}`,
      );
      for (const w of this.waiters) w.fail(this.closed);
      this.waiters.clear();
    });
  }

  /**
   * Connects and registers. Fails with E_IRC_UNREACHABLE (naming host:port) when the server
   * cannot be reached or does not register us in time, and E_IRC_COMMAND_FAILED when it
   * refuses the registration (bad password, banned, erroneous nick).
   */
  static async connect(options: IrcLineClientOptions): Promise<IrcLineClient> {
    const { host, port } = options;
    const timeoutMs = options.timeoutMs ?? 15_000;
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = options.tls
        ? tlsConnect({ host, port, servername: host, rejectUnauthorized: options.tlsVerify ?? true })
        : netConnect({ host, port });
      const timer = setTimeout(() => {
        s.destroy();
        reject(ircUnreachable(host, port, new Error(`no connection within ${timeoutMs / 1000}s`)));
      }, timeoutMs);
      s.once(options.tls ? "secureConnect" : "connect", () => {
        clearTimeout(timer);
        s.removeAllListeners("error");
        resolve(s);
      });
      s.once("error", (err) => {
        clearTimeout(timer);
        s.destroy();
        reject(ircUnreachable(host, port, err));
      });
    });
    const client = new IrcLineClient(socket, `${host}:${port}`);
    try {
      await client.register(options, timeoutMs);
    } catch (err) {
      client.socket.destroy();
      throw err;
    }
    return client;
  }

  /** Sends one line; CR, LF and NUL in it are removed (they would end it early). */
  send(line: string): void {
    if (this.closed) throw this.closed;
    this.socket.write(`${line.replace(/[\r\n\0]/g, "")}\r\n`);
  }

  /**
   * Sends a PING and waits for its PONG: the server has then processed every line sent before.
   * Resolves with the lines received since the previous sync (or registration), PONG excluded.
   */
  async sync(timeoutMs = 15_000): Promise<IrcLine[]> {
    const token = `culture-${++this.pings}`;
    this.send(`PING :${token}`);
    const pong = await this.waitFor((l) => l.command === "PONG" && l.params.at(-1) === token, timeoutMs, `the answer to PING ${token}`);
    const index = this.lines.indexOf(pong);
    const between = this.lines.slice(this.cursor, index);
    this.cursor = index + 1;
    return between;
  }

  /** Sends QUIT and waits (briefly) for the server to close the connection. */
  async quit(message = "bye"): Promise<void> {
    if (this.closed) return;
    const closed = new Promise<void>((resolve) => this.socket.once("close", () => resolve()));
    this.send(`QUIT :${message}`);
    const timer = setTimeout(() => this.socket.destroy(), 2000);
    await closed;
    clearTimeout(timer);
  }

  /** Closes the connection at once. */
  destroy(): void {
    this.socket.destroy();
  }

  private async register(options: IrcLineClientOptions, timeoutMs: number): Promise<void> {
    const end = Date.now() + timeoutMs;
    if (options.sasl) this.send("CAP LS 302");
    if (options.password) this.send(`PASS :${options.password}`);
    let nick = options.nick;
    this.send(`NICK ${nick}`);
    this.send(`USER ${options.username ?? "culture"} 0 * :${options.realname ?? "culture operator"}`);
    if (options.sasl) await this.authenticate(options.sasl, options, end);
    for (;;) {
      const line = await this.waitFor(
        (l) => ["001", "432", "433", "436", "437", "464", "465", "ERROR"].includes(l.command),
        Math.max(1, end - Date.now()),
        "the server to register us",
      ).catch((err: unknown) => {
        throw (err as { code?: string }).code === "E_TIMEOUT"
          ? ircUnreachable(options.host, options.port, new Error(`connected, but it did not register us within ${timeoutMs / 1000}s`))
          : err;
      });
      if (line.command === "001") {
        this.nick = line.params[0] ?? nick;
        this.cursor = this.lines.length;
        return;
      }
      if ((line.command === "433" || line.command === "437") && nick.length < options.nick.length + 5) {
        nick = `${nick}_`;
        this.send(`NICK ${nick}`);
        continue;
      }
      const reason = line.params.at(-1) ?? "";
      throw new CultureError(
        "E_IRC_COMMAND_FAILED",
        `the IRC server ${this.where} refused to register ${nick}: ${reason}${line.command === "ERROR" ? "" : ` (IRC ${line.command})`}` +
          (line.command === "464" ? "\nCheck server.password in agents.yaml (culture's embedded server requires an account: see culture server user --help)." : ""),
        { details: { code: line.command, reason } },
      );
    }
  }

  /**
   * SASL PLAIN (IRCv3 sasl-3.1): the server holds registration until `CAP END`, so a login that
   * fails is reported before anything is sent under the wrong identity.
   */
  private async authenticate(sasl: { account: string; password: string }, options: IrcLineClientOptions, end: number): Promise<void> {
    const wait = (match: (l: IrcLine) => boolean, what: string) =>
      this.waitFor(match, Math.max(1, end - Date.now()), what).catch((err: unknown) => {
        throw (err as { code?: string }).code === "E_TIMEOUT" ? ircUnreachable(options.host, options.port, new Error(`connected, but ${what} did not come in time`)) : err;
      });
    const refuse = (why: string, code: string): CultureError =>
      new CultureError(
        "E_IRC_COMMAND_FAILED",
        `the IRC server ${this.where} did not log us in as ${sasl.account} with SASL: ${why}.\nCheck server.sasl in agents.yaml (the account must exist on the network's services, e.g. /msg NickServ REGISTER).`,
        { details: { code, account: sasl.account } },
      );
    const ls = await wait((l) => l.command === "CAP" && l.params[1] === "LS" && l.params[2] !== "*", "the server's capability list");
    if (!/(^|\s)sasl(=\S*)?(\s|$)/.test(ls.params.at(-1) ?? "")) throw refuse("the server does not offer SASL", "no-sasl");
    this.send("CAP REQ :sasl");
    const ack = await wait((l) => l.command === "CAP" && (l.params[1] === "ACK" || l.params[1] === "NAK"), "the answer to CAP REQ sasl");
    if (ack.params[1] === "NAK") throw refuse("the server refused the sasl capability", "nak");
    this.send("AUTHENTICATE PLAIN");
    await wait((l) => l.command === "AUTHENTICATE" || /^90[2-7]$/.test(l.command), "the answer to AUTHENTICATE PLAIN");
    const token = Buffer.from(`${sasl.account}\0${sasl.account}\0${sasl.password}`, "utf8").toString("base64");
    // Longer than 400 bytes goes in chunks, the last one shorter (or "+").
    for (let i = 0; i < token.length; i += 400) this.send(`AUTHENTICATE ${token.slice(i, i + 400)}`);
    if (token.length % 400 === 0) this.send("AUTHENTICATE +");
    const done = await wait((l) => /^90[2-8]$/.test(l.command), "the SASL result");
    if (done.command !== "903") throw refuse(`${done.params.at(-1) ?? "login failed"} (IRC ${done.command})`, done.command);
    this.send("CAP END");
  }

  /**
   * Hands every line from now on to `listener` instead of keeping it (a long-lived watcher,
   * `culture top --network`, would otherwise keep every line forever). `sync` no longer works.
   */
  watch(listener: (line: IrcLine) => void): void {
    this.listener = listener;
    this.lines.length = 0;
  }

  /** Resolves when the connection has closed. */
  onClose(fn: () => void): void {
    this.socket.once("close", fn);
  }

  private listener: ((line: IrcLine) => void) | null = null;

  private receive(line: IrcLine): void {
    if (line.command === "PING") {
      this.socket.write(`PONG :${line.params.at(-1) ?? ""}\r\n`);
      return;
    }
    if (this.listener) return this.listener(line);
    this.lines.push(line);
    for (const w of [...this.waiters]) if (w.match(line)) w.resolve(line);
  }

  private waitFor(match: (line: IrcLine) => boolean, timeoutMs: number, what: string): Promise<IrcLine> {
    if (this.closed) return Promise.reject(this.closed);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        match,
        resolve: (l) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(l);
        },
        fail: (e) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          reject(e);
        },
      };
      const timer = setTimeout(
        () => waiter.fail(new CultureError("E_TIMEOUT", `timed out after ${timeoutMs / 1000}s waiting for ${what} from ${this.where}`)),
        timeoutMs,
      );
      this.waiters.add(waiter);
    });
  }
}

interface Waiter {
  match: (line: IrcLine) => boolean;
  resolve: (line: IrcLine) => void;
  fail: (err: Error) => void;
}
