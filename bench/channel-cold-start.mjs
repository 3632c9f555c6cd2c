#!/usr/bin/env node
// Cold start of `culture channel send` (the agent runs it on every IRC action) against a live
// IpcServer, compared with `node -e 0` measured in the same run. Target: median <= 1.5x
// (issue 30: <= 1.15x). With python3 on the PATH, a minimal Python client doing the same
// round trip (connect, one request line, read the answer) is measured too, for reference.
// Run after `npm run build`:  node bench/channel-cold-start.mjs   (BENCH_RUNS=N to change N;
// BENCH_COMPARE_BIN=<path to another build's bin/culture.cjs> adds it as a case)
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";

const root = fileURLToPath(new URL("..", import.meta.url));
const { IpcServer, silentLogger } = await import(join(root, "packages/core/dist/index.js"));
const { socketPath } = await import(join(root, "packages/core/dist/paths.js"));

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const NICK = "bench-agent";
const runtime = mkdtempSync(join(tmpdir(), "cbench-"));
const env = { PATH: process.env.PATH, HOME: process.env.HOME, XDG_RUNTIME_DIR: runtime, CULTURE_NICK: NICK };
let requests = 0;
const server = new IpcServer({
  path: socketPath(NICK, env),
  logger: silentLogger,
  handler: async () => {
    requests++;
    return { ok: true, data: { queued: false } };
  },
});
await server.start();

const cases = [
  { name: "node -e 0 (baseline)", args: ["-e", "0"] },
  // What an agent runs: the `culture` bin (bin/culture.cjs, CommonJS, one bundled file).
  { name: "culture channel send", args: [join(root, "packages/cli/bin/culture.cjs"), "channel", "send", "#general", "hello from the bench"] },
  { name: "  via the ESM entry (dist/main.js)", args: [join(root, "packages/cli/dist/main.js"), "channel", "send", "#general", "hello from the bench"] },
  // The floor for a CommonJS client like bin/culture.cjs: a file that connects, sends one line,
  // waits for the answer and exits, nothing else (written to the runtime dir below).
  { name: "floor: bare CJS socket round trip (a file)", args: [floorFile()] },
  // The floor for any ESM client: connect, send one line, wait for the answer, nothing else.
  {
    name: "floor: bare ESM socket round trip",
    args: [
      "--input-type=module",
      "-e",
      `import { connect } from "node:net"; const s = connect(${JSON.stringify(socketPath(NICK, env))}); ` +
        `s.on("data", () => s.destroy()); s.write('{"type":"irc_send","id":"1","channel":"#general","message":"x"}\\n');`,
    ],
  },
  ...pythonCase(),
  // BENCH_COMPARE_BIN=<another checkout>/packages/cli/bin/culture.cjs: a before/after in one run.
  ...(process.env.BENCH_COMPARE_BIN ? [{ name: "culture channel send (BENCH_COMPARE_BIN)", args: [process.env.BENCH_COMPARE_BIN, "channel", "send", "#general", "hello from the bench"] }] : []),
  { name: "node importing the @culture/core barrel (for scale)", args: ["--input-type=module", "-e", `await import(${JSON.stringify(join(root, "packages/core/dist/index.js"))})`] },
];

/** A minimal CommonJS client in a file: node:net only, exit once answered. */
function floorFile() {
  const file = join(runtime, "floor-client.cjs");
  writeFileSync(
    file,
    `const s = require("node:net").connect(${JSON.stringify(socketPath(NICK, env))});\n` +
      `s.on("data", () => process.exit(0));\n` +
      `s.write('{"type":"irc_send","id":"1","channel":"#general","message":"x"}\\n');\n`,
  );
  return file;
}

/** The Python reference client, run by the real interpreter (not a version manager's shim). */
function pythonCase() {
  const found = spawnSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" });
  if (found.status !== 0) return [];
  const python = found.stdout.trim();
  const code =
    `import socket; s = socket.socket(socket.AF_UNIX); s.connect(${JSON.stringify(socketPath(NICK, env))}); ` +
    `s.sendall(b'{"type":"irc_send","id":"1","channel":"#general","message":"hello from the bench"}\\n'); s.recv(65536)`;
  return [{ name: "reference: python3 client (same round trip)", command: python, args: ["-c", code] }];
}

/**
 * Each case's CPU time (median and mean ms of user + sys over RUNS interleaved runs), measured by
 * python3's os.wait4 (Node cannot read a child's rusage); null without python3.
 */
async function cpuTimes() {
  if (!cases.some((c) => c.command)) return null; // no python3 found (pythonCase)
  const code = `
import json, os, statistics, sys
cases = json.loads(sys.argv[1]); runs = int(sys.argv[2]); null = os.open(os.devnull, os.O_RDWR)
def once(argv, env):
    pid = os.fork()
    if pid == 0:
        for fd in (0, 1, 2): os.dup2(null, fd)
        os.execve(argv[0], argv, env)
    _, status, ru = os.wait4(pid, 0)
    if status != 0: sys.exit("%s exited %d" % (argv, status))
    return (ru.ru_utime + ru.ru_stime) * 1000
times = [[] for _ in cases]
for _ in range(runs):
    for k, (argv, env) in enumerate(cases): times[k].append(once(argv, env))
print(json.dumps([[statistics.median(t), statistics.mean(t)] for t in times]))`;
  const argvs = cases.map((c) => [[c.command ?? process.execPath, ...c.args], { ...env, ...c.env }]);
  const child = spawn(cases.find((c) => c.command).command, ["-c", code, JSON.stringify(argvs), String(RUNS)], { env, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  const status = await new Promise((r) => child.on("exit", r));
  if (status !== 0) throw new Error(`the CPU time pass failed (exit ${status})`);
  return JSON.parse(out);
}

// Spawned asynchronously: the server answering the CLI lives in this process.
function once(args, command = process.execPath, caseEnv = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(command, args, { env: { ...env, ...caseEnv }, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${args.join(" ")} exited ${code}: ${stderr}`))));
  });
}

try {
  for (const c of cases) for (let i = 0; i < 3; i++) await once(c.args, c.command, c.env); // warm the file cache
  const times = cases.map(() => []);
  for (let i = 0; i < RUNS; i++) for (const [k, c] of cases.entries()) times[k].push(await once(c.args, c.command, c.env)); // interleaved
  const stats = times.map((t) => {
    const s = [...t].sort((a, b) => a - b);
    const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
    return { min: s[0], median: q(0.5), p90: q(0.9) };
  });
  const base = stats[0].median;
  console.log(`culture channel cold start, ${RUNS} runs each (interleaved), node ${process.version}\n`);
  console.log(`${"case".padEnd(52)} ${"min ms".padStart(8)} ${"median".padStart(8)} ${"p90".padStart(8)} ${"x base".padStart(7)}`);
  for (const [k, c] of cases.entries()) {
    const s = stats[k];
    console.log(`${c.name.padEnd(52)} ${s.min.toFixed(1).padStart(8)} ${s.median.toFixed(1).padStart(8)} ${s.p90.toFixed(1).padStart(8)} ${(s.median / base).toFixed(2).padStart(7)}`);
  }
  const cpu = await cpuTimes();
  if (cpu) {
    console.log(`\nCPU time (user + sys, all threads; wait4 in python3), ${RUNS} runs each (interleaved): steadier than wall time on a busy machine`);
    console.log(`${"case".padEnd(52)} ${"median".padStart(8)} ${"mean".padStart(8)} ${"x base".padStart(7)}`);
    for (const [k, c] of cases.entries()) {
      const [median, mean] = cpu[k];
      console.log(`${c.name.padEnd(52)} ${median.toFixed(2).padStart(8)} ${mean.toFixed(2).padStart(8)} ${(median / cpu[0][0]).toFixed(2).padStart(7)}`);
    }
  }
  const ratio = stats[1].median / base;
  console.log(`\nchannel send median / node -e 0 median = ${ratio.toFixed(2)}x wall (target <= 1.5x: ${ratio <= 1.5 ? "met" : "NOT met"}; issue 30's <= 1.15x: ${ratio <= 1.15 ? "met" : "NOT met"}); load average ${loadavg().map((l) => l.toFixed(2)).join(", ")}`);
  if (cpu) {
    const cpuRatio = cpu[1][0] / cpu[0][0];
    console.log(`in CPU time (issue 30's measure): ${cpuRatio.toFixed(2)}x (<= 1.15x: ${cpuRatio <= 1.15 ? "met" : "NOT met"}); the bare CommonJS client ${(cpu[cases.findIndex((c) => c.name.startsWith("floor: bare CJS"))][0] / cpu[0][0]).toFixed(2)}x`);
  }
  if (requests < RUNS) throw new Error(`the server saw ${requests} requests, expected at least ${RUNS}`);
} finally {
  await server.stop();
  rmSync(runtime, { recursive: true, force: true });
}
