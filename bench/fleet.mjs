#!/usr/bin/env node
// A fleet on one machine, the way a user runs it: the embedded IRC server (`culture server
// start`, accounts required) and BENCH_FLEET agents (default "10,50") of the offline demo agent
// (ACP, the one `culture demo` runs), all through the built `culture` binary:
//   - `culture start --all` until every daemon reported joined (first start: the accounts are
//     generated and the daemons' code cache made; second start: they exist), and `culture stop
//     --all`; then one more start without the code cache, as after an upgrade of culture;
//   - idle RSS and PSS per daemon and in total, and of the demo agents behind them (PSS divides
//     each shared page among the processes that map it: the node executable's pages are shared
//     by every daemon and agent, so PSS is what one more of them really costs the machine);
//   - the CPU the `culture start` process itself spent (user+sys), beside the daemons' and agents';
//   - the server's RSS, and the CPU it spent on the start (the logins);
// beside baselines from the same run: `node -e 0` (the cost of starting one node process) and
// the RSS of a bare idle `node`. Run after `npm run build`:  node bench/fleet.mjs
// BENCH_FLEET=20 node bench/fleet.mjs  runs one size; BENCH_REPEAT=3 repeats each start;
// BENCH_PARALLEL=8 passes --parallel 8.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";

const root = fileURLToPath(new URL("..", import.meta.url));
const MAIN = join(root, "packages/cli/dist/main.js");
const DEMO_AGENT = join(root, "packages/cli/dist/demo-agent.cjs");
const SIZES = (process.env.BENCH_FLEET ?? "10,50").split(",").map(Number);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 1);
/** `culture start --all --parallel <n>` (default: culture's own, 2 per core). */
const PARALLEL = process.env.BENCH_PARALLEL ? ["--parallel", process.env.BENCH_PARALLEL] : [];
const CLK_TCK = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim() || 100);

const mib = (kib) => (kib / 1024).toFixed(1);
const secs = (ms) => (ms / 1000).toFixed(2);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** VmRSS of a pid, in KiB (0 when gone). */
function rssKiB(pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Pss of a pid from /proc/<pid>/smaps_rollup, in KiB (0 when gone or unreadable). */
function pssKiB(pid) {
  try {
    return Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** utime+stime of a pid, in ms. */
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
}

/** The children of a pid. */
function childrenOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function freePort() {
  const s = createServer();
  await new Promise((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

function culture(env, args) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [MAIN, ...args], { env, encoding: "utf8", timeout: 180_000 });
  return { ms: performance.now() - t0, code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Like culture(), run by a shell that prints its own /proc stat after the command: its
 * cutime+cstime is the CPU the culture process spent (the daemons it starts are detached and
 * never reaped by it, so theirs is not in it).
 */
function cultureTimed(env, args) {
  const t0 = performance.now();
  const quoted = [process.execPath, MAIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const r = spawnSync("/bin/sh", ["-c", `${quoted} 2>&3; code=$?; cat /proc/$$/stat >&4; exit $code`], { env, encoding: "utf8", timeout: 180_000, stdio: ["ignore", "pipe", "pipe", "pipe", "pipe"] });
  const ms = performance.now() - t0;
  const stat = r.output[4] ?? "";
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { ms, code: r.status, stdout: r.stdout, stderr: r.output[3] ?? "", cpuMs: ((Number(f[13]) + Number(f[14])) * 1000) / CLK_TCK };
}

// ---- baselines -------------------------------------------------------------------------------
const nodeStarts = [];
const nodeCpu = [];
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  const r = spawnSync("/bin/sh", ["-c", `"${process.execPath}" -e 0; cat /proc/$$/stat`], { encoding: "utf8" });
  nodeStarts.push(performance.now() - t0);
  // cutime+cstime of the shell: the CPU the node process spent.
  const f = r.stdout.slice(r.stdout.lastIndexOf(")") + 2).split(" ");
  nodeCpu.push(((Number(f[13]) + Number(f[14])) * 1000) / CLK_TCK);
}
const idle = spawn(process.execPath, ["-e", "setInterval(() => {}, 1e6); process.send?.('up')"], { stdio: ["ignore", "ignore", "ignore", "ipc"] });
await new Promise((r) => idle.once("message", r));
await new Promise((r) => setTimeout(r, 200));
const bareRss = rssKiB(idle.pid);
const barePss = pssKiB(idle.pid);
idle.kill();
console.log(`machine: ${cpus().length} cores, node ${process.version}`);
console.log(`baseline: node -e 0 ${median(nodeStarts).toFixed(0)} ms (median of 5, CPU ${median(nodeCpu).toFixed(0)} ms); a bare idle node holds ${mib(bareRss)} MiB RSS, ${mib(barePss)} MiB PSS (shared pages split among every node process on the machine)`);

// ---- fleets ----------------------------------------------------------------------------------
let failed = false;
for (const n of SIZES) {
  const home = mkdtempSync(join(tmpdir(), "cfb-"));
  const env = { ...process.env, CULTURE_HOME: home, HOME: join(home, "user") };
  delete env.XDG_RUNTIME_DIR;
  delete env.CULTURE_CONFIG;
  mkdirSync(join(home, "user"));
  const port = await freePort();
  const configPath = join(home, "agents.yaml");
  const nicks = Array.from({ length: n }, (_, i) => `spark-a${String(i + 1).padStart(2, "0")}`);
  const config = {
    server: { name: "spark", host: "127.0.0.1", port },
    presence: { channel: null },
    agents: nicks.map((nick) => ({ nick, agent: "acp", acp_command: [process.execPath, DEMO_AGENT], directory: home, channels: ["#general"] })),
  };
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  const c = (args) => culture(env, ["--config", configPath, ...args]);
  try {
    const up = c(["server", "start"]);
    if (up.code !== 0) throw new Error(`server start failed: ${up.stderr}`);
    const serverPid = Number(readFileSync(join(home, "pids", "server.pid"), "utf8").split("\n")[0]);
    console.log(`\n${n} agents (demo agent over ACP) on the embedded server, 127.0.0.1:${port}`);
    for (let round = 0; round < 2 + REPEAT; round++) {
      const fresh = round === 1 + REPEAT;
      // The last start: as the first after an upgrade of culture (a new build has no code cache).
      if (fresh) rmSync(join(home, "cache"), { recursive: true, force: true });
      const label = round === 0 ? "first start (accounts generated)" : fresh ? "start without the code cache   " : "start again (accounts exist)   ";
      const cpu0 = cpuMs(serverPid);
      const start = cultureTimed(env, ["--config", configPath, "start", "--all", ...PARALLEL]);
      const serverCpu = cpuMs(serverPid) - cpu0;
      const started = (start.stdout.match(/^Started /gm) ?? []).length;
      if (start.code !== 0 || started !== n) {
        failed = true;
        console.log(`  ${label}: FAILED, exit ${start.code}, ${started}/${n} started in ${secs(start.ms)} s\n${start.stderr.split("\n").slice(0, 12).join("\n")}`);
      } else {
        console.log(`  ${label}: ${secs(start.ms)} s (${(start.ms / median(nodeStarts)).toFixed(1)}x node -e 0; ${(start.ms / n).toFixed(0)} ms per agent); culture start's own CPU ${start.cpuMs.toFixed(0)} ms; server CPU ${serverCpu.toFixed(0)} ms`);
      }
      const sum = (xs) => xs.reduce((a, b) => a + b, 0);
      const daemonPidsNow = () => readdirSync(join(home, "pids")).filter((f) => f.startsWith("agent-")).map((f) => Number(readFileSync(join(home, "pids", f), "utf8").split("\n")[0]));
      if (fresh) {
        // Steadier than the wall time on a busy machine: what compiling without the cache cost.
        await new Promise((r) => setTimeout(r, 1000));
        const daemonCpu = daemonPidsNow().map(cpuMs);
        console.log(`  CPU spent by the daemons of that start: ${secs(sum(daemonCpu))} s (median ${median(daemonCpu).toFixed(0)} ms each)`);
      }
      if (round === REPEAT) {
        await new Promise((r) => setTimeout(r, 1000));
        const daemonPids = daemonPidsNow();
        const daemonRss = daemonPids.map(rssKiB);
        const daemonPss = daemonPids.map(pssKiB);
        const agentPids = daemonPids.flatMap(childrenOf);
        const agentRss = agentPids.map(rssKiB);
        const agentPss = agentPids.map(pssKiB);
        // Where the start's time goes on a machine this size: the CPU each process spent.
        const daemonCpu = daemonPids.map(cpuMs);
        const agentCpu = agentPids.map(cpuMs);
        console.log(`  CPU spent (all since spawn, by now idle): daemons ${secs(sum(daemonCpu))} s (median ${median(daemonCpu).toFixed(0)} ms each), demo agents ${secs(sum(agentCpu))} s (median ${agentCpu.length ? median(agentCpu).toFixed(0) : "-"} ms each); / ${cpus().length} cores = ${secs((sum(daemonCpu) + sum(agentCpu)) / cpus().length)} s`);
        const total = sum(daemonRss);
        console.log(`  idle daemon RSS: median ${mib(median(daemonRss))} MiB (${mib(Math.min(...daemonRss))}-${mib(Math.max(...daemonRss))}; ${(median(daemonRss) / bareRss).toFixed(2)}x a bare node), total ${mib(total)} MiB for ${daemonRss.length}`);
        console.log(`  idle daemon PSS: median ${mib(median(daemonPss))} MiB, total ${mib(sum(daemonPss))} MiB for ${daemonPss.length}`);
        if (agentRss.length) console.log(`  idle demo agent RSS: median ${mib(median(agentRss))} MiB, total ${mib(sum(agentRss))} MiB for ${agentRss.length}; PSS median ${mib(median(agentPss))} MiB, total ${mib(sum(agentPss))} MiB`);
        console.log(`  server RSS: ${mib(rssKiB(serverPid))} MiB, CPU since it started ${cpuMs(serverPid).toFixed(0)} ms`);
      }
      const stop = c(["stop", "--all"]);
      if (stop.code !== 0) {
        failed = true;
        console.log(`  stop --all: FAILED, exit ${stop.code}: ${stop.stderr}`);
      } else console.log(`  stop --all: ${secs(stop.ms)} s`);
    }
  } finally {
    c(["stop", "--all"]);
    c(["server", "stop"]);
    rmSync(home, { recursive: true, force: true });
  }
}
process.exit(failed ? 1 : 0);
