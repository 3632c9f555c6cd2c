#!/usr/bin/env node
// Usage metering (issue 27), measured:
//   (a) metering cost per turn: the UsageMeter turning a finished turn (12 messages, 4 with
//       usage) into its record, pricing it and appending it to the usage journal — against the
//       floor measured in the same run: one write(2) of the same line to a plain file.
//       Target < 0.1 ms per turn.
//   (b) journal append cost as the journal grows to BENCH_RECORDS (100,000) records: the
//       per-append median at each tenth (no growth with size is the target), then what opening
//       (reading) a 100,000-record journal costs at daemon start, and a compaction.
//   (c) the fsync policy: background fdatasync (the default) vs fsync before each append returns.
// Run after `npm run build`:  node bench/usage.mjs
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";

const root = fileURLToPath(new URL("..", import.meta.url));
const core = await import(join(root, "packages/core/dist/index.js"));
const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000);
const TURNS = Number(process.env.BENCH_TURNS ?? 20_000);
const dir = mkdtempSync(join(tmpdir(), "usage-bench-"));
const logger = core.createLogger({ level: "error" });
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
const us = (ms) => `${(ms * 1000).toFixed(2)} µs`;

/** A finished turn as the daemon hands it to turnEnd: text, tool calls and results, 4 messages with usage. */
function turn(i) {
  const messages = [];
  for (let k = 0; k < 12; k++) {
    const m = { type: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text: `step ${k} of turn ${i}` }] };
    if (k % 3 === 2) m.usage = { inputTokens: 12_000 + k, outputTokens: 300 + k, cacheReadTokens: 10_000, cacheWriteTokens: 200, costUsd: k % 2 ? 0.0123 : undefined };
    messages.push(m);
  }
  const origin = { id: `turn-${i}`, kind: "mention", channel: "#dev", sender: "alice", replyTo: "#dev", text: "x", account: "alice" };
  return { origin, prompt: "x", messages, finalText: "", sentTo: new Set(), error: null, durationMs: 1000 };
}

// (a) metering per turn vs the bare write of the same line.
{
  const path = join(dir, "a.jsonl");
  const meter = new core.UsageMeter({ nick: "spark-bench", logger, prices: { "claude-sonnet-4-5": { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 } }, model: null, journalPath: path });
  meter.open();
  const turns = Array.from({ length: TURNS }, (_, i) => turn(i));
  const metered = [];
  let line = "";
  for (let i = 0; i < TURNS; i++) {
    const t0 = performance.now();
    const record = meter.meter(turns[i]);
    meter.record(record);
    metered.push(performance.now() - t0);
    if (i === 0) line = JSON.stringify(record) + "\n";
  }
  meter.close();
  const fd = openSync(join(dir, "floor.jsonl"), "a", 0o600);
  const floor = [];
  for (let i = 0; i < TURNS; i++) {
    const t0 = performance.now();
    writeSync(fd, line);
    floor.push(performance.now() - t0);
  }
  closeSync(fd);
  console.log(`(a) metering a turn (meter + price + journal append), ${TURNS} turns: p50 ${us(pct(metered, 50))}, p99 ${us(pct(metered, 99))}`);
  console.log(`    floor, one write(2) of the same ${line.length}-byte line: p50 ${us(pct(floor, 50))}, p99 ${us(pct(floor, 99))}`);
  console.log(`    ratio p50: ${(pct(metered, 50) / pct(floor, 50)).toFixed(2)}x   (target < 0.1 ms per turn: ${pct(metered, 50) < 0.1 ? "met" : "NOT met"})`);
}

// (b) append cost as the journal grows; open and compaction cost at full size.
{
  const path = join(dir, "b.jsonl");
  const { journal } = core.UsageJournal.open({ path, logger });
  const now = Date.now();
  const tenth = Math.floor(RECORDS / 10);
  const medians = [];
  let slice = [];
  for (let i = 0; i < RECORDS; i++) {
    // 100,000 turns over the last 23 days (one every 20 s): all inside the 35-day window.
    const record = { v: 1, type: "turn", at: now - (RECORDS - i) * 20_000, agent: "spark-bench", turn: `t${i}`, kind: "mention", channel: "#dev", nick: "alice", account: "alice", model: "m", tokens: { input: 12_000, output: 300, cacheRead: 10_000, cacheWrite: 200, reasoning: 0 }, costUsd: 0.0123, costSource: "agent", reported: true, failed: false };
    const t0 = performance.now();
    journal.append(record);
    slice.push(performance.now() - t0);
    if ((i + 1) % tenth === 0) {
      medians.push([i + 1, pct(slice, 50), pct(slice, 99)]);
      slice = [];
    }
  }
  journal.close();
  console.log(`(b) append median / p99 by journal size (records so far):`);
  for (const [n, p50, p99] of medians) console.log(`    ${String(n).padStart(7)}: ${us(p50)} / ${us(p99)}`);
  console.log(`    first tenth vs last tenth, p50: ${(medians.at(-1)[1] / medians[0][1]).toFixed(2)}x`);
  const size = statSync(path).size;
  let t0 = performance.now();
  const opened = core.UsageJournal.open({ path, logger, compactAfterDays: 3650 });
  const openMs = performance.now() - t0;
  opened.journal.close();
  t0 = performance.now();
  const totals = core.sumUsage(opened.contents.entries, { since: now - 86_400_000 });
  const sumMs = performance.now() - t0;
  console.log(`    opening the ${RECORDS}-record journal (${(size / 1e6).toFixed(1)} MB: read, parse, torn-line check): ${openMs.toFixed(0)} ms; summing the last day (${totals.turns} turns): ${sumMs.toFixed(1)} ms`);
  t0 = performance.now();
  const compacted = core.UsageJournal.open({ path, logger, compactAfterDays: 7 });
  const compactMs = performance.now() - t0;
  compacted.journal.close();
  console.log(`    open + compaction to 7 days of turns: ${compactMs.toFixed(0)} ms -> ${compacted.contents.entries.length} entries, ${(statSync(path).size / 1e6).toFixed(2)} MB`);
}

// (c) fsync policy.
{
  const n = 1000;
  for (const fsync of ["background", "always"]) {
    const path = join(dir, `c-${fsync}.jsonl`);
    const { journal } = core.UsageJournal.open({ path, logger, fsync });
    const times = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      journal.append({ v: 1, type: "turn", at: Date.now(), agent: "spark-bench", turn: `t${i}`, kind: "dm", channel: null, nick: "bob", account: null, model: "m", tokens: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 }, costUsd: null, costSource: null, reported: true, failed: false });
      times.push(performance.now() - t0);
      if (fsync === "background" && i % 50 === 0) await new Promise((r) => setImmediate(r));
    }
    journal.close();
    console.log(`(c) fsync ${fsync.padEnd(10)}: append p50 ${us(pct(times, 50))}, p99 ${us(pct(times, 99))} (${n} appends)`);
  }
}
rmSync(dir, { recursive: true, force: true });
