#!/usr/bin/env node
// The IRC side of "never deaf, never lossy", measured against baselines from the same run:
//   (a) a 1 MB irc_send: splitMessage on 1,000,000 characters (ASCII words; emoji + CJK), vs
//       Buffer.from on the same text (one linear pass); and the daemon's IPC answer to a 1 MB
//       irc_send (split, then refused: 2,500 lines exceed the 1,000-line send queue) vs a 1 MB
//       irc_send to a channel it is not in (refused before splitting: IPC + JSON alone).
//       Target: the split well under 100 ms (it was quadratic: 150,000 characters took 25 s).
//   (b) a mention sent while the daemon is reconnecting (its link dropped by a proxy and held
//       down while the mention is sent): time from the link coming back to the prompt, and
//       from the mention to the prompt, vs a live mention's latency in the same run.
// The IRC server is the embedded one in its own process; the daemon runs in this process with
// an in-process runner that answers at once. Run after `npm run build`:
//   node bench/irc-resilience.mjs     (BENCH_ROUNDS=N reconnect rounds, default 10)
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";

const root = fileURLToPath(new URL("..", import.meta.url));
const core = await import(join(root, "packages/core/dist/index.js"));
const testing = await import(join(root, "packages/core/dist/testing/index.js"));
const { IpcClient } = await import(join(root, "packages/core/dist/ipc/ipc-client.js"));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const ms = (x) => `${x.toFixed(1)} ms`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// ---- (a1) splitMessage on 1 MB ----------------------------------------------------------------
const texts = {
  "ASCII words": "word ".repeat(200_000),
  "emoji + CJK": "👍🏽 日本語のテキスト ".repeat(Math.ceil(1_000_000 / 14)).slice(0, 1_000_000),
};
const budget = core.textBudget({ command: "PRIVMSG", target: "#general", nick: "spark-culture" });
console.log(`(a) 1 MB irc_send (text budget ${budget} bytes per line)`);
for (const [name, text] of Object.entries(texts)) {
  const split = [];
  const base = [];
  let lines = 0;
  for (let i = 0; i < 5; i++) {
    let t0 = performance.now();
    Buffer.from(text, "utf8");
    base.push(performance.now() - t0);
    t0 = performance.now();
    lines = core.splitMessage(text, budget).length;
    split.push(performance.now() - t0);
  }
  console.log(`  splitMessage, ${name.padEnd(12)} ${ms(median(split)).padStart(10)} (${lines} lines) | baseline Buffer.from ${ms(median(base))} | ratio ${(median(split) / median(base)).toFixed(1)}x`);
}

// ---- the IRC server and a daemon behind a proxy ---------------------------------------------
const server = spawn(process.execPath, [join(root, "packages/server/dist/main.js"), "--port", "0", "--no-state", "--no-flood-control", "--log-level", "warn"], {
  stdio: ["ignore", "pipe", "inherit"],
});
const port = await new Promise((resolve) => {
  let out = "";
  server.stdout.on("data", (d) => {
    out += d;
    const m = /listening on 127\.0\.0\.1:(\d+)/.exec(out);
    if (m) resolve(Number(m[1]));
  });
});
const proxy = await testing.startTcpProxy({ targetPort: port });

const prompts = [];
class InstantRunner extends core.AgentRunnerBase {
  running = false;
  async start() {
    this.running = true;
  }
  async stop() {
    this.running = false;
  }
  async sendPrompt(text) {
    prompts.push({ at: performance.now(), text });
    await this.onMessage?.({ type: "assistant", content: [] });
  }
  isRunning() {
    return this.running;
  }
  get sessionId() {
    return "bench";
  }
}
const backend = core.defineBackend({ name: "bench", apiVersion: 1, configSchema: (await import("zod")).z.object({}), createRunner: () => new InstantRunner() });
const home = mkdtempSync(join(tmpdir(), "culture-bench-"));
const env = { ...process.env, CULTURE_HOME: home };
delete env.XDG_RUNTIME_DIR;
const config = core.resolveConfig(
  { server: { name: "spark", host: "127.0.0.1", port: proxy.port }, agents: [{ nick: "spark-bench", agent: "bench", channels: ["#bench"], relay: "never" }] },
  { filepath: join(home, "agents.yaml"), env },
);
const daemon = new core.AgentDaemon({
  config, nick: "spark-bench", backend, backendOptions: {}, env, logger: core.silentLogger, writePidFile: false,
  timings: { reconnectMinMs: 200, reconnectMaxMs: 1000 },
});
await daemon.start();

// ---- (a2) the daemon's answer to a 1 MB irc_send ----------------------------------------------
const ipc = await IpcClient.connect(core.socketPath("spark-bench", env));
const huge = texts["ASCII words"];
const full = [];
const refused = [];
for (let i = 0; i < 5; i++) {
  let t0 = performance.now();
  await ipc.request("irc_send", { channel: "#not-joined", message: huge }, { timeoutMs: 0 });
  refused.push(performance.now() - t0);
  t0 = performance.now();
  const r = await ipc.request("irc_send", { channel: "#bench", message: huge }, { timeoutMs: 0 });
  full.push(performance.now() - t0);
  if (i === 0) console.log(`  daemon answer to a 1 MB irc_send to #bench: ${r.ok ? "ok" : r.error}`);
}
console.log(`  IPC irc_send 1 MB, split + refused ${ms(median(full)).padStart(10)} | baseline (refused before splitting) ${ms(median(refused))} | ratio ${(median(full) / median(refused)).toFixed(2)}x`);

// ---- (b) a mention during a reconnect ------------------------------------------------------
const human = await testing.connectRawClient(port, "human");
await human.join("#bench");
const waitPrompt = async (marker) => {
  for (;;) {
    const p = prompts.find((x) => x.text.includes(marker));
    if (p) return p.at;
    await new Promise((r) => setTimeout(r, 1));
  }
};
const live = [];
const fromBack = [];
const fromSent = [];
for (let i = 0; i < ROUNDS; i++) {
  let t0 = performance.now();
  human.send(`PRIVMSG #bench :@spark-bench live ${i}`);
  live.push((await waitPrompt(`live ${i}`)) - t0);
  proxy.block();
  proxy.drop();
  await human.waitFor((_l, p) => p.command === "QUIT" && p.nick === "spark-bench");
  t0 = performance.now();
  human.send(`PRIVMSG #bench :@spark-bench missed ${i}`);
  human.send("PING :sync");
  await human.waitFor((_l, p) => p.command === "PONG");
  const back = performance.now();
  proxy.unblock();
  const at = await waitPrompt(`missed ${i}`);
  fromBack.push(at - back);
  fromSent.push(at - t0);
  await human.waitFor((_l, p) => p.command === "JOIN" && p.nick === "spark-bench");
}
const count = (m) => prompts.filter((p) => p.text.includes(m)).length;
const dupes = Array.from({ length: ROUNDS }, (_, i) => count(`missed ${i} `) + count(`missed ${i}\n`)).filter((n) => n > 1).length;
console.log(`(b) mention sent during a reconnect, ${ROUNDS} rounds (reconnect backoff 200 ms .. 1 s)`);
console.log(`  link back -> prompt   p50 ${ms(median(fromBack))}  max ${ms(Math.max(...fromBack))}`);
console.log(`  mention -> prompt     p50 ${ms(median(fromSent))}  max ${ms(Math.max(...fromSent))}`);
console.log(`  baseline: live mention -> prompt p50 ${ms(median(live))} | ratio (link back -> prompt) ${(median(fromBack) / median(live)).toFixed(0)}x`);
console.log(`  delivered: ${fromBack.length}/${ROUNDS}, duplicates: ${dupes}`);

await human.close();
ipc.close();
await daemon.stop();
await proxy.close();
server.kill();
rmSync(home, { recursive: true, force: true });
process.exit(0);
