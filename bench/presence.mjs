#!/usr/bin/env node
// Presence, measured against baselines from the same run (issue 25, "Measure"):
//   (a) a state change -> its presence line seen by a client on the OTHER server of two linked
//       InspIRCd servers: (1) a mention said on server A -> the agent's `running` line on server B
//       (the bench's runner opens a tool call at once), beside the same mention PRIVMSG reaching server B (the plain hop across the link);
//       (2) the end of a turn (the runner returns, timed in the daemon's process) -> the `idle` line
//       on server B. p50/p95. presence.min_interval_seconds is 0 here (every change goes out):
//       with the default 2 a change right after another waits up to 2 s by design. Samples are
//       BENCH_PRESENCE_GAP_MS (3000) apart, so the daemon's IRC send queue has refilled (below).
//   (b) `culture top` refreshing 50 agents (real daemons in this process, each answering its
//       real IPC status; the built CLI in tmux, --interval 1): CPU seconds per second of the top
//       process, bytes written to the terminal per refresh, and the CPU the 50 daemons spend
//       answering it (this process with top running, minus without).
// No thresholds: it prints figures. Needs InspIRCd and tmux. Run after `npm run build`:
//   node bench/presence.mjs
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";

const root = fileURLToPath(new URL("..", import.meta.url));
const home = mkdtempSync(join(tmpdir(), "cb-"));
// Sockets and state of the 50 daemons (and the top that reads them) live under this home.
process.env.CULTURE_HOME = home;
delete process.env.XDG_RUNTIME_DIR;
delete process.env.CULTURE_CONFIG;
const env = { ...process.env };
const core = await import(join(root, "packages/core/dist/index.js"));
const testing = await import(join(root, "packages/core/dist/testing/index.js"));
const { z } = await import("zod");
const SAMPLES = Number(process.env.BENCH_PRESENCE_SAMPLES ?? 30);
// Between samples: a change costs the daemon ~5 IRC lines (receipt, presence line and AWAY, twice),
// and its send queue is a token bucket (5 back to back, then one per 500 ms). Back to back, the
// samples would measure that queue, not a state change; 3 s lets the bucket refill.
const GAP_MS = Number(process.env.BENCH_PRESENCE_GAP_MS ?? 3000);
const AGENTS = Number(process.env.BENCH_TOP_AGENTS ?? 50);
const WINDOW_S = Number(process.env.BENCH_TOP_SECONDS ?? 15);
const MAIN = join(root, "packages/cli/dist/main.js");
const PRESENCE = "#culture-presence";

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const progress = (msg) => process.env.BENCH_DEBUG && console.error(`[presence bench] ${msg}`);

// ---- a runner whose turns end when the bench says so ----------------------------------------
const turnEnds = new Map();
let releaseTurn = null;
class HeldRunner extends core.AgentRunnerBase {
  running = false;
  async start() {
    this.running = true;
  }
  async stop() {
    this.running = false;
  }
  async sendPrompt() {
    if (this.nick !== "spark-bench") return;
    // A tool call opens at once (state running), and closes when the bench releases the turn.
    await this.onMessage?.({ type: "assistant", model: "bench", content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "bench" } }] });
    await new Promise((r) => (releaseTurn = r));
    await this.onMessage?.({ type: "assistant", model: "bench", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] });
    turnEnds.set("last", performance.now());
  }
  isRunning() {
    return this.running;
  }
  get sessionId() {
    return "bench";
  }
}
const backend = core.defineBackend({
  name: "bench",
  apiVersion: 1,
  configSchema: z.object({}),
  createRunner: (ctx) => Object.assign(new HeldRunner(), { nick: ctx.nick }),
});
function daemonFor(port, nick, configFile) {
  const config = core.resolveConfig(
    {
      server: { name: "spark", host: "127.0.0.1", port },
      allow: "everyone",
      presence: { channel: PRESENCE, min_interval_seconds: Number(process.env.BENCH_MIN_INTERVAL ?? 0) },
      agents: [{ nick, agent: "bench", channels: ["#bench"], relay: "never" }],
    },
    { filepath: configFile, env },
  );
  return new core.AgentDaemon({ config, nick, backend, backendOptions: {}, env, logger: process.env.BENCH_DEBUG && nick === "spark-bench" ? core.createLogger({ scope: nick, level: "debug" }) : core.silentLogger, writePidFile: false });
}

// ---- (a) across the link --------------------------------------------------------------------
const net = await testing.startLinkedInspircd();
const daemons = [];
const mentionSamples = [];
const hopSamples = [];
const idleSamples = [];
try {
  const d = daemonFor(net.a.port, "spark-bench", join(home, "a.yaml"));
  daemons.push(d);
  await d.start();
  progress("daemon on A up");
  const watcher = await testing.connectRawClient(net.b.port, "watcher");
  await watcher.join("#bench");
  await watcher.join(PRESENCE);
  const human = await testing.connectRawClient(net.a.port, "human");
  await human.join("#bench");
  const presenceState = (l) => {
    const p = testing.parseRawLine(l);
    if (p.command !== "NOTICE" || p.nick !== "spark-bench" || p.params[0] !== PRESENCE) return null;
    return core.parsePresenceLine(p.params[1] ?? "")?.state ?? null;
  };
  const stampOf = (match) => {
    const start = watcher.lines.length;
    return new Promise((resolve) => {
      const tick = () => {
        for (let i = start; i < watcher.lines.length; i++) if (match(watcher.lines[i])) return resolve(performance.now());
        setImmediate(tick);
      };
      tick();
    });
  };
  for (let i = 0; i < SAMPLES + 5; i++) {
    const busySeen = stampOf((l) => ["queued", "thinking", "running"].includes(presenceState(l)));
    const hopSeen = stampOf((l) => l.includes(`PRIVMSG #bench :@spark-bench task ${i}`));
    const t0 = performance.now();
    human.send(`PRIVMSG #bench :@spark-bench task ${i}`);
    const dump = setTimeout(() => progress(`stuck; status: ${JSON.stringify(d.status()).slice(0, 1500)}\nhuman saw:\n${human.lines.slice(-6).join("\n")}`), 3000);
    const [busyAt, hopAt] = await Promise.all([busySeen, hopSeen]);
    clearTimeout(dump);
    progress(`sample ${i}: busy seen`);
    while (!releaseTurn) await sleep(1);
    const idleSeen = stampOf((l) => presenceState(l) === "idle");
    const release = releaseTurn;
    releaseTurn = null;
    release();
    const idleAt = await idleSeen;
    if (i >= 5) {
      // The first few warm up the JIT and the link.
      mentionSamples.push(busyAt - t0);
      hopSamples.push(hopAt - t0);
      idleSamples.push(idleAt - turnEnds.get("last"));
    }
    await sleep(GAP_MS);
  }
  await watcher.close();
  await human.close();
} finally {
  for (const d of daemons.splice(0)) await d.stop();
  await net.stop();
}

// ---- (b) culture top refreshing 50 agents ---------------------------------------------------
const server = await testing.startIrcServer("inspircd");
const tmuxSocket = `culture-bench-${process.pid}`;
const tmux = (...args) => execFileSync("tmux", ["-L", tmuxSocket, ...args], { env, encoding: "utf8" });
const bytesFile = join(home, "top.bytes");
const top = {};
try {
  const nicks = Array.from({ length: AGENTS }, (_, i) => `spark-b${String(i).padStart(2, "0")}`);
  const configFile = join(home, "agents.yaml");
  writeFileSync(configFile, JSON.stringify({ server: { name: "spark", host: "127.0.0.1", port: server.port }, agents: nicks.map((nick) => ({ nick, agent: "bench", channels: ["#bench"] })) }));
  for (const nick of nicks) daemons.push(daemonFor(server.port, nick, configFile));
  await Promise.all(daemons.map((d) => d.start()));
  progress(`${AGENTS} daemons up`);
  await sleep(1000);
  // Baseline: what the 50 idle daemons cost with nobody watching.
  let c0 = process.cpuUsage();
  let t0 = performance.now();
  await sleep(WINDOW_S * 1000);
  const idleCpu = cpuSeconds(process.cpuUsage(c0)) / ((performance.now() - t0) / 1000);

  writeFileSync(bytesFile, "");
  tmux("new-session", "-d", "-s", "top", "-x", "160", "-y", String(AGENTS + 6), `exec ${process.execPath} ${MAIN} --config ${configFile} top --interval 1`);
  tmux("pipe-pane", "-o", "-t", "top", `cat >> ${bytesFile}`);
  const pid = Number(tmux("display", "-p", "-t", "top", "#{pane_pid}").trim());
  // Warm up: every agent on screen.
  for (let i = 0; i < 100 && !/spark-b49|spark-b\d\d\s+idle[\s\S]*\n.*spark-b\d\d\s+idle/.test(tmux("capture-pane", "-p", "-t", "top")); i++) await sleep(100);
  await sleep(2000);
  const screen = tmux("capture-pane", "-p", "-t", "top");
  top.rows = (screen.match(/spark-b\d\d/g) ?? []).length;
  const ticks0 = procTicks(pid);
  const bytes0 = statSync(bytesFile).size;
  c0 = process.cpuUsage();
  t0 = performance.now();
  await sleep(WINDOW_S * 1000);
  const seconds = (performance.now() - t0) / 1000;
  const ticks = procTicks(pid) - ticks0;
  const bytes = statSync(bytesFile).size - bytes0;
  top.cpuPerSecond = ticks / clockTicks() / seconds;
  top.bytesPerRefresh = bytes / seconds; // --interval 1: one refresh a second
  top.daemonsCpuPerSecond = cpuSeconds(process.cpuUsage(c0)) / seconds - idleCpu;
  top.idleCpu = idleCpu;
  top.rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
} finally {
  try {
    tmux("kill-server");
  } catch {
    /* gone */
  }
  for (const d of daemons.splice(0)) await d.stop();
  await server.stop();
  rmSync(home, { recursive: true, force: true });
}

// ---- report ---------------------------------------------------------------------------------
const ms = (xs) => `${Math.min(...xs).toFixed(2).padStart(8)} ${pct(xs, 50).toFixed(2).padStart(8)} ${pct(xs, 95).toFixed(2).padStart(8)} ms`;
console.log(`culture presence benchmark, node ${process.version}, two linked InspIRCd servers\n`);
console.log(`(a) state change -> visible on the other server, ${SAMPLES} samples ${GAP_MS} ms apart (min_interval_seconds ${process.env.BENCH_MIN_INTERVAL ?? 0})`);
console.log(`${"".padEnd(58)} ${"min".padStart(8)} ${"p50".padStart(8)} ${"p95".padStart(8)}`);
console.log(`${"baseline: a PRIVMSG on A -> a client on B (the link hop)".padEnd(58)} ${ms(hopSamples)}`);
console.log(`${"mention on A -> running presence line on B".padEnd(58)} ${ms(mentionSamples)}`);
console.log(`${"turn ends (in the daemon) -> idle presence line on B".padEnd(58)} ${ms(idleSamples)}\n`);
console.log(`(b) culture top --interval 1 with ${AGENTS} agents (${top.rows} rows on screen), ${WINDOW_S} s window`);
console.log(`${"top process CPU".padEnd(58)} ${top.cpuPerSecond.toFixed(4).padStart(10)} CPU s/s`);
console.log(`${"bytes written to the terminal per refresh".padEnd(58)} ${Math.round(top.bytesPerRefresh).toString().padStart(10)} B`);
console.log(`${"top process RSS".padEnd(58)} ${top.rss.toFixed(1).padStart(10)} MiB`);
console.log(`${"the 50 daemons answering its status requests".padEnd(58)} ${top.daemonsCpuPerSecond.toFixed(4).padStart(10)} CPU s/s (idle without top: ${top.idleCpu.toFixed(4)})`);

function cpuSeconds(u) {
  return (u.user + u.system) / 1e6;
}
function procTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime: fields 14 and 15 of /proc/<pid>/stat (11 and 12 after the command name).
  return Number(fields[11]) + Number(fields[12]);
}
function clockTicks() {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
}
