/**
 * Nothing a person sent is lost, with real detached daemons (`culture start`), the echo
 * backend's real agent processes and the embedded IRC server: prompts waiting when the daemon
 * is killed with SIGKILL mid-turn, or stopped with `culture stop`, are delivered by the next
 * daemon exactly once, in order, with a note that they were delayed. And the daemon process
 * itself: SIGTERM/SIGINT stop it cleanly (exit 0, no PID file or socket left, even when the
 * signal comes twice), and a log it cannot write (a full disk) does not kill it.
 */
import { spawn } from "node:child_process";
import { existsSync, openSync, closeSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isProcessAlive } from "@culture/core";
import { connectRawClient, parseRawLine, type RawIrcClient } from "@culture/core/testing";
import { startServer, type IrcServer } from "@culture/server";
import { MAIN, eventually, makeFleet, startedPid, type Fleet } from "./fleet-harness.js";

let server: IrcServer;
const fleets: Fleet[] = [];
const clients: RawIrcClient[] = [];

beforeAll(async () => {
  server = await startServer({ port: 0, stateDir: null });
});
afterAll(async () => {
  await server?.close();
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  for (const f of fleets.splice(0)) await f.cleanup();
});

function fleet(nicks: string[]): Fleet {
  const f = makeFleet(server.port, nicks);
  fleets.push(f);
  return f;
}

async function human(nick: string): Promise<RawIrcClient> {
  const c = await connectRawClient(server.port, nick);
  clients.push(c);
  await c.join("#test");
  return c;
}

async function status(f: Fleet, nick: string): Promise<Record<string, unknown>> {
  const run = await f.culture(["status", nick, "--json"]);
  return (JSON.parse(run.stdout) as Array<Record<string, unknown>>)[0]!;
}

/** The texts of the PRIVMSGs `from` sent to #test in `lines`. */
function saidBy(from: string, lines: string[]): string[] {
  return lines.flatMap((l) => {
    const p = parseRawLine(l);
    return p.command === "PRIVMSG" && p.nick === from && p.params[0] === "#test" ? [p.params[1] ?? ""] : [];
  });
}

/**
 * Sends a mention that takes a while ("one") and two that queue behind it, waits until the
 * daemon has them (one in flight, two waiting), then runs `interrupt` (kill or stop) and starts
 * the agent again. Returns what the agent said after the restart, up to a sentinel's reply.
 */
async function interruptedDelivery(f: Fleet, alice: RawIrcClient, interrupt: (pid: number) => Promise<void>): Promise<string[]> {
  const pid = startedPid((await f.culture(["start", "spark-a"])).stdout, "spark-a");
  // Long enough that `culture status` (a process each poll) sees it in flight on a busy machine;
  // the interrupt cuts it short.
  alice.send("PRIVMSG #test :@spark-a sleep 10000 one");
  alice.send("PRIVMSG #test :@spark-a two");
  alice.send("PRIVMSG #test :@spark-a three");
  await eventually(async () => {
    const s = await status(f, "spark-a");
    return s.activity === "working" && s.queued_prompts === 2;
  }, "one prompt in flight and two queued");
  // Appended (fsync'd) before it was queued: the journal is in the agent's state dir, 0600.
  const journal = join(f.home, "state", "agent-spark-a", "prompts.jsonl");
  expect(statSync(journal).mode & 0o777).toBe(0o600);
  expect(readFileSync(journal, "utf8")).toContain("@spark-a three");
  await interrupt(pid);
  await eventually(() => !isProcessAlive(pid), "the daemon to be gone");
  const mark = alice.lines.length;
  const again = await f.culture(["start", "spark-a"]);
  expect(again.code).toBe(0);
  await alice.waitFor((l) => /three/.test(l) && parseRawLine(l).nick === "spark-a", 20_000);
  // A sentinel sent after the restart: its reply comes after anything the agent would repeat.
  alice.send("PRIVMSG #test :@spark-a four");
  await alice.waitFor((l) => /<alice> @spark-a four$/.test(l) && parseRawLine(l).nick === "spark-a", 20_000);
  return saidBy("spark-a", alice.since(mark));
}

describe("the prompt journal", () => {
  it("delivers the prompts of a daemon killed with SIGKILL mid-turn exactly once, in order, marked as delayed", async () => {
    const f = fleet(["spark-a"]);
    const alice = await human("alice");
    const said = await interruptedDelivery(f, alice, async (pid) => {
      process.kill(pid, "SIGKILL"); // the daemon only: its agent sees EOF and exits
    });
    const replies = said.filter((t) => t.startsWith("I heard: "));
    expect(replies.map((t) => /\b(one|two|three|four)\b/.exec(t)?.[1])).toEqual(["one", "two", "three", "four"]);
    // The one cut short says so; the queued ones say they were delayed; the new one says nothing.
    expect(replies[0]).toMatch(/^I heard: one \[culture: delayed — this arrived at \S+Z; its first attempt was cut short/);
    expect(said.join("\n")).toMatch(/<alice> @spark-a two\n\[culture: delayed — this arrived at \S+Z; the agent's daemon stopped before it was delivered/);
    expect(replies[3]).toBe("I heard: [IRC @mention in #test] <alice> @spark-a four");
    const s = await status(f, "spark-a");
    expect(s.journal).toMatchObject({ pending: 0 });
    expect(s.turn_count).toBe(4);
  });

  it("keeps the prompts waiting at `culture stop` and delivers each exactly once after the next start", async () => {
    const f = fleet(["spark-a"]);
    const alice = await human("alice");
    const said = await interruptedDelivery(f, alice, async () => {
      const stop = await f.culture(["stop", "spark-a"]);
      expect(stop.code).toBe(0);
    });
    const replies = said.filter((t) => t.startsWith("I heard: "));
    expect(replies.map((t) => /\b(one|two|three|four)\b/.exec(t)?.[1])).toEqual(["one", "two", "three", "four"]);
    expect((await status(f, "spark-a")).journal).toMatchObject({ pending: 0 });
  });
});

describe("the daemon process", () => {
  /** Runs `culture start <nick> --foreground` as our child, with stdout/stderr to `fd` (or piped). */
  function foreground(f: Fleet, nick: string, fd?: number, env: NodeJS.ProcessEnv = {}) {
    const child = spawn(process.execPath, [MAIN, "--config", f.configPath, "start", nick, "--foreground"], {
      env: { ...f.env, ...env },
      stdio: ["ignore", fd ?? "pipe", fd ?? "pipe"],
    });
    if (child.pid) f.pids.add(child.pid);
    let out = "";
    child.stdout?.on("data", (d) => (out += d));
    child.stderr?.on("data", (d) => (out += d));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
    return { child, exited, output: () => out };
  }

  it.each(["SIGTERM", "SIGINT"] as const)("%s (twice, the second while stopping) stops it with exit 0 and leaves no PID file or socket", async (signal) => {
    const f = fleet(["spark-a"]);
    const alice = await human("alice");
    // The agent takes 1.5 s to exit once told to: the second signal lands while the daemon is stopping.
    const d = foreground(f, "spark-a", undefined, { ECHO_AGENT_LINGER_MS: "1500" });
    await eventually(() => d.output().includes("Started spark-a"), "the daemon to start");
    // Mid-turn, so stopping has a runner to stop.
    alice.send("PRIVMSG #test :@spark-a sleep 5000 busy");
    await eventually(async () => (await status(f, "spark-a")).activity === "working", "the turn to start");
    d.child.kill(signal);
    await eventually(() => d.output().includes("-> stopping"), "the stop to begin");
    d.child.kill(signal);
    const { code, signal: killedBy } = await d.exited;
    expect({ code, killedBy }).toEqual({ code: 0, killedBy: null });
    expect(existsSync(join(f.home, "pids", "agent-spark-a.pid"))).toBe(false);
    expect(existsSync(join(f.home, "run", "culture-spark-a.sock"))).toBe(false);
    expect(d.output()).toMatch(new RegExp(`received ${signal} again; already stopping`));
  });

  it("survives log writes that fail (a full disk), counts them in its status, and keeps answering", async () => {
    const f = fleet(["spark-a"]);
    const alice = await human("alice");
    const full = openSync("/dev/full", "w");
    const d = foreground(f, "spark-a", full);
    closeSync(full);
    await eventually(async () => (await status(f, "spark-a")).daemon_state === "ready", "the daemon to be ready", 20_000);
    alice.send("PRIVMSG #test :@spark-a hello");
    await alice.waitFor((l) => /<alice> @spark-a hello$/.test(l) && parseRawLine(l).nick === "spark-a");
    const s = await status(f, "spark-a");
    expect(s.log_write_failures).toBeGreaterThan(0);
    expect(isProcessAlive(d.child.pid!)).toBe(true);
    d.child.kill("SIGTERM");
    expect((await d.exited).code).toBe(0);
  });
});
