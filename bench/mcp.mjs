#!/usr/bin/env node
// One IRC send, four ways, in the same run, against the same live IpcServer (answering like the
// daemon: irc_send accepted, irc_channels listing #general):
//   1. `culture channel send` — a cold process per action (what the shell path costs);
//   2. the `send` tool of `culture mcp` over stdio, called by the MCP SDK's Client (one long-lived server);
//   3. the in-process tool call (core's IrcToolCaller, what Claude's in-process MCP server runs);
//   4. the raw IPC round trip (IpcClient.request on one connection) — the floor.
// Targets (issue 19): stdio MCP tool call p50 < 2 ms and >= 25x faster than the CLI; in-process < 0.5 ms.
// Run after `npm run build`:  node bench/mcp.mjs   (BENCH_RUNS=N for the cold-process runs, default 30)
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";

const root = fileURLToPath(new URL("..", import.meta.url));
const imp = (p) => import(pathToFileURL(join(root, p)).href);
const { IpcServer, silentLogger } = await imp("packages/core/dist/index.js");
const { socketPath } = await imp("packages/core/dist/paths.js");
const { IpcClient } = await imp("packages/core/dist/ipc/ipc-client.js");
const { DaemonLink, IrcToolCaller } = await imp("packages/core/dist/irc-tools/index.js");
// The SDK as the culture package resolves it.
const req = createRequire(join(root, "packages/cli/package.json"));
const { Client } = await import(pathToFileURL(req.resolve("@modelcontextprotocol/sdk/client/index.js")).href);
const { StdioClientTransport } = await import(pathToFileURL(req.resolve("@modelcontextprotocol/sdk/client/stdio.js")).href);

const COLD_RUNS = Number(process.env.BENCH_RUNS ?? 30);
const WARM_RUNS = 2000;
const NICK = "bench-agent";
const runtime = mkdtempSync(join(tmpdir(), "mbench-"));
const env = { PATH: process.env.PATH, HOME: process.env.HOME, XDG_RUNTIME_DIR: runtime, CULTURE_NICK: NICK };
const path = socketPath(NICK, env);
let sends = 0;
const server = new IpcServer({
  path,
  logger: silentLogger,
  handler: async (r) => {
    if (r.type === "irc_channels") return { ok: true, data: { channels: [{ channel: "#general", members: 2 }] } };
    sends++;
    return { ok: true, data: { channel: r.channel, queued: false, lines: 1 } };
  },
});
await server.start();

const p50 = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];
async function timeIt(n, fn) {
  for (let i = 0; i < Math.min(50, n); i++) await fn(); // warm-up
  const out = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}

// 1. cold CLI
const bin = join(root, "packages/cli/bin/culture.cjs");
const cli = [];
for (let i = 0; i < COLD_RUNS; i++) {
  const t = performance.now();
  await new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [bin, "channel", "send", "#general", "hello from the bench"], { env, stdio: "ignore" });
    c.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`culture channel send exited ${code}`))));
  });
  cli.push(performance.now() - t);
}

// 2. stdio MCP
const client = new Client({ name: "bench", version: "0" });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, "mcp"], env }));
const stdio = await timeIt(WARM_RUNS, async () => {
  const r = await client.callTool({ name: "send", arguments: { target: "#general", message: "hello from the bench" } });
  if (r.isError) throw new Error(JSON.stringify(r.content));
});
await client.close();

// 3. in-process tool call
const link = new DaemonLink(NICK, path);
const caller = new IrcToolCaller(link);
const inproc = await timeIt(WARM_RUNS, async () => {
  const r = await caller.call("send", { target: "#general", message: "hello from the bench" });
  if (r.isError) throw new Error(r.text);
});
link.close();

// 4. raw IPC
const raw = await IpcClient.connect(path);
const ipc = await timeIt(WARM_RUNS, () => raw.request("irc_send", { channel: "#general", message: "hello from the bench" }));
raw.close();

await server.stop();
rmSync(runtime, { recursive: true, force: true });

const rows = [
  ["culture channel send (cold process)", cli],
  ["culture mcp send tool (stdio, SDK Client)", stdio],
  ["in-process tool call (IrcToolCaller)", inproc],
  ["raw IPC round trip (IpcClient)", ipc],
];
const base = p50(cli);
console.log(`node ${process.version}, ${COLD_RUNS} cold runs, ${WARM_RUNS} warm calls each; ${sends} sends answered\n`);
console.log(`${"path".padEnd(44)}${"p50 ms".padStart(10)}${"p90 ms".padStart(10)}${"CLI p50 / p50".padStart(16)}`);
for (const [name, xs] of rows) {
  console.log(`${name.padEnd(44)}${p50(xs).toFixed(3).padStart(10)}${p90(xs).toFixed(3).padStart(10)}${(base / p50(xs)).toFixed(1).padStart(15)}x`);
}
