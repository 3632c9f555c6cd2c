/**
 * Schedules end to end: the embedded IRC server, real daemons (the echo backend's real agent
 * process), a human on IRC who sees the replies, the real `culture schedule` CLI, and a clock
 * the test moves (DaemonTimings.now) so a 09:00 run happens without waiting until 09:00.
 * Restarts reuse the same CULTURE_HOME, so the state file and the journal carry over.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "@culture/server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config/load-config.js";
import { createLogger } from "../src/logger.js";
import { scheduleStatePath } from "../src/paths.js";
import { connectRawClient, parseRawLine, type RawIrcClient } from "../src/testing/irc-servers.js";
import { createTestDaemon, eventually, type TestDaemon } from "./helpers/daemon-harness.js";

const T0 = Date.parse("2026-11-27T08:59:30Z");
const STANDUP = { name: "standup", cron: "0 9 * * *", timezone: "UTC", prompt: "post the standup", channel: "#test" };

describe("schedules", () => {
  let server: { port: number; close(): Promise<void> };
  const cleanups: Array<() => Promise<void>> = [];
  let clock = T0;
  let logs: string[] = [];

  beforeAll(async () => {
    server = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
  });
  afterAll(async () => {
    await server?.close();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
    clock = T0;
    logs = [];
  });

  /** A daemon on `home` whose schedules read the test's clock; stop() keeps the home (restarts reuse it). */
  async function daemon(home: string, schedules: unknown[]): Promise<TestDaemon> {
    const d = await createTestDaemon({
      port: server.port,
      home,
      agent: { schedules },
      timings: { now: () => clock, scheduleCheckMaxMs: 20 },
      logger: createLogger({ level: "info", write: (l) => logs.push(l) }),
    });
    await d.start();
    const stop = () => d.daemon.stop();
    cleanups.push(stop);
    return { ...d, stop };
  }

  function newHome(): string {
    const home = mkdtempSync(join(tmpdir(), "culture-sched-"));
    cleanups.unshift(async () => rmSync(home, { recursive: true, force: true }));
    return home;
  }

  async function human(nick: string): Promise<RawIrcClient> {
    const c = await connectRawClient(server.port, nick);
    cleanups.push(() => c.close());
    await c.join("#test");
    return c;
  }

  const heard = (text: string) => (line: string) => {
    const p = parseRawLine(line);
    return p.command === "PRIVMSG" && p.params[0] === "#test" && (p.params[1] ?? "").startsWith("I heard: ") && (p.params[1] ?? "").includes(text);
  };
  const schedule = (d: TestDaemon, name = "standup") => (d.daemon.status().schedules as Array<Record<string, unknown>>).find((s) => s.name === name)!;

  it("a cron run fires once at its time, replies in its channel, and the state file (0600) remembers it", async () => {
    const home = newHome();
    const d = await daemon(home, [STANDUP]);
    const alice = await human("alice");
    expect(schedule(d)).toMatchObject({ next_run: Date.parse("2026-11-27T09:00:00Z") / 1000, next_run_local: "2026-11-27 09:00", fired: 0 });
    expect(d.daemon.status().next_run).toMatchObject({ schedule: "standup", local: "2026-11-27 09:00 UTC" });
    clock = Date.parse("2026-11-27T09:00:02Z");
    const line = await alice.waitFor(heard("post the standup"));
    expect(parseRawLine(line).params[1]).toBe("I heard: [schedule standup, due 2026-11-27 09:00 UTC; the reply goes to #test] post the standup");
    // Many more looks at the clock within the same minute: still one run.
    clock = Date.parse("2026-11-27T09:00:40Z");
    await eventually(() => d.daemon.status().turn_count === 1, "the turn to end");
    await new Promise((r) => setTimeout(r, 200)); // ten more checks of the schedule (every 20 ms)
    expect(d.daemon.status().turn_count).toBe(1);
    expect(schedule(d)).toMatchObject({ fired: 1, next_run: Date.parse("2026-11-28T09:00:00Z") / 1000 });
    const path = scheduleStatePath(d.nick, d.env);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, "utf8")).schedules.standup.lastSlot).toBe(Date.parse("2026-11-27T09:00:00Z"));
  });

  it("a run missed while the daemon was down fires once at the next start, and not again after a second restart", async () => {
    const home = newHome();
    const first = await daemon(home, [STANDUP]);
    const alice = await human("alice");
    await first.stop();
    clock = Date.parse("2026-11-27T09:10:00Z"); // 10 minutes late, within the default catch_up of 1h
    const second = await daemon(home, [STANDUP]);
    const line = await alice.waitFor(heard("post the standup"));
    expect(parseRawLine(line).params[1]).toBe("I heard: [schedule standup, missed while the daemon was down, run 10m late; the reply goes to #test] post the standup");
    await eventually(() => second.daemon.status().turn_count === 1, "the caught-up turn to end");
    await second.stop();
    clock = Date.parse("2026-11-27T09:20:00Z");
    const third = await daemon(home, [STANDUP]);
    await new Promise((r) => setTimeout(r, 200)); // ten checks of the schedule
    expect(third.daemon.status()).toMatchObject({ turn_count: 0, queued_prompts: 0 });
    expect(schedule(third)).toMatchObject({ fired: 0, skipped: 0, last_fired: Date.parse("2026-11-27T09:10:00Z") / 1000 });
  });

  it("an at: in the past beyond catch_up is skipped and logged; one within catch_up runs once", async () => {
    const home = newHome();
    const d = await daemon(home, [
      { name: "launch", at: "2026-11-27T06:00", timezone: "UTC", prompt: "announce the launch", catch_up: "2h" },
      { name: "recap", at: "2026-11-27T09:30", timezone: "Europe/Berlin", prompt: "recap the morning", catch_up: "2h" },
    ]);
    expect(logs.some((l) => l.includes("WARN [schedules] schedule launch: skipped the run due 2026-11-27 06:00 UTC (3h ago, older than its catch_up of 7200s)"))).toBe(true);
    expect(schedule(d, "launch")).toMatchObject({ skipped: 1, fired: 0, next_run: null });
    // 09:30 in Berlin is 08:30 UTC: 29.5 minutes ago, within 2h.
    await eventually(() => d.daemon.status().turn_count === 1, "the recap turn");
    expect(schedule(d, "recap")).toMatchObject({ fired: 1, next_run: null, timezone: "Europe/Berlin" });
  });

  it("culture schedule list|run|pause|resume over the control socket; at most one run of a schedule waits", async () => {
    const home = newHome();
    const d = await daemon(home, [STANDUP, { name: "weekly", cron: "0 8 * * 1", timezone: "Europe/Berlin", prompt: "weekly review" }]);
    const list = await d.culture(["schedule", "list", d.nick], { nick: null });
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toMatch(/standup\s+0 9 \* \* \*\s+UTC\s+#test\s+2026-11-27 09:00\s+-\s+active/);
    expect(list.stdout).toMatch(/weekly\s+0 8 \* \* 1\s+Europe\/Berlin\s+#test\s+2026-11-30 08:00/);
    // From the agent's own environment: refused before anything is read.
    const fromAgent = await d.culture(["schedule", "run", d.nick, "standup"]);
    expect(fromAgent.exitCode).not.toBe(0);
    expect(fromAgent.stderr).toMatch(/agent/);
    // The agent is paused: a run waits; a second is refused; the 09:00 run is folded into the waiting one.
    d.daemon.pause();
    const run = await d.culture(["schedule", "run", d.nick, "standup"], { nick: null });
    expect(run.stdout).toBe(`Queued a run of standup for ${d.nick}`);
    const second = await d.culture(["schedule", "run", d.nick, "standup"], { nick: null });
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toContain("a run of schedule standup is already waiting for the agent; not queueing a second");
    // The same handler in-process (the CLI path is proven above; this keeps the file fast).
    const unknown = await d.daemon.hooks.ipcRequest.promise({ type: "schedule_run", id: "t1", schedule: "nope" });
    expect(unknown).toEqual({ ok: false, error: 'agent spark-bot has no schedule "nope" (its schedules: standup, weekly)' });
    clock = Date.parse("2026-11-27T09:00:05Z");
    await eventually(() => schedule(d).folded === 1, "the 09:00 run to be folded into the waiting one");
    expect(d.daemon.status().queued_prompts).toBe(1);
    await d.daemon.resume();
    await eventually(() => d.daemon.status().turn_count === 1 && d.daemon.status().queued_prompts === 0, "the one run");
    // Paused: tomorrow's 09:00 does not fire; resumed: from now on (tomorrow's is not replayed).
    const pause = await d.culture(["schedule", "pause", d.nick, "standup"], { nick: null });
    expect(pause.stdout).toBe(`Paused standup for ${d.nick}`);
    clock = Date.parse("2026-11-28T09:00:05Z");
    await new Promise((r) => setTimeout(r, 200)); // ten checks of the schedule
    expect(d.daemon.status().turn_count).toBe(1);
    expect(schedule(d)).toMatchObject({ paused: true, next_run: null });
    const resume = await d.culture(["schedule", "resume", d.nick], { nick: null });
    expect(resume.stdout).toBe(`Resumed standup, weekly for ${d.nick}`);
    expect(schedule(d)).toMatchObject({ paused: false, next_run: Date.parse("2026-11-29T09:00:00Z") / 1000 });
    expect(d.daemon.status().turn_count).toBe(1);
    const status = await d.culture(["status", d.nick, "--json"], { nick: null });
    expect(JSON.parse(status.stdout)[0].next_run).toMatchObject({ schedule: "standup", local: "2026-11-29 09:00 UTC" });
  });
});

describe("schedule config errors name the field", () => {
  const agent = (schedule: Record<string, unknown>) => ({ agents: [{ nick: "spark-bot", channels: ["#test"], schedules: [{ name: "s", prompt: "p", ...schedule }] }] });
  const error = (schedule: Record<string, unknown>) => {
    try {
      resolveConfig(agent(schedule), { filepath: "/tmp/agents.yaml" });
    } catch (err) {
      return (err as Error).message;
    }
    return "no error";
  };
  it.each([
    [{ cron: "61 * * * *" }, /agents\[0\]\.schedules\[0\]\.cron: .*"61 \* \* \* \*" is not a cron expression croner accepts: Invalid value for minute: 61/],
    [{ cron: "0 9 * * *", timezone: "Mars/Olympus" }, /agents\[0\]\.schedules\[0\]\.timezone: .*unknown time zone "Mars\/Olympus"/],
    [{ at: "tomorrow at nine" }, /agents\[0\]\.schedules\[0\]\.at: .*"tomorrow at nine" is not a date and time like 2026-12-01T09:00/],
    [{}, /agents\[0\]\.schedules\[0\]\.cron: .*give exactly one of cron: \(repeating\) or at: \(once\)/],
    [{ cron: "0 9 * * *", at: "2026-12-01T09:00" }, /give exactly one of cron:/],
    [{ cron: "0 9 * * *", channel: "#elsewhere" }, /agents\[0\]\.schedules\[0\]\.channel: .*#elsewhere is not one of this agent's channels \(#test\)/],
    [{ cron: "0 9 * * *", catch_up: "soon" }, /agents\[0\]\.schedules\[0\]\.catch_up/],
  ])("%j", (schedule, expected) => {
    expect(error(schedule)).toMatch(expected);
  });
  it("accepts a good one, with catch_up as a duration", () => {
    const config = resolveConfig(agent({ cron: "*/15 9-17 * * 1-5", timezone: "America/New_York", catch_up: "30m" }), { filepath: "/tmp/agents.yaml" });
    expect(config.agents[0]!.schedules![0]).toMatchObject({ cron: "*/15 9-17 * * 1-5", catch_up: 1800, paused: false });
  });
});
