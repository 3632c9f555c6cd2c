#!/usr/bin/env node
// Receipts (issue 31): what a person who addresses an agent sees back, measured.
//   (a) latency: a mention -> its receipt seen by the sender (the IRCv3 reaction on the
//       asker's msgid, or the NOTICE), p50/p95, on the embedded server and on InspIRCd, with
//       the agent idle and with a growing backlog of long reply lines in the daemon's send
//       queue (10 more before each mention: receipts must not wait behind them). Baseline: the same PRIVMSG
//       reaching a plain raw client (the network hop alone). Target p95 < 1 s, aim < 50 ms.
//   (b) BENCH_LINES (1,000) addressed lines from 5 people while the agent is randomly busy,
//       paused, aborted and its agent process restarted (crashes): every line must end in
//       exactly one final state, none silent, none doubled. Counted by the daemon (status
//       `receipts`) and by what the senders saw on IRC.
// Server flood control is on (the default): receipts share the flood budget with replies.
// Run after `npm run build`:  node bench/receipts.mjs
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";

const root = fileURLToPath(new URL("..", import.meta.url));
const core = await import(join(root, "packages/core/dist/index.js"));
const testing = await import(join(root, "packages/core/dist/testing/index.js"));
const { startServer } = await import(join(root, "packages/server/dist/index.js"));
const { IpcClient } = await import(join(root, "packages/core/dist/ipc/ipc-client.js"));
const { z } = await import("zod");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const LINES = Number(process.env.BENCH_LINES ?? 1000);
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
const ms = (x) => `${x.toFixed(1)} ms`;
const sleep = (t) => new Promise((r) => setTimeout(r, t));
const rand = (n) => Math.floor(Math.random() * n);

/** A runner whose turns take `delay()` ms; a prompt containing "crash" makes the agent process die mid-turn. */
let delay = () => 0;
class BenchRunner extends core.AgentRunnerBase {
  running = false;
  async start() {
    this.running = true;
  }
  async stop() {
    this.running = false;
  }
  async interrupt() {
    this.interrupted?.();
  }
  async sendPrompt(text) {
    await new Promise((resolve) => {
      this.interrupted = resolve;
      setTimeout(resolve, delay());
    });
    // Only a person's line crashes it (the daemon's resume prompt quotes the last task, "crash" included).
    if (text.startsWith("[IRC") && text.includes("crash")) {
      this.running = false;
      void this.onExit?.(1);
      throw new Error("the agent process exited during the turn");
    }
    await this.onMessage?.({ type: "assistant", content: [{ type: "text", text: "ok" }] });
  }
  isRunning() {
    return this.running;
  }
  get sessionId() {
    return "bench";
  }
}
const backend = core.defineBackend({ name: "bench", apiVersion: 1, configSchema: z.object({}), createRunner: () => new BenchRunner() });

async function startDaemon(port, receipts) {
  const home = mkdtempSync(join(tmpdir(), "culture-bench-receipts-"));
  const env = { ...process.env, CULTURE_HOME: home };
  delete env.XDG_RUNTIME_DIR;
  const config = core.resolveConfig(
    {
      server: { name: "spark", host: "127.0.0.1", port },
      operators: ["olga"],
      operators_by_nick: true,
      allow: "everyone",
      restart: { delay_seconds: 0, max_crashes: 1000, window_seconds: 1 },
      agents: [{ nick: "spark-bench", agent: "bench", channels: ["#bench"], relay: "never", receipts }],
    },
    { filepath: join(home, "agents.yaml"), env },
  );
  const daemon = new core.AgentDaemon({ config, nick: "spark-bench", backend, backendOptions: {}, env, logger: core.silentLogger, writePidFile: false, journal: false });
  await daemon.start();
  return { daemon, env, stop: async () => (await daemon.stop(), rmSync(home, { recursive: true, force: true })) };
}

/** Is `p` (parsed) a receipt from the agent to `nick` for a line with `msgid`? */
const isReceipt = (p, nick, msgid) =>
  p.nick === "spark-bench" && ((p.command === "TAGMSG" && p.tags["+draft/reply"] === msgid) || (p.command === "NOTICE" && p.params[0] === nick));

// ---- (a) latency ---------------------------------------------------------------------------
async function latency(label, port) {
  for (const mode of ["auto", "notice"]) {
    const d = await startDaemon(port, mode);
    const alice = await testing.connectRawClient(port, "alice", { caps: ["message-tags", "echo-message"] });
    const watcher = await testing.connectRawClient(port, "watcher");
    await alice.join("#bench");
    await watcher.join("#bench");
    const ipc = await IpcClient.connect(core.socketPath("spark-bench", d.env));
    const rows = { idle: [], backlog: [], hop: [], waiting: [] };
    delay = () => 0;
    // First ROUNDS rounds with nothing waiting, then ROUNDS rounds each behind 10 more long
    // reply lines (the backlog grows: the server's flood limit drains it at 2 lines/s).
    for (let i = 0; i < 2 * ROUNDS; i++) {
      const backlog = i >= ROUNDS;
      if (backlog) await ipc.request("irc_send", { channel: "#bench", message: Array.from({ length: 10 }, (_, k) => `reply ${i} line ${k} `.repeat(20)).join("\n") });
      const t0 = performance.now();
      alice.send(`PRIVMSG #bench :@spark-bench round ${i}`);
      const echo = testing.parseRawLine(await alice.waitFor((_l, p) => p.command === "PRIVMSG" && p.nick === "alice" && p.params[1] === `@spark-bench round ${i}`));
      await watcher.waitFor((_l, p) => p.command === "PRIVMSG" && p.params[1] === `@spark-bench round ${i}`);
      rows.hop.push(performance.now() - t0);
      await alice.waitFor((_l, p) => isReceipt(p, "alice", echo.tags.msgid), 30_000);
      (backlog ? rows.backlog : rows.idle).push(performance.now() - t0);
      if (backlog) rows.waiting.push(d.daemon["transport"]?.["sendQueue"]?.pendingMessages ?? 0);
      // Idle rounds: let the token bucket refill (2 lines/s after a burst of 5), so the
      // figure is the receipt's path, not the flood budget spent by the last round's lines.
      await sleep(backlog ? 20 : 1100);
      while (d.daemon.status().activity !== "idle") await sleep(5);
    }
    const row = (name, xs) => `${name.padEnd(34)} p50 ${ms(pct(xs, 50)).padStart(9)}  p95 ${ms(pct(xs, 95)).padStart(9)}  (n=${xs.length})`;
    console.log(`  ${label}, receipts: ${mode}`);
    console.log(`    ${row("mention -> receipt, agent idle", rows.idle)}`);
    console.log(`    ${row("mention -> receipt, reply backlog", rows.backlog)}  (reply lines waiting: ${Math.min(...rows.waiting)} to ${Math.max(...rows.waiting)})`);
    console.log(`    ${row("baseline: mention -> raw client", rows.hop)}`);
    ipc.close?.();
    await alice.close();
    await watcher.close();
    await d.stop();
    // Let the server forget the nicks.
    await sleep(200);
  }
}

// ---- (b) 1,000 lines under random busy / pause / abort / restart ----------------------------
async function chaos(label, port) {
  const d = await startDaemon(port, "notice");
  const people = [];
  const seen = new Map(); // nick -> receipt lines seen
  for (const nick of ["ann", "ben", "cat", "dan", "eve"]) {
    const c = await testing.connectRawClient(port, nick, { caps: ["message-tags"] });
    await c.join("#bench");
    people.push(c);
    seen.set(nick, 0);
  }
  const olga = await testing.connectRawClient(port, "olga");
  await olga.join("#bench");
  delay = () => rand(40);
  const events = { pause: 0, resume: 0, abort: 0, crash: 0 };
  let paused = false;
  for (let i = 0; i < LINES; i++) {
    const who = people[rand(people.length)];
    const roll = Math.random();
    // Some lines repeat a waiting one (merged), some crash the agent mid-turn (restart).
    const text = roll < 0.05 ? "@spark-bench same again" : roll < 0.07 ? `@spark-bench crash ${i}` : `@spark-bench line ${i}`;
    if (text.includes("crash")) events.crash++;
    who.send(`PRIVMSG #bench :${text}`);
    const op = Math.random();
    if (op < 0.02) {
      paused = !paused;
      if (paused) d.daemon.pause();
      else await d.daemon.resume();
      events[paused ? "pause" : "resume"]++;
    } else if (op < 0.03) {
      olga.send("PRIVMSG #bench :@spark-bench abort");
      events.abort++;
    }
    await sleep(rand(8));
  }
  if (paused) await d.daemon.resume();
  // Wait until the server delivered everything and every line reached its final state.
  for (const c of people) {
    c.send("PING :sync");
    await c.waitFor((_l, p) => p.command === "PONG", 60_000);
  }
  const t0 = Date.now();
  for (;;) {
    const r = d.daemon.status().receipts;
    const s = d.daemon.status();
    if (r.open === 0 && s.queued_prompts === 0 && s.activity !== "working") break;
    if (Date.now() - t0 > 120_000) break;
    await sleep(50);
  }
  await sleep(2_000); // the last summary windows close
  const r = d.daemon.status().receipts;
  if (r.open > 0) {
    const s = d.daemon.status();
    console.log(`    (open lines: daemon_state ${s.daemon_state}, activity ${s.activity}, queued ${s.queued_prompts}, paused ${s.paused}, circuit_open ${s.circuit_open})`);
  }
  for (const c of people) for (const l of c.lines) {
    const p = testing.parseRawLine(l);
    if (p.nick === "spark-bench" && (p.command === "NOTICE" || p.command === "TAGMSG")) seen.set(c.nick, seen.get(c.nick) + 1);
  }
  const finals = Object.values(r.final).reduce((a, b) => a + b, 0);
  const sentLines = LINES;
  console.log(`  ${label}: ${sentLines} addressed lines; ${events.pause} pauses, ${events.resume} resumes, ${events.abort} aborts, ${events.crash} agent crashes (restarted)`);
  console.log(`    daemon: ${r.lines} tracked, ${r.acknowledged} acknowledged, ${finals} final (${Object.entries(r.final).map(([k, v]) => `${k} ${v}`).join(", ")}), ${r.open} still open, ${r.ignored} second finals`);
  console.log(`    receipts sent ${r.sent} (+ ${r.summarized} folded into per-sender summaries), lane full ${r.laneFull}; seen by the senders: ${[...seen.values()].reduce((a, b) => a + b, 0)} NOTICE/TAGMSG lines`);
  const ok = r.lines === sentLines && r.acknowledged === sentLines && finals === sentLines && r.open === 0 && r.ignored === 0;
  console.log(`    every line in exactly one final state: ${ok ? "yes" : "NO"} (silent ${sentLines - r.acknowledged}, doubled ${r.ignored}, untracked ${sentLines - r.lines})`);
  for (const c of [...people, olga]) await c.close();
  await d.stop();
  return ok;
}

console.log("(a) mention -> receipt seen by the sender");
const embedded = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
await latency("embedded server", embedded.port);
const inspircd = await testing.startIrcServer("inspircd");
try {
  await latency("InspIRCd", inspircd.port);
  console.log(`(b) ${LINES} addressed lines while the agent is randomly busy, paused, aborted and restarted`);
  const okA = await chaos("embedded server", embedded.port);
  const okB = await chaos("InspIRCd", inspircd.port);
  process.exitCode = okA && okB ? 0 : 1;
} finally {
  await inspircd.stop();
  await embedded.close();
}
