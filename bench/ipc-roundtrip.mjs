#!/usr/bin/env node
// Round trip of one IPC request on an open connection (IpcClient -> IpcServer -> handler ->
// response), compared with a bare line echo over a Unix socket measured in the same run.
// Target: p50 < 1 ms.  Run after `npm run build`:  node bench/ipc-roundtrip.mjs  (BENCH_N=N)
import { createServer, connect } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";

const root = fileURLToPath(new URL("..", import.meta.url));
const { IpcServer, silentLogger } = await import(join(root, "packages/core/dist/index.js"));
const { IpcClient } = await import(join(root, "packages/core/dist/ipc/ipc-client.js"));

const N = Number(process.env.BENCH_N ?? 5000);
const WARMUP = 500;
const dir = mkdtempSync(join(tmpdir(), "cbench-"));

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { p50: q(0.5), p99: q(0.99), max: s[s.length - 1] };
}

async function measure(roundTrip) {
  for (let i = 0; i < WARMUP; i++) await roundTrip(i);
  const samples = new Array(N);
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    await roundTrip(i);
    samples[i] = performance.now() - t0;
  }
  return stats(samples);
}

// Baseline: a line echo server and a client that waits for each line.
const echoPath = join(dir, "echo.sock");
const echo = createServer((s) => s.on("data", (d) => s.write(d)));
await new Promise((r) => echo.listen(echoPath, r));
const raw = connect({ path: echoPath });
await new Promise((r) => raw.once("connect", r));
let waiting = null;
let buf = "";
raw.setEncoding("utf8");
raw.on("data", (d) => {
  buf += d;
  if (buf.endsWith("\n")) {
    buf = "";
    waiting?.();
  }
});
const rawLine = JSON.stringify({ type: "status", id: "00000000-0000-4000-8000-000000000000" }) + "\n";
const baseline = await measure(() => new Promise((r) => { waiting = r; raw.write(rawLine); }));
raw.destroy();
await new Promise((r) => echo.close(r));

// culture: IpcClient.request against IpcServer with a trivial handler.
const server = new IpcServer({
  path: join(dir, "d.sock"),
  logger: silentLogger,
  handler: async (req) => ({ ok: true, data: { running: true, n: req.n ?? null } }),
});
await server.start();
const client = await IpcClient.connect(join(dir, "d.sock"));
const ipc = await measure(async (i) => {
  const res = await client.request("status", { n: i });
  if (!res.ok || res.data.n !== i) throw new Error("bad answer");
});
client.close();
await server.stop();
rmSync(dir, { recursive: true, force: true });

console.log(`IPC round trip on an open connection, ${N} requests after ${WARMUP} warm-up, node ${process.version}\n`);
console.log(`${"case".padEnd(40)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"max ms".padStart(8)}`);
for (const [name, s] of [["bare line echo over a Unix socket", baseline], ["IpcClient.request -> IpcServer", ipc]]) {
  console.log(`${name.padEnd(40)} ${s.p50.toFixed(3).padStart(8)} ${s.p99.toFixed(3).padStart(8)} ${s.max.toFixed(3).padStart(8)}`);
}
console.log(`\np50 ratio vs bare echo: ${(ipc.p50 / baseline.p50).toFixed(2)}x; p50 ${ipc.p50.toFixed(3)} ms (target < 1 ms: ${ipc.p50 < 1 ? "met" : "NOT met"})`);
