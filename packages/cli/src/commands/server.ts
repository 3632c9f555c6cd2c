/**
 * `culture server start|stop|status`: the embedded IRC server (@culture/server) as a
 * background process. `start` runs the server's own `culture-ircd` entry as a detached child
 * (own process group, stdin closed, output appended to `$CULTURE_HOME/logs/server.log`); the
 * child writes `$CULTURE_HOME/pids/server.pid` once it listens, and `start` returns only when
 * the port accepts connections or with the child's own error. `stop` signals only a process
 * whose command line names that entry script: a PID file can outlive its process, and the
 * pid can be reused by an unrelated program.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { connect } from "node:net";
import { dirname, join, resolve } from "node:path";
import type { Command } from "commander";
import { CultureError, ensurePrivateDir, isOurProcess, isProcessAlive, loadConfig, localCredentials, openPrivateAppend, readPidFile, serverStartFailed, usageError } from "@culture/core";
import { registerServerUserCommand } from "./server-user.js";
import { registerChannels } from "../channel-owners.js";
import { operatorNick } from "./send.js";
import { configOption } from "../options.js";
import { assertOwnerShell } from "../control.js";
import { cultureHome, serverDir } from "@culture/core/paths";

/** `$CULTURE_HOME/pids/server.pid`: `<pid>\n<host>:<port>\n`, written by the server. */
export function serverPidPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(cultureHome(env), "pids", "server.pid");
}

/** `$CULTURE_HOME/logs/server.log`. */
export function serverLogPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(cultureHome(env), "logs", "server.log");
}

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "::1"]);

/**
 * The port agents.yaml expects the local server on: `server.port` when a config is found and its
 * `server.host` is this machine, else 6667. A missing or broken config is not this command's
 * business (`culture config check` is): it just means the default.
 */
async function configuredLocalPort(configPath: string | undefined): Promise<number> {
  return (await localServerSettings(configPath)).port;
}

/**
 * What the config says about the local server: its port (as above), whether it is open to
 * anonymous clients (`server.open`), and the operator account `culture send` uses.
 */
async function localServerSettings(configPath: string | undefined): Promise<{ port: number; open: boolean; operator: string }> {
  try {
    const config = await loadConfig(configPath ? { configPath } : {});
    const local = LOCAL_HOSTS.has(config.server.host);
    return { port: local ? config.server.port : 6667, open: local && config.server.open === true, operator: operatorNick(config.server) };
  } catch {
    return { port: 6667, open: false, operator: "culture-operator" };
  }
}

/**
 * Registers the config's agent channels with the server (channel-owners.ts) before it starts.
 * No config, or a broken one, registers nothing (the server then runs plain IRC rules).
 */
async function registerConfigChannels(configPath: string | undefined): Promise<void> {
  let config;
  try {
    config = await loadConfig(configPath ? { configPath } : {});
  } catch {
    return;
  }
  registerChannels(config);
}

/** Registers `culture server` and its subcommands. */
export function registerServerCommand(program: Command): void {
  const server = program.command("server").description("run culture's embedded IRC server (for one machine)");
  server
    .command("start")
    .description("start the IRC server in the background (or --foreground)")
    .option("--port <port>", "TCP port (0 picks a free one; default: server.port of the config when it points at this machine, else 6667)")
    .option("--host <host>", "interface to bind (0.0.0.0 for every interface)", "127.0.0.1")
    .option("--accounts <file>", 'extra SASL PLAIN accounts with plain passwords, a JSON file {"account": "password"} (tests; use culture server user add)')
    .option("--open", "let clients connect without an account (anonymous); also server.open: true in agents.yaml")
    .option("--foreground", "run in this terminal until Ctrl-C")
    .option("--timeout <seconds>", "how long to wait for the server to listen", "15")
    .action(async (opts: { port?: string; host: string; accounts?: string; open?: boolean; foreground?: boolean; timeout: string }, command: Command) => {
      assertOwnerShell("culture server start");
      const settings = await localServerSettings(configOption(command));
      await registerConfigChannels(configOption(command));
      const port = opts.port === undefined ? settings.port : parsePort(opts.port);
      const timeoutMs = parseSeconds(opts.timeout, "--timeout") * 1000;
      const extra = opts.accounts ? ["--accounts", resolve(opts.accounts)] : [];
      if (opts.open || settings.open) {
        extra.push("--open");
        process.stderr.write("warning: the IRC server is open: anyone who can reach the port can talk to the agents without an account\n");
      }
      if (opts.foreground) {
        process.exitCode = await runForeground(port, opts.host, extra);
        return;
      }
      process.stdout.write(`${await startServerProcess({ port, host: opts.host, timeoutMs, extra })}\n`);
    });
  server
    .command("stop")
    .description("stop the IRC server (SIGTERM, then SIGKILL after the grace period)")
    .option("--timeout <seconds>", "grace period before SIGKILL", "10")
    .action(async (opts: { timeout: string }) => {
      assertOwnerShell("culture server stop");
      const graceMs = parseSeconds(opts.timeout, "--timeout") * 1000;
      const before = await serverStatus();
      if (before.running && before.clients) {
        process.stderr.write(
          `warning: ${before.clients} IRC client${before.clients === 1 ? " is" : "s are"} connected to the server (agents among them lose IRC and keep retrying).\n` +
            `To stop the agents too: culture stop --all   (culture status lists them)\n`,
        );
      }
      process.stdout.write(`${await stopServerProcess({ graceMs })}\n`);
    });
  server
    .command("status")
    .description("is the IRC server running? (pid, address, connected clients)")
    .option("--json", "print a JSON object")
    .action(async (opts: { json?: boolean }) => {
      const status = await serverStatus();
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(status)}\n`);
      } else if (!status.running) {
        process.stdout.write("IRC server stopped\n");
      } else {
        const clients = status.clients === null ? "not answering" : `${status.clients} client${status.clients === 1 ? "" : "s"}`;
        process.stdout.write(`IRC server running on ${status.address} (pid ${status.pid}, ${clients})\n`);
      }
    });
  registerServerUserCommand(server);
}

/** What `culture server status --json` prints. */
export interface ServerStatus {
  running: boolean;
  pid: number | null;
  /** `host:port` as the server reported it. */
  address: string | null;
  /** Registered IRC clients (not counting the probe), or null when the server did not answer. */
  clients: number | null;
}

/** Starts the server process; resolves with the line to print. */
async function startServerProcess(opts: { port: number; host: string; timeoutMs: number; extra: string[] }): Promise<string> {
  const running = readLiveServer();
  if (running) return `IRC server already running on ${running.address} (pid ${running.pid})`;
  const pidPath = serverPidPath();
  const logPath = serverLogPath();
  rmSync(pidPath, { force: true });
  ensurePrivateDir(dirname(pidPath));
  ensurePrivateDir(serverDir());
  const logStart = existsSync(logPath) ? statSync(logPath).size : 0;
  // The server's log names every client and what went wrong with it: 0600 in a 0700 folder.
  const log = openPrivateAppend(logPath);
  const entry = serverEntry();
  const child = spawn(
    process.execPath,
    [entry, "--port", String(opts.port), "--host", opts.host, "--state-dir", serverDir(), "--pid-file", pidPath, ...opts.extra],
    { detached: true, stdio: ["ignore", log, log], env: process.env },
  );
  closeSync(log);
  let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  let spawnError: Error | null = null;
  child.once("exit", (code, signal) => (exited = { code, signal }));
  child.once("error", (err) => (spawnError = err));
  child.unref();

  const wanted = `${opts.host}:${opts.port}`;
  const deadline = Date.now() + opts.timeoutMs;
  while (Date.now() < deadline) {
    if (spawnError) throw serverStartFailed(wanted, logPath, (spawnError as Error).message);
    if (exited) {
      const { code, signal } = exited as { code: number | null; signal: NodeJS.Signals | null };
      const why = signal ? `it was killed by ${signal}` : `it exited with code ${code}`;
      throw serverStartFailed(wanted, logPath, `${why}.\n${logTail(logPath, logStart)}`);
    }
    const info = readServerPidFile(pidPath);
    if (info && info.pid === child.pid && info.address && (await canConnect(info.address))) {
      return `IRC server listening on ${info.address} (pid ${info.pid})`;
    }
    await sleep(50);
  }
  if (child.pid !== undefined) killQuietly(child.pid, "SIGKILL");
  throw serverStartFailed(wanted, logPath, `it was not accepting connections after ${opts.timeoutMs / 1000} s (stopped it).\n${logTail(logPath, logStart)}`);
}

/** Stops the server process; resolves with the line to print. */
async function stopServerProcess(opts: { graceMs: number }): Promise<string> {
  const pidPath = serverPidPath();
  const info = readServerPidFile(pidPath);
  if (!info) return "IRC server is not running";
  if (!isProcessAlive(info.pid)) {
    rmSync(pidPath, { force: true });
    return `IRC server is not running (removed the stale PID file for pid ${info.pid})`;
  }
  if (!isOurServer(info.pid)) {
    rmSync(pidPath, { force: true });
    return `IRC server is not running (pid ${info.pid} from the stale PID file is another program; left it alone)`;
  }
  process.kill(info.pid, "SIGTERM");
  let forced = false;
  if (!(await waitForExit(info.pid, opts.graceMs))) {
    forced = true;
    killQuietly(info.pid, "SIGKILL");
    await waitForExit(info.pid, 5000);
  }
  rmSync(pidPath, { force: true });
  return `IRC server stopped (pid ${info.pid}${forced ? ", killed after the grace period" : ""})`;
}

/** The server's state, asking it for its client count over IRC. */
async function serverStatus(): Promise<ServerStatus> {
  const live = readLiveServer();
  if (!live) return { running: false, pid: null, address: null, clients: null };
  const login = await probeLogin();
  return { running: true, pid: live.pid, address: live.address, clients: await countClients(live.address, login) };
}

/** The PID file's server if it is alive and ours. */
function readLiveServer(): { pid: number; address: string } | null {
  const info = readServerPidFile(serverPidPath());
  if (!info || !isProcessAlive(info.pid) || !isOurServer(info.pid)) return null;
  return { pid: info.pid, address: info.address ?? "unknown" };
}

/** Runs culture-ircd attached to this terminal; resolves with its exit code. */
function runForeground(port: number, host: string, extra: string[]): Promise<number> {
  const child = spawn(
    process.execPath,
    [serverEntry(), "--port", String(port), "--host", host, "--state-dir", serverDir(), "--pid-file", serverPidPath(), ...extra],
    { stdio: "inherit" },
  );
  const forward = (signal: NodeJS.Signals) => () => killQuietly(child.pid ?? 0, signal);
  process.on("SIGINT", forward("SIGINT"));
  process.on("SIGTERM", forward("SIGTERM"));
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

/** The absolute path of @culture/server's `culture-ircd` script (what `stop` looks for in /proc). */
function serverEntry(): string {
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve("@culture/server/package.json");
  const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as { bin?: Record<string, string> };
  const bin = pkg.bin?.["culture-ircd"];
  if (!bin) throw new CultureError("E_SERVER_START_FAILED", `@culture/server at ${dirname(pkgPath)} has no culture-ircd binary; reinstall culture.`);
  return join(dirname(pkgPath), bin);
}

/** True when the process is alive and its command line runs our server entry script. */
function isOurServer(pid: number): boolean {
  return isOurProcess(pid, [serverEntry()]);
}

/** The server's PID file: its pid, and the `<host>:<port>` it listens on (the second line). */
function readServerPidFile(path: string): { pid: number; address: string | null } | null {
  const info = readPidFile(path);
  return info && { pid: info.pid, address: info.label?.includes(":") ? info.label : null };
}

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!isProcessAlive(pid)) return true;
    await sleep(25);
  }
  return !isProcessAlive(pid);
}

function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    if (pid > 0) process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

/** `host:port` -> a connectable host (a wildcard bind is reached on loopback). */
function splitAddress(address: string): { host: string; port: number } {
  const i = address.lastIndexOf(":");
  let host = address.slice(0, i);
  if (host === "0.0.0.0" || host === "") host = "127.0.0.1";
  if (host === "::" || host === "[::]") host = "::1";
  return { host, port: Number(address.slice(i + 1)) };
}

function canConnect(address: string): Promise<boolean> {
  const { host, port } = splitAddress(address);
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(1000);
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
    socket.once("timeout", () => done(false));
  });
}

/**
 * Registers a throw-away IRC client and reads RPL_LOCALUSERS (265) from the welcome burst:
 * the count includes the probe itself. Null if the server does not answer within 3 s.
 */
function countClients(address: string, login: string | null): Promise<number | null> {
  const { host, port } = splitAddress(address);
  const nick = `culture-status-${process.pid % 100000}`;
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let buffer = "";
    let result: number | null = null;
    const finish = (): void => {
      clearTimeout(timer);
      socket.end("QUIT :status probe\r\n");
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(finish, 3000);
    socket.once("connect", () => socket.write(`${login ? `PASS :${login}\r\n` : ""}NICK ${nick}\r\nUSER status 0 * :culture server status\r\n`));
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      let nl: number;
      while ((nl = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        const m = / 265 \S+ (\d+) /.exec(line);
        if (m) {
          result = Math.max(0, Number(m[1]) - 1);
          finish();
          return;
        }
        if (/ 433 /.test(line)) socket.write(`NICK ${nick}-${Math.floor(Math.random() * 1000)}\r\n`);
      }
    });
    socket.once("error", finish);
  });
}

/** `account:password` of the local operator (the embedded server requires an account), or null. */
async function probeLogin(): Promise<string | null> {
  try {
    const creds = await localCredentials((await localServerSettings(undefined)).operator, "human");
    return `${creds.account}:${creds.password}`;
  } catch {
    return null;
  }
}

function logTail(path: string, from: number): string {
  try {
    const text = readFileSync(path, "utf8").slice(from).trim();
    if (!text) return "The server wrote nothing to its log.";
    return `Last lines of the log:\n${text.split("\n").slice(-8).map((l) => `  ${l}`).join("\n")}`;
  } catch {
    return "";
  }
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw usageError(`--port must be a number from 0 to 65535, got "${text}"`);
  return port;
}

function parseSeconds(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw usageError(`${flag} must be a positive number of seconds, got "${text}"`);
  return n;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
