/** The usage journal on a real file: 0600, kill -9 of a writer, torn last lines, compaction totals. */
import { spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.js";
import { readUsageJournal, rollUp, UsageJournal } from "../src/usage/usage-journal.js";
import type { UsageRecord } from "../src/usage/usage-record.js";
import { groupUsage, sumUsage } from "../src/usage/usage-totals.js";

const DAY = 86_400_000;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup() {
  const dir = mkdtempSync(join(tmpdir(), "usage-"));
  dirs.push(dir);
  const warnings: string[] = [];
  const logger = createLogger({ level: "warn", write: (l) => warnings.push(l) });
  return { dir, path: join(dir, "usage.jsonl"), logger, warnings };
}

let seq = 0;
function record(at: number, over: Partial<UsageRecord> = {}): UsageRecord {
  return {
    v: 1, type: "turn", at, agent: "spark-a", turn: `t${seq++}`, kind: "mention", channel: "#dev", nick: "alice", account: "alice", model: "m1",
    tokens: { input: 1000, output: 100, cacheRead: 400, cacheWrite: 50, reasoning: 20 }, costUsd: 0.01, costSource: "agent", reported: true, failed: false, ...over,
  };
}

describe("UsageJournal", () => {
  it("creates the file 0600 and reads back every record appended, in order", () => {
    const { path, logger } = setup();
    const { journal, contents } = UsageJournal.open({ path, logger });
    expect(contents.entries).toEqual([]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const now = Date.now();
    const recs = [record(now), record(now + 1, { costUsd: null, costSource: null }), record(now + 2, { channel: null, kind: "dm" })];
    for (const r of recs) journal.append(r);
    journal.close();
    expect(readUsageJournal(path).entries).toEqual(recs);
  });

  it("a writer killed with kill -9 in the middle of appending loses no whole record; a torn last line is reported, skipped and cut off", async () => {
    const { dir, path, logger, warnings } = setup();
    const script = await bundleAppender(dir);
    const child = spawn(process.execPath, [script, path], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.once("data", () => resolve());
      child.once("exit", (code) => reject(new Error(`appender exited ${code}`)));
    });
    // Let it write for a while, then kill it mid-burst.
    while (readFileSync(path).length < 100_000) await new Promise((r) => setTimeout(r, 5));
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await exited;
    const text = readFileSync(path, "utf8");
    const whole = text.slice(0, text.lastIndexOf("\n") + 1).split("\n").filter(Boolean);
    const before = readUsageJournal(path);
    expect(before.entries.length).toBe(whole.length);
    expect(before.entries.map((e) => (e as UsageRecord).turn)).toEqual(whole.map((_, i) => `t${i}`)); // nothing lost in between
    // A partial line, as a kill during write(2) (or a power cut) leaves it:
    appendFileSync(path, '{"v":1,"type":"turn","at":17000,"agent":"spark-a","tu');
    const { journal, contents } = UsageJournal.open({ path, logger });
    expect(contents.skipped).toEqual([expect.objectContaining({ reason: "torn" })]);
    expect(warnings.join("\n")).toMatch(/skipped a torn last line \(\d+ bytes/);
    expect(contents.entries.length).toBe(whole.length);
    journal.append(record(Date.now(), { turn: "after" }));
    journal.close();
    const after = readUsageJournal(path);
    expect(after.skipped).toEqual([]);
    expect(after.entries.length).toBe(whole.length + 1);
    expect((after.entries.at(-1) as UsageRecord).turn).toBe("after");
  });

  it("a line in the middle that is not a record is reported and skipped; the rest is read", () => {
    const { path, logger, warnings } = setup();
    const a = record(1), b = record(2);
    writeFileSync(path, `${JSON.stringify(a)}\nnot json\n{"v":1,"type":"turn"}\n${JSON.stringify(b)}\n`);
    const { contents } = UsageJournal.open({ path, logger, now: () => 3 });
    expect(contents.entries).toEqual([a, b]);
    expect(contents.skipped.map((s) => [s.line, s.reason])).toEqual([[2, "not a usage record"], [3, "not a usage record"]]);
    expect(warnings.join("\n")).toMatch(/skipped line 2/);
  });

  it("compaction rolls old turns into per-day rollups and keeps every total equal", () => {
    const { path, logger } = setup();
    const now = Date.parse("2026-11-27T10:00:00Z");
    const recs: UsageRecord[] = [];
    let rnd = 7;
    const rand = (n: number) => ((rnd = (rnd * 48271) % 2147483647), rnd % n);
    for (let i = 0; i < 3000; i++) {
      const at = now - rand(60) * DAY - rand(DAY);
      recs.push(record(at, {
        agent: ["spark-a", "spark-b"][rand(2)]!, channel: ["#dev", "#ops", null][rand(3)]!, account: ["alice", "bob", null][rand(3)]!, model: ["m1", "m2"][rand(2)]!,
        tokens: { input: rand(5000), output: rand(900), cacheRead: rand(100), cacheWrite: rand(50), reasoning: rand(30) },
        costUsd: rand(4) === 0 ? null : rand(1000) / 1000,
      }));
    }
    writeFileSync(path, recs.map((r) => JSON.stringify(r) + "\n").join(""));
    const { journal, contents } = UsageJournal.open({ path, logger, now: () => now, compactAfterDays: 35 });
    journal.close();
    const onDisk = readUsageJournal(path).entries;
    expect(contents.entries).toEqual(onDisk);
    expect(onDisk.some((e) => e.type === "day")).toBe(true);
    expect(onDisk.length).toBeLessThan(recs.length);
    const cutoff = Date.parse("2026-10-23T00:00:00Z"); // 35 whole days before today
    expect(onDisk.every((e) => e.type === "day" ? e.at < cutoff : e.at >= cutoff)).toBe(true);
    const same = (a: ReturnType<typeof sumUsage>, b: ReturnType<typeof sumUsage>) => {
      expect({ ...a, costUsd: 0 }).toEqual({ ...b, costUsd: 0 });
      expect(a.costUsd).toBeCloseTo(b.costUsd, 6);
    };
    same(sumUsage(onDisk), sumUsage(recs));
    for (const f of [{ agent: "spark-b" }, { channel: "#ops" }, { account: "bob" }, { model: "m2" }, { since: cutoff }]) same(sumUsage(onDisk, f), sumUsage(recs, f));
    const byDay = (es: Parameters<typeof groupUsage>[0]) => groupUsage(es, ["day", "agent"]).map((g) => [JSON.stringify(g.key), g.totals.turns, g.totals.tokens.input]).sort();
    expect(byDay(onDisk)).toEqual(byDay(recs));
    // Compacting again (rollups merged with rollups) changes nothing.
    expect(sumUsage(rollUp(onDisk, cutoff + 10 * DAY)).tokens).toEqual(sumUsage(recs).tokens);
  });

  it("compacts while appending once the oldest turn falls out of the window", () => {
    const { path, logger } = setup();
    let now = Date.parse("2026-01-01T12:00:00Z");
    const { journal } = UsageJournal.open({ path, logger, now: () => now, compactAfterDays: 2 });
    for (let d = 0; d < 6; d++, now += DAY) journal.append(record(now));
    journal.close();
    const entries = readUsageJournal(path).entries;
    expect(entries.filter((e) => e.type === "day").length).toBe(3);
    expect(sumUsage(entries).turns).toBe(6);
  });
});

/** The appender fixture as one .mjs file (the child runs the real UsageJournal source). */
async function bundleAppender(dir: string): Promise<string> {
  const { build } = await import("esbuild");
  const outfile = join(dir, "appender.mjs");
  await build({ entryPoints: [fileURLToPath(new URL("./fixtures/usage-appender.ts", import.meta.url))], bundle: true, platform: "node", format: "esm", outfile, logLevel: "error" });
  return outfile;
}

describe("UsageJournal compaction pace", () => {
  it("a record with a clock in the past compacts once per day's cutoff, not on every append", () => {
    const { path, logger, warnings } = setup();
    const now = Date.parse("2026-11-27T10:00:00Z");
    const infos: string[] = [];
    const log = createLogger({ level: "info", write: (l) => infos.push(l) });
    const { journal } = UsageJournal.open({ path, logger: log, now: () => now, compactAfterDays: 2 });
    for (let i = 0; i < 50; i++) journal.append(record(now - 10 * DAY - i)); // a skewed clock
    journal.close();
    expect(infos.filter((l) => l.includes("usage journal compacted"))).toHaveLength(1);
    expect(sumUsage(readUsageJournal(path).entries).turns).toBe(50);
    expect(warnings).toEqual([]);
    void logger;
  });
});
