#!/usr/bin/env node
// What one agent daemon spends to start, as `culture start` runs it (`culture start <nick>
// --foreground` with the daemon's node flags and its readiness report's channel, the offline
// demo agent over ACP, the embedded server with accounts): its CPU (user+sys) and RSS 2.5 s
// after spawn, when it is up and idle, median of BENCH_RUNS (8). Baselines from the same run, interleaved with it:
//   - `node -e 0`: the cost of any node process;
//   - the floor of a process-per-agent daemon: a node that connects to the same server,
//     registers, joins a channel and spawns one child (`node -e 0`), and nothing else.
// The fleet's start is these costs times the agents, on the machine's cores (bench/fleet.mjs).
// BENCH_DAEMON_FLAGS="a b|c d" compares flag sets (default: the daemon's own,
// packages/cli/src/daemon-flags.ts); BENCH_COMPARE_ROOT=<another checkout, built> runs its
// daemon too, interleaved (a before); BENCH_CONFIG_AGENTS=50 puts 50 agents in its config, as in
// a fleet (the daemon starts the first). Run after `npm run build`:  node bench/daemon-start.mjs
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 8);
/** Agents in the config (BENCH_CONFIG_AGENTS, default 1): the daemon starts the first; a fleet's daemons each read all of them. */
const CONFIG_AGENTS = Number(process.env.BENCH_CONFIG_AGENTS ?? 1);
const WAIT_MS = 2500;
const CLK_TCK = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim() || 100);
const roots = [root, ...(process.env.BENCH_COMPARE_ROOT ? [process.env.BENCH_COMPARE_ROOT] : [])];
/** The flag sets to run each build's daemon with: BENCH_DAEMON_FLAGS, else the node flags that build's `culture start` gives it. */
const flagSetsOf = async (r) =>
  process.env.BENCH_DAEMON_FLAGS
    ? process.env.BENCH_DAEMON_FLAGS.split("|").map((f) => f.trim().split(/\s+/).filter(Boolean))
    : [(await import(join(r, "packages/cli/dist/daemon-flags.js"))).daemonNodeFlags([], "")];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = () => loadavg().map((l) => l.toFixed(2)).join(", ");
/** utime+stime of a live pid, in ms. */
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
}
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

/** Runs argv until it exits (a baseline) and returns the CPU it spent, in ms (cutime of a shell). */
function cpuOfRun(argv) {
  const quoted = argv.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const r = spawnSync("/bin/sh", ["-c", `${quoted} >/dev/null 2>&1; cat /proc/$$/stat`], { encoding: "utf8", env: { PATH: process.env.PATH } });
  const f = r.stdout.slice(r.stdout.lastIndexOf(")") + 2).split(" ");
  return ((Number(f[13]) + Number(f[14])) * 1000) / CLK_TCK;
}

// The floor: connect, register, join, spawn one child, exit once the child has.
const FLOOR = `
const net = require("net"); const { spawn } = require("child_process");
const [port, nick] = [Number(process.argv[1]), process.argv[2]];
const s = net.connect(port, "127.0.0.1"); let buf = "";
s.write("NICK " + nick + "\\r\\nUSER " + nick + " 0 * :" + nick + "\\r\\n");
s.on("data", (d) => { buf += d; let i; while ((i = buf.indexOf("\\r\\n")) >= 0) { const l = buf.slice(0, i); buf = buf.slice(i + 2);
  if (l.startsWith("PING")) s.write("PONG" + l.slice(4) + "\\r\\n");
  if (/ 001 /.test(l)) s.write("JOIN #bench\\r\\n");
  if (l.startsWith(":" + nick + "!") && / JOIN /.test(l)) spawn(process.execPath, ["-e", "0"], { stdio: "ignore" }).on("close", () => process.exit(0)); } });`;

const freePort = async () => {
  const s = createServer();
  await new Promise((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
};

const home = mkdtempSync(join(tmpdir(), "cds-"));
mkdirSync(join(home, "user"));
const env = { PATH: process.env.PATH, CULTURE_HOME: home, HOME: join(home, "user") };
const port = await freePort();
const config = join(home, "agents.yaml");
writeFileSync(config, JSON.stringify({ server: { name: "spark", host: "127.0.0.1", port }, presence: { channel: null }, agents: Array.from({ length: CONFIG_AGENTS }, (_, i) => ({ nick: `spark-a${String(i + 1).padStart(2, "0")}`, agent: "acp", acp_command: [process.execPath, join(root, "packages/cli/dist/demo-agent.cjs")], directory: home, channels: ["#bench"] })) }));
const culture = (args) => spawnSync(process.execPath, [join(root, "packages/cli/dist/main.js"), "--config", config, ...args], { env, encoding: "utf8" });
// A second, open server for the floor (the embedded one requires accounts).
const openPort = await freePort();
const open = spawn(process.execPath, [join(root, "packages/server/dist/main.js"), "--port", String(openPort), "--no-state", "--open", "--log-level", "error"], { stdio: "ignore" });
try {
  if (culture(["server", "start"]).status !== 0) throw new Error("culture server start failed");
  // The first start creates the agent's account; the runs below start with it in place.
  if (culture(["start", "spark-a01"]).status !== 0) throw new Error("culture start failed");
  culture(["stop", "spark-a01"]);
  const cases = [
    { name: "node -e 0", run: async () => ({ cpu: cpuOfRun([process.execPath, "-e", "0"]) }) },
    { name: "floor: a node that registers, joins and spawns one child", run: async (i) => ({ cpu: cpuOfRun([process.execPath, "-e", FLOOR, String(openPort), `floor${i}`]) }) },
  ];
  for (const [ri, r] of roots.entries()) {
    // Each build and flag set keeps its own code cache (bin/daemon-image.cjs keeps one build's
    // and V8 rejects one made with other flags): each gets its own copy of the home (the same
    // account), or every run would compile from source.
    for (const [fi, flags] of (await flagSetsOf(r)).entries()) {
      const ownHome = ri === 0 && fi === 0 ? home : `${home}-${ri}-${fi}`;
      if (ownHome !== home) cpSync(home, ownHome, { recursive: true });
      const ownEnv = { ...env, CULTURE_HOME: ownHome };
      cases.push({
        name: `daemon ${flags.join(" ") || "(no flags)"}${roots.length > 1 ? ` [${r}]` : ""}`,
        run: async () => {
          // The environment `culture start` of that build gives a daemon (daemon-flags.ts daemonEnv).
          const own = await import(join(r, "packages/cli/dist/daemon-flags.js"));
          // The script `culture start` of that build runs (daemon-flags.ts daemonScript).
          const main = join(r, "packages/cli/dist/main.js");
          const script = own.daemonScript?.(main, ownEnv) ?? main;
          // Its readiness report as `culture start` of that build takes it: on fd 3, named by
          // CULTURE_DAEMON_READY_CHANNEL (ready-report.ts), or, before that, Node's IPC channel.
          const fd3 = existsSync(join(r, "packages/cli/src/ready-report.ts"));
          const child = spawn(process.execPath, [...flags, script, "start", "spark-a01", "--foreground", "--config", config], {
            env: { ...ownEnv, ...(own.daemonEnv?.(ownEnv) ?? {}), CULTURE_DAEMON_READY_CHANNEL: fd3 ? "3" : "1" },
            stdio: ["ignore", "ignore", "ignore", fd3 ? "pipe" : "ipc"],
          });
          if (fd3) child.stdio[3].resume();
          else child.on("message", () => undefined);
          await new Promise((res) => setTimeout(res, WAIT_MS));
          const figures = { cpu: cpuMs(child.pid), rss: rssMiB(child.pid) };
          child.kill("SIGTERM");
          await new Promise((res) => child.once("exit", res));
          return figures;
        },
      });
    }
  }
  const results = cases.map(() => ({ cpu: [], rss: [] }));
  for (let i = 0; i < RUNS; i++) {
    for (const [k, c] of cases.entries()) {
      const { cpu, rss } = await c.run(i);
      results[k].cpu.push(cpu);
      if (rss !== undefined) results[k].rss.push(rss);
    }
  }
  console.log(`one daemon's start, node ${process.version}, demo agent (ACP), embedded server; CPU and RSS ${WAIT_MS / 1000} s after spawn, median of ${RUNS} (load average ${load()})`);
  const base = median(results[0].cpu);
  for (const [k, c] of cases.entries()) {
    const cpu = median(results[k].cpu);
    const rss = results[k].rss.length ? `${median(results[k].rss).toFixed(1)} MiB` : "";
    const mean = results[k].cpu.reduce((a, b) => a + b, 0) / results[k].cpu.length;
    console.log(`${c.name.padEnd(60)} ${`${cpu.toFixed(0)} ms`.padStart(8)} ${`${(cpu / base).toFixed(1)}x`.padStart(7)} ${rss.padStart(10)}   mean ${mean.toFixed(1)} ms`);
  }
  console.log(`(CPU is counted in ticks of ${1000 / CLK_TCK} ms: the mean over the runs is finer than the median; x = times node -e 0's CPU)`);
} finally {
  open.kill();
  culture(["server", "stop"]);
  for (const [ri, r] of roots.entries()) for (const [fi] of (await flagSetsOf(r)).entries()) rmSync(`${home}-${ri}-${fi}`, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
}
