/**
 * Real IRC servers for tests, and a raw line-level IRC client to talk to them.
 *
 * culture promises to work against any IRCd, so its integration tests run against the real
 * InspIRCd 3 and ngIRCd from Debian instead of a fake. Each server gets a free loopback port, a
 * generated config in its own temp dir, and runs as `nobody` when the tests run as root (both
 * daemons refuse or dislike root). A server is "ready" only when a client can actually
 * register, not when the port accepts connections.
 *
 * The raw client speaks plain IRC lines over a socket, so a test can act as a human and see
 * the exact wire lines the code under test produced (splitting, injection attempts, ...).
 */
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, chmodSync, chownSync, writeFileSync, rmSync, readFileSync } from "node:fs";
import { createServer, connect as netConnect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The IRC daemons the harness can run. */
export type IrcServerKind = "inspircd" | "ngircd";

/** Where the Debian packages put the daemons. */
export const IRC_SERVER_BINARIES: Record<IrcServerKind, string> = {
  inspircd: "/usr/sbin/inspircd",
  ngircd: "/usr/sbin/ngircd",
};

/** A server-to-server link (InspIRCd spanningtree). */
export interface IrcServerLinkOptions {
  /** The peer's server name. */
  peerName: string;
  /** The peer's server-link port (on `peerHost`). */
  peerPort: number;
  /** The peer's address; default 127.0.0.1 (another address: a peer in another network namespace). */
  peerHost?: string;
  /** Shared link password (both directions). */
  password: string;
  /** Whether this side dials the peer (one side of a link should). */
  autoconnect: boolean;
}

/** Options of {@link startIrcServer}. */
export interface StartIrcServerOptions {
  /** Client port; default a free loopback port. */
  port?: number;
  /** Server name (must contain a dot); default `<kind>-<random>.test`. */
  serverName?: string;
  /** Connection password every client must send with PASS. */
  password?: string;
  /** Also listen for TLS clients (self-signed certificate) on `tlsPort`. */
  tls?: boolean;
  /** InspIRCd only: port for server links (default a free port when `link` is given). */
  serverPort?: number;
  /** InspIRCd only: link to another InspIRCd. */
  link?: IrcServerLinkOptions;
  /**
   * InspIRCd only: accept a services server (Atheme) on `serverPort` with these name and link
   * password, with SASL, account-tag, extended-join (unless `extendedJoin: false`: a network
   * whose JOINs do not say the account, so clients ask WHO) and account-notify (see
   * {@link startInspircdAtheme}).
   */
  services?: { name: string; password: string; extendedJoin?: boolean };
  /** How long to wait for the server to accept a registration; default 20 s. */
  readyTimeoutMs?: number;
  /**
   * InspIRCd only: run the daemon inside this network namespace (`ip netns exec`, root only):
   * a second "machine" for cross-host tests. It then also takes clients on `clientHost`, which
   * the readiness probe (and the test, from outside) connects to.
   */
  netns?: string;
  /** InspIRCd only: also take clients on this address (besides 127.0.0.1); required with `netns`. */
  clientHost?: string;
  /** InspIRCd only: the address the server-link port binds to; default 127.0.0.1. */
  serverHost?: string;
}

/** A running test IRC server. */
export interface RunningIrcServer {
  kind: IrcServerKind;
  /** Where clients reach it from the test: 127.0.0.1, or `clientHost` for a server in a network namespace. */
  host: string;
  /** Plain-text client port. */
  port: number;
  /** TLS client port when started with `tls: true`, else null. */
  tlsPort: number | null;
  /** Server-link port (InspIRCd with a link), else null. */
  serverPort: number | null;
  /** The server's name (the prefix of its numerics). */
  serverName: string;
  /** The temp dir holding the config, pid file, logs and TLS files. */
  dir: string;
  /** True while the daemon process runs. */
  readonly running: boolean;
  /** The daemon's stdout and stderr so far (for error messages). */
  output(): string;
  /** Graceful stop (SIGTERM, then SIGKILL after 5 s); removes the temp dir. Safe to call twice. */
  stop(): Promise<void>;
  /** Stops the daemon if it runs, and starts it again on the same port(s); ready when it returns. */
  restart(): Promise<void>;
  /** SIGKILL: the server vanishes without closing anything gracefully. `restart()` brings it back. */
  kill(): Promise<void>;
}

const LOOPBACK = "127.0.0.1" as const;
const OUTPUT_LIMIT = 64 * 1024;
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Starts InspIRCd or ngIRCd on a free loopback port and resolves once a client can register.
 * Throws an Error naming the install command when the daemon is not installed.
 */
export async function startIrcServer(kind: IrcServerKind, opts: StartIrcServerOptions = {}): Promise<RunningIrcServer> {
  const bin = IRC_SERVER_BINARIES[kind];
  if (!existsSync(bin)) {
    throw new Error(
      `The test IRC server ${kind} is not installed (${bin} is missing).\n` +
        `Install both test servers with: apt-get update && apt-get install -y inspircd ngircd`,
    );
  }
  if (kind === "ngircd" && opts.link) throw new Error("startIrcServer: links are only supported for inspircd");
  if (kind === "ngircd" && (opts.netns || opts.clientHost || opts.serverHost)) throw new Error("startIrcServer: netns, clientHost and serverHost are only supported for inspircd");
  if (opts.netns && !opts.clientHost) throw new Error("startIrcServer: a server in a network namespace needs clientHost (an address of that namespace the test can reach)");
  const probeHost = opts.netns ? opts.clientHost! : LOOPBACK;

  const port = opts.port ?? (await freePort());
  const tlsPort = opts.tls ? await freePort() : null;
  const serverPort = kind === "inspircd" && (opts.link || opts.serverPort || opts.services) ? (opts.serverPort ?? (await freePort())) : null;
  const serverName = opts.serverName ?? `${kind}-${Math.random().toString(36).slice(2, 8)}.test`;
  const readyTimeoutMs = opts.readyTimeoutMs ?? 20_000;
  const asNobody = process.getuid?.() === 0;

  let dir = "";
  let child: ChildProcess | null = null;
  let output = "";
  let stopped = false;

  const prepare = (): void => {
    dir = mkdtempSync(join(tmpdir(), `culture-${kind}-`));
    chmodSync(dir, 0o755);
    if (asNobody) {
      const { uid, gid } = nobodyIds();
      chownSync(dir, uid, gid);
    }
    if (tlsPort !== null) writeSelfSignedCertificate(dir);
    const config =
      kind === "inspircd"
        ? inspircdConfig({ dir, port, tlsPort, serverPort, serverName, password: opts.password, link: opts.link, services: opts.services, clientHost: opts.clientHost, serverHost: opts.serverHost })
        : ngircdConfig({ dir, port, tlsPort, serverName, password: opts.password });
    const file = join(dir, kind === "inspircd" ? "inspircd.conf" : "ngircd.conf");
    writeFileSync(file, config, { mode: 0o644 });
  };

  const launch = async (): Promise<void> => {
    const file = join(dir, kind === "inspircd" ? "inspircd.conf" : "ngircd.conf");
    const args = kind === "inspircd" ? ["--nofork", `--config=${file}`] : ["-n", "-f", file];
    // runuser forks and waits, so the daemon is its child: `detached` puts both in one process
    // group and every signal goes to the group (-pid), which reaches the daemon itself.
    const plain = asNobody ? (["runuser", ["-u", "nobody", "--", bin, ...args]] as const) : ([bin, args] as const);
    // `ip netns exec` enters the namespace and execs the rest: still one process group.
    const argv = opts.netns ? (["ip", ["netns", "exec", opts.netns, plain[0], ...plain[1]]] as const) : plain;
    const proc = spawn(argv[0], [...argv[1]], { cwd: dir, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    child = proc;
    live.add(proc);
    installExitHook();
    const append = (chunk: Buffer): void => {
      output += chunk.toString("utf8");
      if (output.length > OUTPUT_LIMIT) output = output.slice(-OUTPUT_LIMIT);
    };
    proc.stdout?.on("data", append);
    proc.stderr?.on("data", append);
    proc.once("exit", () => live.delete(proc));
    try {
      await waitUntilRegistrable(proc, probeHost, port, opts.password, readyTimeoutMs);
    } catch (err) {
      await signalAndWait(proc, "SIGKILL", 5_000);
      throw new Error(
        `The test IRC server ${kind} did not become ready on ${probeHost}:${port}: ${(err as Error).message}\n` +
          `config: ${file}\n--- server output ---\n${output.trim() || "(none)"}${logTail(dir)}`,
      );
    }
  };

  prepare();
  await launch();

  const server: RunningIrcServer = {
    kind,
    host: probeHost,
    port,
    tlsPort,
    serverPort,
    serverName,
    get dir() {
      return dir;
    },
    get running() {
      return child !== null && child.exitCode === null && child.signalCode === null;
    },
    output: () => output,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (child) await signalAndWait(child, "SIGTERM", 5_000);
      child = null;
      rmSync(dir, { recursive: true, force: true });
    },
    async restart() {
      if (child) await signalAndWait(child, "SIGTERM", 5_000);
      child = null;
      if (stopped) {
        stopped = false;
        prepare();
      }
      await launch();
    },
    async kill() {
      if (child) await signalAndWait(child, "SIGKILL", 5_000);
      child = null;
    },
  };
  return server;
}

/** Two linked InspIRCd servers. */
export interface LinkedIrcServers {
  /** The hub; it dials `b`. */
  a: RunningIrcServer;
  b: RunningIrcServer;
  /** Stops both. */
  stop(): Promise<void>;
}

/**
 * Starts two InspIRCd servers linked with spanningtree and resolves once the link is up (a
 * client on `a` sees `b` in LINKS). Clients on either server see each other's channels.
 */
export async function startLinkedInspircd(opts: { readyTimeoutMs?: number } = {}): Promise<LinkedIrcServers> {
  const suffix = Math.random().toString(36).slice(2, 8);
  const nameA = `a-${suffix}.test`;
  const nameB = `b-${suffix}.test`;
  const serverPortA = await freePort();
  const serverPortB = await freePort();
  const password = `link-${suffix}`;
  const b = await startIrcServer("inspircd", {
    serverName: nameB,
    serverPort: serverPortB,
    link: { peerName: nameA, peerPort: serverPortA, password, autoconnect: false },
    ...(opts.readyTimeoutMs ? { readyTimeoutMs: opts.readyTimeoutMs } : {}),
  });
  let a: RunningIrcServer | null = null;
  try {
    a = await startIrcServer("inspircd", {
      serverName: nameA,
      serverPort: serverPortA,
      link: { peerName: nameB, peerPort: serverPortB, password, autoconnect: true },
      ...(opts.readyTimeoutMs ? { readyTimeoutMs: opts.readyTimeoutMs } : {}),
    });
    const deadline = Date.now() + (opts.readyTimeoutMs ?? 20_000);
    for (;;) {
      const probe = await connectRawClient(a.port, `lk${suffix}`);
      probe.send("LINKS");
      const end = await probe.waitFor(/ 365 /, 5_000);
      const linked = probe.lines.some((l) => / 364 /.test(l) && l.includes(nameB));
      void end;
      await probe.close();
      if (linked) break;
      if (Date.now() > deadline) {
        throw new Error(`InspIRCd ${nameA} did not link to ${nameB}.\n--- a ---\n${a.output()}\n--- b ---\n${b.output()}`);
      }
      await sleep(200);
    }
  } catch (err) {
    await a?.stop();
    await b.stop();
    throw err;
  }
  const linkedA = a;
  return { a: linkedA, b, stop: async () => void (await Promise.all([linkedA.stop(), b.stop()])) };
}

/** One IRC line taken apart (for assertions in tests). */
export interface ParsedIrcLine {
  tags: Record<string, string>;
  /** The prefix without the colon, or "" when there is none. */
  prefix: string;
  /** The nick part of the prefix ("" for server prefixes without `!`). */
  nick: string;
  command: string;
  params: string[];
}

/** Parses one IRC line (without CRLF) into tags, prefix, command and params. */
export function parseRawLine(line: string): ParsedIrcLine {
  let rest = line;
  const tags: Record<string, string> = {};
  if (rest.startsWith("@")) {
    const sp = rest.indexOf(" ");
    for (const tag of rest.slice(1, sp < 0 ? undefined : sp).split(";")) {
      const eq = tag.indexOf("=");
      if (tag) tags[eq < 0 ? tag : tag.slice(0, eq)] = eq < 0 ? "" : tag.slice(eq + 1);
    }
    rest = sp < 0 ? "" : rest.slice(sp + 1).trimStart();
  }
  let prefix = "";
  if (rest.startsWith(":")) {
    const sp = rest.indexOf(" ");
    prefix = rest.slice(1, sp < 0 ? undefined : sp);
    rest = sp < 0 ? "" : rest.slice(sp + 1).trimStart();
  }
  const params: string[] = [];
  let command = "";
  while (rest.length > 0) {
    if (command && rest.startsWith(":")) {
      params.push(rest.slice(1));
      break;
    }
    const sp = rest.indexOf(" ");
    const token = sp < 0 ? rest : rest.slice(0, sp);
    if (!command) command = token.toUpperCase();
    else params.push(token);
    rest = sp < 0 ? "" : rest.slice(sp + 1).replace(/^ +/, "");
  }
  const bang = prefix.indexOf("!");
  const nick = bang >= 0 ? prefix.slice(0, bang) : prefix.includes(".") ? "" : prefix;
  return { tags, prefix, nick, command, params };
}

/** What {@link RawIrcClient.waitFor} matches: a regex on the line, or a predicate. */
export type RawLineMatcher = RegExp | ((line: string, parsed: ParsedIrcLine) => boolean);

/** A line-level IRC client for tests: it acts as a human and records the exact wire lines. */
export interface RawIrcClient {
  /** The nick it registered with. */
  readonly nick: string;
  /** Every line received so far, without CRLF, oldest first. */
  readonly lines: string[];
  /** Every line sent so far. */
  readonly sent: string[];
  /** True once the socket has closed. */
  readonly closed: boolean;
  /** Sends one raw line (CRLF is appended). */
  send(line: string): void;
  /**
   * Resolves with the first line, after the previous match, that matches; rejects after
   * `timeoutMs` (default 10 s) with the recent lines in the message. Each match advances the
   * cursor, so a second waitFor for the same pattern waits for a new line.
   */
  waitFor(match: RawLineMatcher, timeoutMs?: number): Promise<string>;
  /** All lines received since index `from` (a value of `lines.length` taken earlier). */
  since(from: number): string[];
  /** JOINs a channel and resolves at the end of its NAMES list. */
  join(channel: string, timeoutMs?: number): Promise<void>;
  /** Sends QUIT and resolves when the socket has closed (destroys it after 2 s). */
  close(message?: string): Promise<void>;
}

/** Options of {@link connectRawClient}. */
export interface RawClientOptions {
  host?: string;
  /** PASS sent before NICK/USER. */
  password?: string;
  /** IRCv3 capabilities to request (e.g. message-tags, server-time, echo-message). */
  caps?: string[];
  username?: string;
  /** Resolve only after 001 (default true). */
  register?: boolean;
  timeoutMs?: number;
}

/**
 * Connects a raw IRC client, registers `nick`, answers PINGs, and records every line.
 * Resolves after the server's 001 welcome (unless `register: false`).
 */
export async function connectRawClient(port: number, nick: string, opts: RawClientOptions = {}): Promise<RawIrcClient> {
  const host = opts.host ?? LOOPBACK;
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = netConnect({ host, port });
    s.once("connect", () => {
      s.off("error", reject);
      resolve(s);
    });
    s.once("error", reject);
  });
  socket.setNoDelay(true);
  const lines: string[] = [];
  const sent: string[] = [];
  let cursor = 0;
  let closed = false;
  let buffer = "";
  const waiters = new Set<() => void>();
  const wake = (): void => {
    for (const w of [...waiters]) w();
  };
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl).replace(/\r$/, "");
      buffer = buffer.slice(nl + 1);
      if (!line) continue;
      lines.push(line);
      const parsed = parseRawLine(line);
      if (parsed.command === "PING") write(`PONG :${parsed.params[parsed.params.length - 1] ?? ""}`);
    }
    wake();
  });
  socket.on("error", () => {});
  socket.on("close", () => {
    closed = true;
    wake();
  });
  const write = (line: string): void => {
    sent.push(line);
    if (!socket.destroyed) socket.write(line + "\r\n");
  };

  const waitFor = (match: RawLineMatcher, wait = 10_000): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      const test = (line: string): boolean => (match instanceof RegExp ? match.test(line) : match(line, parseRawLine(line)));
      const check = (): boolean => {
        for (let i = cursor; i < lines.length; i++) {
          const line = lines[i]!;
          if (test(line)) {
            cursor = i + 1;
            finish();
            resolve(line);
            return true;
          }
        }
        if (closed) {
          finish();
          reject(new Error(`raw client ${nick}: connection closed while waiting for ${String(match)}\n${recent()}`));
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`raw client ${nick}: timed out after ${wait} ms waiting for ${String(match)}\n${recent()}`));
      }, wait);
      const finish = (): void => {
        clearTimeout(timer);
        waiters.delete(onWake);
      };
      const onWake = (): void => void check();
      if (!check()) waiters.add(onWake);
    });
  const recent = (): string => `last lines received:\n  ${lines.slice(-15).join("\n  ")}`;

  const client: RawIrcClient = {
    nick,
    lines,
    sent,
    get closed() {
      return closed;
    },
    send: write,
    waitFor,
    since: (from) => lines.slice(from),
    async join(channel, wait = 10_000) {
      write(`JOIN ${channel}`);
      const lower = channel.toLowerCase();
      await waitFor((_l, p) => p.command === "366" && (p.params[1] ?? "").toLowerCase() === lower, wait);
    },
    async close(message = "bye") {
      if (closed) return;
      write(`QUIT :${message}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          socket.destroy();
          resolve();
        }, 2_000);
        socket.once("close", () => {
          clearTimeout(t);
          resolve();
        });
      });
    },
  };

  if (opts.password) write(`PASS ${opts.password}`);
  if (opts.caps?.length) write("CAP LS 302");
  write(`NICK ${nick}`);
  write(`USER ${opts.username ?? "raw"} 0 * :culture raw test client`);
  if (opts.caps?.length) {
    write(`CAP REQ :${opts.caps.join(" ")}`);
    await waitFor(/ CAP \S+ (ACK|NAK) /, timeoutMs);
    write("CAP END");
  }
  if (opts.register !== false) {
    try {
      await waitFor((_l, p) => p.command === "001" || /^(433|432|464|465)$/.test(p.command) || p.command === "ERROR", timeoutMs);
    } catch (err) {
      socket.destroy();
      throw err;
    }
    const last = parseRawLine(lines[cursor - 1] ?? "");
    if (last.command !== "001") {
      socket.destroy();
      throw new Error(`raw client ${nick} could not register on port ${port}: ${lines[cursor - 1]}`);
    }
  }
  return client;
}

/** A free TCP port on the loopback interface (bound, read, released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", reject);
    srv.listen(0, LOOPBACK, () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Internal helpers

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function nobodyIds(): { uid: number; gid: number } {
  const uid = Number(execFileSync("id", ["-u", "nobody"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "nobody"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // A test run that dies must not leave daemons holding ports.
  process.once("exit", () => {
    for (const proc of live) {
      try {
        if (proc.pid) process.kill(-proc.pid, "SIGKILL");
      } catch {
        /* already gone */
      }
    }
  });
}

async function signalAndWait(proc: ChildProcess, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  const send = (sig: NodeJS.Signals): void => {
    try {
      if (proc.pid) process.kill(-proc.pid, sig);
    } catch {
      /* already gone */
    }
  };
  send(signal);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    exited.then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), graceMs))),
  ]);
  clearTimeout(timer);
  if (timedOut) {
    send("SIGKILL");
    await exited;
  }
}

/** Polls until a client can register (001), the process dies, or the time is up. */
async function waitUntilRegistrable(proc: ChildProcess, host: string, port: number, password: string | undefined, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  for (let i = 0; ; i++) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(`the server process exited (code ${proc.exitCode}, signal ${proc.signalCode})`);
    }
    try {
      const probe = await connectRawClient(port, `ready${process.pid % 1000}x${i}`, {
        host,
        ...(password ? { password } : {}),
        timeoutMs: Math.max(1_000, Math.min(10_000, deadline - Date.now())),
      });
      await probe.close("ready probe");
      return;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) throw new Error(`no registration within ${timeoutMs} ms (${(lastError as Error)?.message ?? lastError})`);
    await sleep(50);
  }
}

function logTail(dir: string): string {
  const file = join(dir, "ircd.log");
  if (!existsSync(file)) return "";
  return `\n--- ircd.log ---\n${readFileSync(file, "utf8").slice(-4000)}`;
}

function writeSelfSignedCertificate(dir: string): void {
  const key = join(dir, "key.pem");
  const cert = join(dir, "cert.pem");
  try {
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert,
        "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
  } catch (err) {
    throw new Error(`Could not create a TLS certificate with openssl (apt-get install -y openssl): ${(err as Error).message}`);
  }
  chmodSync(key, 0o644);
  chmodSync(cert, 0o644);
}

interface ConfigInput {
  dir: string;
  port: number;
  tlsPort: number | null;
  serverName: string;
  password: string | undefined;
}

function inspircdConfig(
  c: ConfigInput & {
    serverPort: number | null;
    link: IrcServerLinkOptions | undefined;
    services?: { name: string; password: string; extendedJoin?: boolean } | undefined;
    clientHost?: string | undefined;
    serverHost?: string | undefined;
  },
): string {
  const q = (s: string): string => s.replace(/"/g, "");
  const lines = [
    // Services need to know our server id (Atheme links with InspIRCd's 1202 protocol).
    `<server name="${q(c.serverName)}" description="culture test server" network="culturetest"${c.services ? ` id="001"` : ""}>`,
    `<admin name="culture" nick="culture" email="culture@localhost">`,
    `<bind address="${LOOPBACK}" port="${c.port}" type="clients">`,
    ...(c.clientHost && c.clientHost !== LOOPBACK ? [`<bind address="${q(c.clientHost)}" port="${c.port}" type="clients">`] : []),
    `<pid file="${join(c.dir, "inspircd.pid")}">`,
    `<log method="file" type="* -USERINPUT -USEROUTPUT" level="default" target="${join(c.dir, "ircd.log")}">`,
    // No resolver on a test box: point DNS at loopback with a short timeout and never look up
    // client hostnames, or every registration waits for reverse-DNS to time out.
    `<dns server="${LOOPBACK}" timeout="1">`,
    // Generous limits: flood and rate-limit tests must be throttled by culture, not the server.
    `<connect name="main" allow="*" timeout="60" pingfreq="120" hardsendq="16M" softsendq="1M" recvq="1M"` +
      ` threshold="100000" commandrate="1000000" fakelag="no" localmax="1000" globalmax="1000" maxchans="100"` +
      ` resolvehostnames="no" useident="no" limit="100000"` +
      (c.password ? ` password="${q(c.password)}" hash="plaintext"` : "") +
      `>`,
    `<options allowhalfop="yes" fixedquit="" fixedpart="">`,
    `<security hidesplits="no" hideserver="" genericoper="no" restrictbannedusers="yes">`,
    `<performance netbuffersize="10240" somaxconn="128" softlimit="1024" clonesonconnect="no" quietbursts="yes">`,
    `<limits maxnick="30" maxchan="60" maxident="10" maxhost="64" maxtopic="330" maxkick="300" maxquit="300" maxaway="200" maxreal="130" maxmodes="20">`,
    `<whowas groupsize="0" maxgroups="0" maxkeep="0">`,
  ];
  const modules = [
    "cap", "ircv3", "ircv3_servertime", "ircv3_msgid", "ircv3_echomessage", "ircv3_ctctags", "ircv3_batch",
    "ircv3_labeledresponse", "services_account", "ircv3_accounttag", "chanhistory",
  ];
  for (const m of modules) lines.push(`<module name="${m}">`);
  lines.push(`<chanhistory maxlines="50" notice="no" bots="yes" prefixmsg="no">`);
  if (c.tlsPort !== null) {
    lines.push(`<module name="ssl_gnutls">`);
    lines.push(`<sslprofile name="tests" provider="gnutls" certfile="${join(c.dir, "cert.pem")}" keyfile="${join(c.dir, "key.pem")}" requestclientcert="no">`);
    lines.push(`<bind address="${LOOPBACK}" port="${c.tlsPort}" type="clients" sslprofile="tests">`);
  }
  if (c.serverPort !== null) {
    lines.push(`<bind address="${q(c.serverHost ?? LOOPBACK)}" port="${c.serverPort}" type="servers">`);
  }
  if (c.link) {
    lines.push(`<module name="spanningtree">`);
    lines.push(
      `<link name="${q(c.link.peerName)}" ipaddr="${q(c.link.peerHost ?? LOOPBACK)}" port="${c.link.peerPort}" allowmask="${q(c.link.peerHost ?? LOOPBACK)}"` +
        ` sendpass="${q(c.link.password)}" recvpass="${q(c.link.password)}" timeout="5">`,
    );
    if (c.link.autoconnect) lines.push(`<autoconnect period="1" server="${q(c.link.peerName)}">`);
  }
  if (c.services) {
    if (!c.link) lines.push(`<module name="spanningtree">`);
    lines.push(`<module name="sasl">`, `<module name="svshold">`);
    lines.push(`<ircv3 accountnotify="yes" awaynotify="yes" extendedjoin="${c.services.extendedJoin === false ? "no" : "yes"}">`);
    lines.push(`<sasl target="${q(c.services.name)}" requiressl="no">`);
    lines.push(
      `<link name="${q(c.services.name)}" ipaddr="${LOOPBACK}" port="${c.serverPort}" allowmask="127.0.0.0/8"` +
        ` sendpass="${q(c.services.password)}" recvpass="${q(c.services.password)}">`,
    );
    lines.push(`<uline server="${q(c.services.name)}" silent="yes">`);
  }
  return lines.join("\n") + "\n";
}

function ngircdConfig(c: ConfigInput): string {
  return [
    "[Global]",
    `Name = ${c.serverName}`,
    "Info = culture test server",
    `Listen = ${LOOPBACK}`,
    `Ports = ${c.port}`,
    `PidFile = ${join(c.dir, "ngircd.pid")}`,
    `MotdPhrase = "culture test server"`,
    ...(c.password ? [`Password = ${c.password}`] : []),
    "[Limits]",
    "MaxConnections = 0",
    "MaxConnectionsIP = 0",
    "MaxJoins = 0",
    // <server>-<name> nicks are longer than RFC 2812's 9.
    "MaxNickLength = 30",
    // No command penalties: flood tests must be throttled by culture, not the server.
    "MaxPenaltyTime = 0",
    "PingTimeout = 120",
    "PongTimeout = 60",
    "[Options]",
    "PAM = no",
    "Ident = no",
    "DNS = no",
    ...(c.tlsPort !== null
      ? ["[SSL]", `CertFile = ${join(c.dir, "cert.pem")}`, `KeyFile = ${join(c.dir, "key.pem")}`, `Ports = ${c.tlsPort}`]
      : []),
    "",
  ].join("\n");
}

/** Where Debian's atheme-services puts its binary and modules. */
export const ATHEME_BINARY = "/usr/bin/atheme-services";
const ATHEME_MODULES = [
  "protocol/inspircd", "backend/opensex", "crypto/pbkdf2v2",
  "nickserv/main", "nickserv/register", "nickserv/identify", "nickserv/info", "nickserv/ghost", "nickserv/regain",
  "nickserv/release", "nickserv/set_core", "nickserv/enforce", "nickserv/set_enforcetime", "nickserv/help",
  "saslserv/main", "saslserv/plain",
];

/** InspIRCd linked with Atheme services: NickServ accounts, SASL, nick enforcement, account-tag. */
export interface InspircdAtheme extends RunningIrcServer {
  /** The services server's name (`services.test`). */
  servicesName: string;
  /** Atheme's output so far. */
  servicesOutput(): string;
  /**
   * Registers `account` with NickServ (as a client using that nick, which then quits) and
   * resolves once NickServ confirmed it. Log in with SASL PLAIN afterwards.
   */
  registerAccount(account: string, password: string): Promise<void>;
}

/**
 * Starts InspIRCd and Atheme linked to it (the setup most public networks run), and resolves
 * once services have synced (CAP LS then offers `sasl`). Needs `apt-get install inspircd
 * atheme-services`. Accounts: {@link InspircdAtheme.registerAccount}.
 */
export async function startInspircdAtheme(opts: { readyTimeoutMs?: number; extendedJoin?: boolean } = {}): Promise<InspircdAtheme> {
  if (!existsSync(ATHEME_BINARY)) {
    throw new Error(`Atheme is not installed (${ATHEME_BINARY} is missing).\nInstall it with: apt-get update && apt-get install -y atheme-services`);
  }
  const servicesName = "services.test";
  const linkPassword = `link${Math.random().toString(36).slice(2, 10)}`;
  const services = { name: servicesName, password: linkPassword, ...(opts.extendedJoin === false ? { extendedJoin: false } : {}) };
  const ircd = await startIrcServer("inspircd", { services, ...(opts.readyTimeoutMs ? { readyTimeoutMs: opts.readyTimeoutMs } : {}) });
  const readyTimeoutMs = opts.readyTimeoutMs ?? 20_000;
  const dir = mkdtempSync(join(tmpdir(), "culture-atheme-"));
  chmodSync(dir, 0o755);
  const asNobody = process.getuid?.() === 0;
  if (asNobody) {
    const { uid, gid } = nobodyIds();
    chownSync(dir, uid, gid);
  }
  const conf = join(dir, "atheme.conf");
  writeFileSync(conf, athemeConfig({ servicesName, uplink: ircd.serverName, port: ircd.serverPort!, password: linkPassword }), { mode: 0o644 });
  const args = ["-n", "-c", conf, "-D", dir, "-p", join(dir, "atheme.pid")];
  const argv = asNobody ? (["runuser", ["-u", "nobody", "--", ATHEME_BINARY, ...args]] as const) : ([ATHEME_BINARY, args] as const);
  const proc = spawn(argv[0], [...argv[1]], { cwd: dir, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  live.add(proc);
  installExitHook();
  proc.once("exit", () => live.delete(proc));
  let output = "";
  const synced = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString("utf8");
      if (output.length > OUTPUT_LIMIT) output = output.slice(-OUTPUT_LIMIT);
      if (output.includes("finished synching with uplink")) resolve();
    };
    proc.stdout?.on("data", onData);
    proc.stderr?.on("data", onData);
    proc.once("exit", (code) => reject(new Error(`atheme-services exited with code ${code}`)));
    setTimeout(() => reject(new Error(`not synced with ${ircd.serverName} within ${readyTimeoutMs} ms`)), readyTimeoutMs).unref();
  });
  try {
    await synced;
  } catch (err) {
    await signalAndWait(proc, "SIGKILL", 5_000);
    await ircd.stop();
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`Atheme did not link to InspIRCd: ${(err as Error).message}\nconfig: ${conf}\n--- atheme output ---\n${output.trim() || "(none)"}`);
  }
  const stopIrcd = ircd.stop.bind(ircd);
  let registrations = 0;
  return Object.assign(ircd, {
    servicesName,
    servicesOutput: () => output,
    async registerAccount(account: string, password: string): Promise<void> {
      const c = await connectRawClient(ircd.port, account);
      try {
        c.send(`PRIVMSG NickServ :REGISTER ${password} ${account.replace(/[^A-Za-z0-9]/g, "")}${registrations++}@example.test`);
        await c.waitFor((_l, p) => p.command === "NOTICE" && p.nick === "NickServ" && /registered/i.test(p.params[1] ?? ""), 10_000);
      } finally {
        await c.close("registered");
      }
    },
    async stop(): Promise<void> {
      await signalAndWait(proc, "SIGTERM", 5_000);
      rmSync(dir, { recursive: true, force: true });
      await stopIrcd();
    },
  });
}

function athemeConfig(c: { servicesName: string; uplink: string; port: number; password: string }): string {
  const modules = ATHEME_MODULES.map((m) => `loadmodule "modules/${m}";`).join("\n");
  // No debug log level: every user would get a debug-mode notice. enforce_delay=1: an
  // unidentified user of a registered nick is renamed after a second.
  return `${modules}
serverinfo {
  name = "${c.servicesName}"; desc = "culture test services"; numeric = "00A"; recontime = 1;
  netname = "culturetest"; hidehostsuffix = "users.test"; adminname = "culture"; adminemail = "culture@localhost";
  registeremail = "noreply@localhost"; loglevel = { error; }; maxlogins = 50; maxusers = 1000; mdlimit = 30;
  emaillimit = 10; emailtime = 300; auth = none; casemapping = rfc1459;
};
uplink "${c.uplink}" { host = "${LOOPBACK}"; port = ${c.port}; send_password = "${c.password}"; receive_password = "${c.password}"; };
nickserv { nick = "NickServ"; user = "NickServ"; host = "${c.servicesName}"; real = "Nickname Services"; maxnicks = 5; expire = 30; enforce_delay = 1; };
saslserv { nick = "SaslServ"; user = "SaslServ"; host = "${c.servicesName}"; real = "SASL Authentication Agent"; };
general {
  uflags = { enforce; }; cflags = { verbose; }; flood_msgs = 1000; flood_time = 10; ratelimit_uses = 1000; ratelimit_period = 60;
  kline_time = 7; commit_interval = 5; default_clone_allowed = 1000; default_clone_warn = 1000; uplink_sendq_limit = 1048576;
  language = "en"; immune_level = immune;
};
`;
}
