#!/usr/bin/env node
// What a sandbox costs an agent (issue #29), each mode measured in the same run against `none`:
//   - agent start: spawn -> the agent's first line ("ready"), a small node agent, cold each time;
//   - a tool call: `culture channel send` run by the agent (a cold CLI process inside the box,
//     over the bound IRC-tools socket) against a live IpcServer answering like the daemon;
//   - a model API call: an HTTP GET from the agent to a loopback server outside (with
//     `network: off` it goes through the egress bridge: the forwarder's tunnel and the proxy).
// Modes: none, bwrap (network on), bwrap network off (the egress bridge), podman (run only
// where `podman run` works; otherwise the line says why, from culture doctor's own check).
// Run after `npm run build`:  node bench/sandbox.mjs   (BENCH_RUNS=N agent starts, default 10)
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";

const root = fileURLToPath(new URL("..", import.meta.url));
const imp = (p) => import(pathToFileURL(join(root, p)).href);
const core = await imp("packages/core/dist/index.js");
const { IpcServer, silentLogger, agentSandboxFor, withEgressBridge, closeEgressBridge, sandboxSchema, podmanDoctorChecks } = core;
const { socketPath } = await imp("packages/core/dist/paths.js");

const STARTS = Number(process.env.BENCH_RUNS ?? 10);
const SENDS = 20;
const GETS = 200;
const NICK = "bench-box";
const tmp = mkdtempSync(join(tmpdir(), "sbench-"));
const home = join(tmp, "culture");
const directory = join(tmp, "agent");
const bin = join(tmp, "bin");
for (const d of [join(home, "run"), directory, bin]) mkdirSync(d, { recursive: true, mode: 0o700 });
symlinkSync(join(root, "packages/cli/bin/culture.cjs"), join(bin, "culture"));
const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, CULTURE_HOME: home, CULTURE_NICK: NICK };
delete env.XDG_RUNTIME_DIR;

let sends = 0;
const server = new IpcServer({
  path: socketPath(NICK, env),
  logger: silentLogger,
  handler: async (r) => {
    if (r.type === "irc_channels") return { ok: true, data: { channels: [{ channel: "#general", members: 2 }] } };
    sends++;
    return { ok: true, data: { channel: r.channel, queued: false, lines: 1 } };
  },
});
await server.start();
const model = createServer((_req, res) => res.end("ok"));
await new Promise((r) => model.listen(0, "127.0.0.1", r));
const modelUrl = `http://127.0.0.1:${model.address().port}`;

// The agent: says ready, then per stdin line runs one tool call or one model API call and prints its ms.
const AGENT = String.raw`
const { spawnSync } = require("node:child_process");
const http = require("node:http");
const rl = require("node:readline").createInterface({ input: process.stdin });
const agent = new http.Agent({ keepAlive: false });
console.log("ready");
rl.on("line", (line) => {
  const t = performance.now();
  if (line === "send") {
    const r = spawnSync("culture", ["channel", "send", "#general", "hello from the bench"], { encoding: "utf8" });
    if (r.status !== 0) { console.log("error " + (r.stderr || r.error)); return; }
    console.log((performance.now() - t).toFixed(3));
  } else if (line === "get") {
    http.get(process.env.MODEL_URL + "/v1/models", { agent }, (res) => { res.resume(); res.on("end", () => console.log((performance.now() - t).toFixed(3))); })
      .on("error", (e) => console.log("error " + e.message));
  }
});`;

function sandboxFor(spec) {
  if (spec === null) return null;
  const parsed = sandboxSchema.parse(spec);
  const agent = { nick: NICK, directory, sandbox: parsed };
  const box = agentSandboxFor({ nick: NICK, config: { agents: [agent], filepath: null, sandbox: parsed }, agent, backend: {}, backendOptions: {}, env, permissions: { protected_paths: [] } });
  return parsed.network === "off" ? withEgressBridge(box, { nick: NICK, backend: "claude", backendOptions: {}, env, allow: [] }) : box;
}

function startAgent(box) {
  const agentEnv = { ...env, ANTHROPIC_BASE_URL: modelUrl, MODEL_URL: modelUrl };
  const argv = [process.execPath, "-e", AGENT];
  const cmd = box ? box.command(argv, agentEnv) : { argv, env: agentEnv };
  const t = performance.now();
  const child = spawn(cmd.argv[0], cmd.argv.slice(1), { env: cmd.env, cwd: directory, stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout });
  const queue = [];
  lines.on("line", (l) => queue.shift()?.(l));
  const next = () => new Promise((resolve) => queue.push(resolve));
  return {
    ready: next().then((l) => {
      if (l !== "ready") throw new Error(`agent said ${l}`);
      return performance.now() - t;
    }),
    async ask(what) {
      const answer = next();
      child.stdin.write(`${what}\n`);
      const l = await answer;
      if (l.startsWith("error")) throw new Error(l);
      return Number(l);
    },
    stop: () => new Promise((r) => (child.once("exit", r), child.stdin.end())),
  };
}

const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const modes = [
  ["none", null],
  ["bwrap (network on)", { kind: "bwrap" }],
  ["bwrap, network off (egress bridge)", { kind: "bwrap", network: "off" }],
];
const results = [];
for (const [name, spec] of modes) {
  const box = sandboxFor(spec);
  const starts = [];
  for (let i = 0; i < STARTS; i++) {
    const a = startAgent(box);
    starts.push(await a.ready);
    await a.stop();
  }
  const a = startAgent(box);
  await a.ready;
  await a.ask("send"); // warm-up (page cache)
  const tool = [];
  for (let i = 0; i < SENDS; i++) tool.push(await a.ask("send"));
  for (let i = 0; i < 20; i++) await a.ask("get");
  const gets = [];
  for (let i = 0; i < GETS; i++) gets.push(await a.ask("get"));
  await a.stop();
  results.push({ name, start: p50(starts), tool: p50(tool), get: p50(gets) });
}
await closeEgressBridge(NICK, env);

const podman = await podmanDoctorChecks();
const podmanLine = podman.every((c) => c.ok) ? "podman run works here: add it to this bench" : `podman: not measured, ${podman.find((c) => !c.ok).detail.split("\n").join(" ")}`;

await server.stop();
model.close();
rmSync(tmp, { recursive: true, force: true });

const base = results[0];
console.log(`node ${process.version}; p50 of ${STARTS} agent starts, ${SENDS} tool calls (culture channel send, cold CLI), ${GETS} model API calls (HTTP GET, new connection each); ${sends} sends answered\n`);
console.log(`${"mode".padEnd(38)}${"start ms".padStart(10)}${"x none".padStart(8)}${"tool ms".padStart(10)}${"x none".padStart(8)}${"model ms".padStart(10)}${"x none".padStart(8)}`);
for (const r of results) {
  console.log(
    `${r.name.padEnd(38)}${r.start.toFixed(1).padStart(10)}${(r.start / base.start).toFixed(2).padStart(8)}${r.tool.toFixed(1).padStart(10)}${(r.tool / base.tool).toFixed(2).padStart(8)}${r.get.toFixed(3).padStart(10)}${(r.get / base.get).toFixed(2).padStart(8)}`,
  );
}
console.log(`\n${podmanLine}`);
