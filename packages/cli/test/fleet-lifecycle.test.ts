/**
 * Running a fleet end to end: the built `culture` binary starts real detached daemons (the echo
 * backend's real agent processes behind them) against the embedded IRC server, and status,
 * pause, resume, send and stop act on them through their sockets and pids. Build first
 * (`npm run build`).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isProcessAlive, processStat } from "@culture/core";
import { connectRawClient, freePort, parseRawLine } from "@culture/core/testing";
import { startServer, type IrcServer } from "@culture/server";
import { eventually, filesIn, makeFleet, processesMentioning, startedPid, type Fleet } from "./fleet-harness.js";

const NICKS = ["spark-a", "spark-b", "spark-c"];

let server: IrcServer;
const fleets: Fleet[] = [];

beforeAll(async () => {
  server = await startServer({ port: 0, stateDir: null });
});
afterAll(async () => {
  await server?.close();
});
afterEach(async () => {
  for (const f of fleets.splice(0)) await f.cleanup();
});

function fleet(nicks = NICKS, port = server.port): Fleet {
  const f = makeFleet(port, nicks);
  fleets.push(f);
  return f;
}

interface StatusRow {
  nick: string;
  state: string;
  pid: number | null;
  backend: string;
  [key: string]: unknown;
}

async function statusJson(f: Fleet): Promise<StatusRow[]> {
  const run = await f.culture(["status", "--json"]);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as StatusRow[];
}

describe("culture start / status / pause / resume / send / stop", () => {
  it("start --all runs three detached daemons that outlive the CLI; status, pause/resume and send reach them; stop --all leaves nothing", async () => {
    const f = fleet();
    const start = await f.culture(["start", "--all"]);
    expect(start.stderr).toBe("");
    expect(start.code).toBe(0);
    const pids = NICKS.map((n) => startedPid(start.stdout, n));
    expect(new Set(pids).size).toBe(3);

    // The CLI that started them has exited; each daemon lives on in its own process group,
    // stdin closed, its output going to its log file with timestamps, its PID file written by itself.
    expect(isProcessAlive(start.pid)).toBe(false);
    for (const [i, nick] of NICKS.entries()) {
      const pid = pids[i]!;
      expect(isProcessAlive(pid)).toBe(true);
      expect(processStat(pid)?.pgid).toBe(pid);
      expect(readlinkSync(`/proc/${pid}/fd/0`)).toBe("/dev/null");
      expect(readlinkSync(`/proc/${pid}/fd/2`)).toBe(join(f.home, "logs", `agent-${nick}.log`));
      expect(readFileSync(join(f.home, "pids", `agent-${nick}.pid`), "utf8").split("\n")[0]).toBe(String(pid));
      const log = readFileSync(join(f.home, "logs", `agent-${nick}.log`), "utf8");
      expect(log).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z INFO \\[${nick}\\] Started ${nick} \\(pid ${pid}\\)$`, "m"));
    }
    expect(filesIn(f.home, "run").sort()).toEqual(NICKS.map((n) => `culture-${n}.sock`));

    // status --json: one array, nick/state/pid/backend first, then the daemon's status fields.
    const rows = await statusJson(f);
    expect(rows.map((r) => r.nick)).toEqual(NICKS);
    for (const [i, row] of rows.entries()) {
      expect(Object.keys(row).slice(0, 4)).toEqual(["nick", "state", "pid", "backend"]);
      expect(row).toMatchObject({ nick: NICKS[i], state: "running", pid: pids[i], backend: "echo", connected: true, activity: "idle", paused: false });
    }

    // Starting one that runs says so and succeeds.
    const again = await f.culture(["start", "spark-a"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`spark-a is already running (pid ${pids[0]})\n`);

    // pause / resume round trip.
    const pause = await f.culture(["pause", "spark-b"]);
    expect(pause.code).toBe(0);
    expect(pause.stdout).toBe("Paused spark-b\n");
    expect((await statusJson(f)).map((r) => r.state)).toEqual(["running", "paused", "running"]);
    const table = await f.culture(["status"]);
    expect(table.stdout).toMatch(/^NICK\s+STATE\s+IRC\s+PID\s+BACKEND\s+ACTIVITY\s+UPTIME\s+TODAY\s+CTX\s+DESCRIPTION$/m);
    expect(table.stdout).toMatch(new RegExp(`^spark-b\\s+paused\\s+connected\\s+${pids[1]}\\s+echo\\s+paused\\s`, "m"));
    const resume = await f.culture(["resume", "--all"]);
    expect(resume.stdout).toBe("Resumed spark-a\nResumed spark-b\nResumed spark-c\n");
    expect((await statusJson(f)).map((r) => r.state)).toEqual(["running", "running", "running"]);

    // send: a human in #test sees the operator's line, and the mentioned agent answers it.
    const alice = await connectRawClient(server.port, "alice");
    try {
      await alice.join("#test");
      const sent = await f.culture(["send", "#test", "@spark-c", "how", "are", "you?"]);
      expect(sent.stderr).toBe("");
      expect(sent.stdout).toBe("Sent to #test as spark-operator (1 line)\n");
      const isPrivmsg = (from: string, text: string) => (line: string) => {
        const p = parseRawLine(line);
        return p.command === "PRIVMSG" && p.nick === from && p.params[0] === "#test" && p.params[1] === text;
      };
      await alice.waitFor(isPrivmsg("spark-operator", "@spark-c how are you?"));
      await alice.waitFor(isPrivmsg("spark-c", "I heard: [IRC @mention in #test] <spark-operator> @spark-c how are you?"));
      // culture logs shows the conversation: the prompt the agent received and its reply.
      const logged = await eventually(async () => {
        const r = await f.culture(["logs", "spark-c"]);
        return r.stdout.includes("reply after") ? r.stdout : null;
      }, "the reply in spark-c's log");
      expect(logged).toContain("prompt (mention in #test from spark-operator): [IRC @mention in #test] <spark-operator> @spark-c how are you?");
      expect(logged).toMatch(/reply after \d+\.\ds[^:]*: I heard: \[IRC @mention in #test\] <spark-operator> @spark-c how are you\?/);
    } finally {
      await alice.close();
    }

    const stop = await f.culture(["stop", "--all"]);
    expect(stop.stderr).toBe("");
    expect(stop.code).toBe(0);
    expect(stop.stdout).toBe(NICKS.map((n, i) => `Stopped ${n} (pid ${pids[i]})\n`).join(""));
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false);
    expect(filesIn(f.home, "pids")).toEqual([]);
    expect(filesIn(f.home, "run")).toEqual([]);
    expect(processesMentioning(f.home)).toEqual([]);
    expect((await statusJson(f)).map((r) => [r.state, r.pid])).toEqual(NICKS.map(() => ["stopped", null]));

    // Stopping what is not running says so and succeeds.
    const twice = await f.culture(["stop", "spark-a"]);
    expect(twice.code).toBe(0);
    expect(twice.stdout).toBe("spark-a is not running\n");
  });

  it("shows a daemon killed with SIGKILL as stopped, and cleans its stale PID and socket files on the next start", async () => {
    const f = fleet(["spark-a"]);
    const first = startedPid((await f.culture(["start", "spark-a"])).stdout, "spark-a");
    process.kill(-first, "SIGKILL"); // the daemon and its agent: nothing gets to clean up
    await eventually(() => !isProcessAlive(first), "the killed daemon to be gone");
    const pidFile = join(f.home, "pids", "agent-spark-a.pid");
    const socket = join(f.home, "run", "culture-spark-a.sock");
    expect(existsSync(pidFile) && existsSync(socket)).toBe(true);

    expect((await statusJson(f))[0]).toMatchObject({ nick: "spark-a", state: "stopped", pid: null });

    const start = await f.culture(["start", "spark-a"]);
    expect(start.code).toBe(0);
    expect(start.stdout).toContain(`spark-a: removed a stale PID file (pid ${first} is not running) and socket\n`);
    const second = startedPid(start.stdout, "spark-a");
    expect(second).not.toBe(first);
    expect((await statusJson(f))[0]).toMatchObject({ state: "running", pid: second });
    expect((await f.culture(["stop", "spark-a"])).stdout).toBe(`Stopped spark-a (pid ${second})\n`);
  });

  it("says that a daemon killed while it starts exited before it was ready, though its agent lives on", async () => {
    // The daemon reports on fd 3 (ready-report.ts); `culture start` waits for that channel's end
    // before it judges an exit. Were the agent to hold fd 3 too, the channel would stay open and
    // this start would wait out its whole ready timeout, then say something else.
    const f = fleet(["spark-a"]);
    const hang = join(f.home, "never-answers.cjs");
    writeFileSync(hang, "setInterval(() => {}, 1000);\n"); // an ACP agent that never answers initialize
    f.writeConfig([{ nick: "spark-a", agent: "acp", acp_command: [process.execPath, hang], directory: f.home, channels: ["#test"] }]);
    const start = f.culture(["start", "spark-a"]);
    const daemon = (await eventually(() => processesMentioning(f.configPath).find((p) => readFileSync(`/proc/${p}/cmdline`, "utf8").includes("--foreground")), "the daemon")) as number;
    const agent = (await eventually(() => processesMentioning(hang)[0], "its agent")) as number;
    f.pids.add(daemon).add(agent);
    process.kill(daemon, "SIGKILL"); // the daemon alone: its agent keeps running
    const run = await start;
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("spark-a: the daemon exited (signal SIGKILL) before it was ready");
    expect(isProcessAlive(agent)).toBe(true);
  });

  it("never signals an unrelated process that a PID file points at", async () => {
    const f = fleet(["spark-a"]);
    const sleeper = spawn("sleep", ["30"], { stdio: "ignore" });
    const sleepPid = sleeper.pid!;
    f.pids.add(sleepPid);
    const pidFile = join(f.home, "pids", "agent-spark-a.pid");
    const plant = () => writeFileSync(pidFile, `${sleepPid}\nculture-agent spark-a\n`);
    mkdirSync(join(f.home, "pids"), { recursive: true });

    plant();
    expect((await statusJson(f))[0]).toMatchObject({ state: "stopped", pid: null });
    const stop = await f.culture(["stop", "spark-a"]);
    expect(stop.code).toBe(0);
    expect(stop.stdout).toBe(`spark-a is not running (removed a stale PID file (pid ${sleepPid} is not a culture daemon))\n`);
    expect(existsSync(pidFile)).toBe(false);
    expect(isProcessAlive(sleepPid)).toBe(true);

    plant();
    const start = await f.culture(["start", "spark-a"]);
    expect(start.code).toBe(0);
    expect(start.stdout).toContain(`removed a stale PID file (pid ${sleepPid} is not a culture daemon)`);
    const daemon = startedPid(start.stdout, "spark-a");

    // The daemon runs, but its PID file now lies: stop goes by what the daemon answers.
    plant();
    expect((await f.culture(["stop", "spark-a"])).stdout).toBe(`Stopped spark-a (pid ${daemon})\n`);
    expect(isProcessAlive(daemon)).toBe(false);
    expect(isProcessAlive(sleepPid)).toBe(true);
    sleeper.kill("SIGKILL");
  });

  it("fails with exit 1 naming host:port when the IRC server is down, and leaves nothing running", async () => {
    const port = await freePort(); // nothing listens there
    const f = fleet(NICKS, port);
    const start = await f.culture(["start", "--all"]);
    expect(start.code).toBe(1);
    expect(start.stdout).toBe("");
    for (const nick of NICKS) {
      expect(start.stderr).toContain(`${nick}: culture couldn't reach the IRC server at 127.0.0.1:${port}`);
    }
    expect(start.stderr).toContain(`culture server start --port ${port}`);
    await eventually(() => processesMentioning(f.home).length === 0, "the failed daemons to exit");
    expect(filesIn(f.home, "pids")).toEqual([]);
    expect((await statusJson(f)).map((r) => r.state)).toEqual(["stopped", "stopped", "stopped"]);
  });
});
