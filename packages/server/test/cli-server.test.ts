// `culture server start|status|stop` and the `culture-ircd` binary, as subprocesses of the
// built CLI with CULTURE_HOME in a temp dir (build first: `npm run build`).
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { RawClient } from "./helpers/raw-client.js";

const CLI = fileURLToPath(new URL("../../cli/dist/main.js", import.meta.url));
const IRCD = fileURLToPath(new URL("../dist/main.js", import.meta.url));
let home: string;
const children: ChildProcess[] = [];
const open: RawClient[] = [];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function culture(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, CULTURE_HOME: home } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** True while `pid` runs; a zombie (exited, waiting for init to reap it) has stopped. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat[stat.lastIndexOf(")") + 2] !== "Z";
  } catch {
    return false;
  }
}

const pidFile = (): string => join(home, "pids", "server.pid");

beforeAll(() => {
  expect(existsSync(CLI), "build first: npm run build").toBe(true);
  expect(existsSync(IRCD), "build first: npm run build").toBe(true);
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  // Never leave a server behind, even when a test failed half-way.
  if (home && existsSync(pidFile())) await culture("server", "stop", "--timeout", "2");
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  if (home) rmSync(home, { recursive: true, force: true });
});
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});

function newHome(): void {
  home = mkdtempSync(join(tmpdir(), "culture-home-"));
}

// Each CLI run starts a Node process (~1 s on a loaded 2-core machine): the default 5 s is too short.
const SLOW = { timeout: 60_000 };

describe("culture server", SLOW, () => {
  it("starts detached, reports status with a client count, refuses a second start, and stops", async () => {
    newHome();
    const port = await freePort();
    const start = await culture("server", "start", "--port", String(port));
    expect(start.stderr).toBe("");
    expect(start.code).toBe(0);
    const m = new RegExp(`^IRC server listening on 127\\.0\\.0\\.1:${port} \\(pid (\\d+)\\)\\n$`).exec(start.stdout);
    expect(m, start.stdout).not.toBeNull();
    const pid = Number(m![1]);
    expect(readFileSync(pidFile(), "utf8")).toBe(`${pid}\n127.0.0.1:${port}\n`);
    // Detached: its own process group, stdin closed.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
    expect(pgrp).toBe(pid);
    expect(readFileSync(join(home, "logs", "server.log"), "utf8")).toContain(`culture-ircd listening on 127.0.0.1:${port} (pid ${pid})`);
    expect(existsSync(join(home, "server", "history"))).toBe(true);

    // Accounts are required: add one (its password from a file), log in with PASS account:password.
    writeFileSync(join(home, "pw"), "hunter2-long-password\n");
    const added = await culture("server", "user", "add", "someone", "--password-file", join(home, "pw"));
    expect(added.code, added.stderr).toBe(0);
    const client = await RawClient.register(port, "someone", { pass: "someone:hunter2-long-password" });
    open.push(client);
    // culture send logs in by itself (generated credentials of <server>-operator), as agents do.
    writeFileSync(join(home, "agents.yaml"), `server: { name: spark, host: localhost, port: ${port} }\nagents: []\n`);
    const sent = await culture("--config", join(home, "agents.yaml"), "send", "someone", "hello from the CLI");
    expect(sent, sent.stderr).toMatchObject({ code: 0, stdout: "Sent to someone as spark-operator (1 line)\n" });
    expect(await client.waitFor(/PRIVMSG/)).toMatch(/^:spark-operator!\S+ PRIVMSG someone :hello from the CLI$/);
    expect((await culture("server", "user", "list", "--json")).stdout).toContain('"name":"spark-operator"');
    expect(await culture("server", "status")).toEqual({ code: 0, stdout: `IRC server running on 127.0.0.1:${port} (pid ${pid}, 1 client)\n`, stderr: "" });
    const json = await culture("server", "status", "--json");
    expect(JSON.parse(json.stdout)).toEqual({ running: true, pid, address: `127.0.0.1:${port}`, clients: 1 });

    const again = await culture("server", "start", "--port", String(port));
    expect(again).toEqual({ code: 0, stdout: `IRC server already running on 127.0.0.1:${port} (pid ${pid})\n`, stderr: "" });

    const stop = await culture("server", "stop");
    // "someone" is still connected: stop warns about it (on stderr) and stops anyway.
    expect(stop).toMatchObject({ code: 0, stdout: `IRC server stopped (pid ${pid})\n` });
    expect(stop.stderr).toContain("warning: 1 IRC client is connected to the server");
    expect(alive(pid)).toBe(false);
    expect(existsSync(pidFile())).toBe(false);
    expect(await client.waitFor(/^ERROR/)).toBe("ERROR :Closing Link: 127.0.0.1 (Server shutting down)");

    expect(await culture("server", "stop")).toEqual({ code: 0, stdout: "IRC server is not running\n", stderr: "" });
    expect(await culture("server", "status")).toEqual({ code: 0, stdout: "IRC server stopped\n", stderr: "" });
  });

  it("without --port, listens where agents.yaml expects the server (server.port of a local host)", async () => {
    newHome();
    const port = await freePort();
    writeFileSync(join(home, "agents.yaml"), `server: { host: localhost, port: ${port} }\nagents: []\n`);
    const start = await culture("--config", join(home, "agents.yaml"), "server", "start");
    expect(start.stderr).toBe("");
    expect(start.stdout).toMatch(new RegExp(`^IRC server listening on 127\\.0\\.0\\.1:${port} \\(pid \\d+\\)\\n$`));
    expect((await culture("server", "stop")).code).toBe(0);
  });

  it("reports the server's own error when the port is taken, and leaves no PID file", async () => {
    newHome();
    const blocker = createServer();
    const port = await new Promise<number>((resolve) => blocker.listen(0, "127.0.0.1", () => resolve((blocker.address() as { port: number }).port)));
    try {
      const start = await culture("server", "start", "--port", String(port));
      expect(start.code).toBe(1);
      expect(start.stdout).toBe("");
      expect(start.stderr).toContain(`The IRC server did not start on 127.0.0.1:${port}: it exited with code 1.`);
      expect(start.stderr).toContain("the port is already in use");
      expect(start.stderr).toContain(`Its log is ${join(home, "logs", "server.log")}`);
      expect(existsSync(pidFile())).toBe(false);
    } finally {
      blocker.close();
    }
  });

  it("never signals a process that is not our server, and replaces its stale PID file on start", async () => {
    newHome();
    const stranger = spawn("sleep", ["30"], { stdio: "ignore" });
    children.push(stranger);
    mkdirSync(join(home, "pids"), { recursive: true });
    writeFileSync(pidFile(), `${stranger.pid}\n127.0.0.1:1\n`);
    expect(await culture("server", "status")).toMatchObject({ code: 0, stdout: "IRC server stopped\n" });
    const stop = await culture("server", "stop");
    expect(stop.stdout).toBe(`IRC server is not running (pid ${stranger.pid} from the stale PID file is another program; left it alone)\n`);
    expect(alive(stranger.pid!)).toBe(true);

    writeFileSync(pidFile(), `${stranger.pid}\n127.0.0.1:1\n`);
    const port = await freePort();
    const start = await culture("server", "start", "--port", String(port));
    expect(start.stdout).toMatch(/^IRC server listening on /);
    expect(readFileSync(pidFile(), "utf8").split("\n")[0]).not.toBe(String(stranger.pid));
    expect(alive(stranger.pid!)).toBe(true);
  });

  it("kills a server that ignores SIGTERM after the grace period", async () => {
    newHome();
    // Looks like our server (its command line names the entry script) but ignores SIGTERM.
    const stubborn = spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)", IRCD], { stdio: "ignore" });
    children.push(stubborn);
    await new Promise((r) => stubborn.once("spawn", r));
    mkdirSync(join(home, "pids"), { recursive: true });
    writeFileSync(pidFile(), `${stubborn.pid}\n127.0.0.1:1\n`);
    const exited = new Promise((r) => stubborn.once("exit", (_code, signal) => r(signal)));
    const stop = await culture("server", "stop", "--timeout", "0.3");
    expect(stop).toEqual({ code: 0, stdout: `IRC server stopped (pid ${stubborn.pid}, killed after the grace period)\n`, stderr: "" });
    expect(await exited).toBe("SIGKILL");
    expect(existsSync(pidFile())).toBe(false);
  });

  it("passes --accounts to the server: SASL PLAIN logs in with them", async () => {
    newHome();
    const accounts = join(home, "accounts.json");
    writeFileSync(accounts, JSON.stringify({ agent: "s3cret" }));
    const port = await freePort();
    expect((await culture("server", "start", "--port", String(port), "--accounts", accounts)).code).toBe(0);
    const c = await RawClient.connect(port);
    open.push(c);
    c.send("CAP REQ :sasl");
    c.send("AUTHENTICATE PLAIN");
    expect(await c.waitFor(/^AUTHENTICATE/)).toBe("AUTHENTICATE +");
    c.send(`AUTHENTICATE ${Buffer.from("\0agent\0s3cret").toString("base64")}`);
    expect(await c.waitFor(/ 90[34] /)).toBe(":culture.local 903 * :SASL authentication successful");
  });

  it("rejects a bad port as a usage error (exit 2)", async () => {
    newHome();
    const run = await culture("server", "start", "--port", "http");
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('--port must be a number from 0 to 65535, got "http"\n');
  });
});

describe("culture-ircd", SLOW, () => {
  it("prints a ready line, writes its PID file, and on SIGTERM closes cleanly and removes it", async () => {
    newHome();
    const pid = join(home, "ircd.pid");
    const child = spawn(process.execPath, [IRCD, "--port", "0", "--no-state", "--pid-file", pid], { stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let out = "";
    const port = await new Promise<number>((resolve) => {
      child.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        const m = /^culture-ircd listening on 127\.0\.0\.1:(\d+) \(pid (\d+)\)\n/.exec(out);
        if (m) resolve(Number(m[1]));
      });
    });
    expect(readFileSync(pid, "utf8")).toBe(`${child.pid}\n127.0.0.1:${port}\n`);
    const c = await RawClient.register(port, "lastone");
    open.push(c);
    const exit = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    child.kill("SIGTERM");
    expect(await c.waitFor(/^ERROR/)).toBe("ERROR :Closing Link: 127.0.0.1 (Server shutting down)");
    expect(await exit).toBe(0);
    expect(existsSync(pid)).toBe(false);
  });

  it("explains bad arguments (exit 2) and --help (exit 0)", async () => {
    const run = (args: string[]) =>
      new Promise<Run>((resolve) => execFile(process.execPath, [IRCD, ...args], (e, stdout, stderr) => resolve({ code: e ? Number(e.code) : 0, stdout, stderr })));
    const bad = await run(["--port", "99999"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--port must be a number from 0 to 65535, got "99999"');
    const unknown = await run(["--frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Usage: culture-ircd");
    const help = await run(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--state-dir DIR");
  });
});
