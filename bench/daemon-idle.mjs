#!/usr/bin/env node
// What an idle agent daemon costs in memory, as `culture start` runs it: the real daemon
// process (`culture start <nick> --foreground`, with the detached daemon's V8 flags) running
// the offline demo agent (ACP) on the embedded IRC server, measured after it has joined and sat
// idle, next to a bare `node` that does nothing, measured in the same run.
//   (a) the daemon's RSS idle (VmRSS) and its private part (anonymous pages), vs bare node:
//       3 s after it is up, and settled (the lowest in the next BENCH_SETTLE_MS, default 20 s:
//       V8's memory reducer shrinks the heap of a quiet process 8-10 s after start-up's last
//       full collection, so that is what an idle daemon holds for the hours it waits).
//       Target: RSS <= 55 MiB (issue 30).
//   (b) what each import costs in a fresh node (RSS and V8 heap after a collection, each
//       module added to the ones before it, in the order the daemon loads them): where the
//       megabytes come from.
// Run after `npm run build`:  node bench/daemon-idle.mjs   (BENCH_IDLE_MS, default 3000;
// BENCH_DAEMON_FLAGS to try other node flags for the daemon instead of its own, e.g. "--max-semi-space-size=2 --lite-mode")
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 3000);
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 20000);
// The flags `culture start` gives a detached daemon (packages/cli/src/daemon-flags.ts).
const { daemonEnv, daemonNodeFlags, daemonScript } = await import(join(root, "packages/cli/dist/daemon-flags.js"));
const DAEMON_FLAGS = process.env.BENCH_DAEMON_FLAGS ? process.env.BENCH_DAEMON_FLAGS.split(" ") : daemonNodeFlags([], "");
const mib = (kib) => kib / 1024;

/** VmRSS and the anonymous (private, not file-backed) part of a live process, in KiB. */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const rss = Number(/^VmRSS:\s+(\d+)/m.exec(status)[1]);
  const anon = Number(/^RssAnon:\s+(\d+)/m.exec(status)[1]);
  return { rss, anon };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Starts a process and resolves once `ready` matches its output. */
function startUntil(args, ready, env = process.env) {
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  return new Promise((resolve, reject) => {
    const on = (d) => {
      out += d;
      const m = ready.exec(out);
      if (m) resolve({ child, match: m });
    };
    child.stdout.on("data", on);
    child.stderr.on("data", on);
    child.on("exit", (code) => reject(new Error(`${args.join(" ")} exited ${code} before it was ready:\n${out}`)));
  });
}

const load = () => loadavg().map((l) => l.toFixed(2)).join(", ");
const home = mkdtempSync(join(tmpdir(), "culture-idle-"));
const env = { ...process.env, CULTURE_HOME: home, XDG_RUNTIME_DIR: home };
const children = [];
try {
  // ---- (a) the idle daemon vs bare node -----------------------------------------------------
  const { child: server, match } = await startUntil(
    [join(root, "packages/server/dist/main.js"), "--port", "0", "--no-state", "--log-level", "warn"],
    /listening on 127\.0\.0\.1:(\d+)/,
  );
  children.push(server);
  const port = Number(match[1]);
  const nick = "spark-idle";
  const config = join(home, "agents.yaml");
  const demoAgent = join(root, "packages/cli/dist/demo-agent.cjs");
  writeFileSync(
    config,
    `server: { name: spark, host: 127.0.0.1, port: ${port} }\n` +
      `agents:\n  - nick: ${nick}\n    agent: acp\n    acp_command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(demoAgent)}]\n    channels: ["#bench"]\n`,
  );
  const bare = spawn(process.execPath, [...DAEMON_FLAGS, "-e", "setInterval(() => {}, 1 << 30)"], { stdio: "ignore" });
  children.push(bare);
  // The script `culture start` runs a daemon with (daemon-flags.ts daemonScript).
  const daemonArgv = [...DAEMON_FLAGS, daemonScript(join(root, "packages/cli/dist/main.js")), "start", nick, "--foreground", "--config", config];
  // The environment `culture start` gives a daemon (daemon-flags.ts daemonEnv).
  const daemonEnvironment = { ...env, ...(daemonEnv?.(env) ?? {}) };
  // A first start, stopped once it is up, as every start after a user's first one: it leaves
  // the daemon image's code cache in $CULTURE_HOME/cache (packages/cli/bin/daemon-image.cjs).
  const { child: first } = await startUntil(daemonArgv, /Started spark-idle/, daemonEnvironment);
  first.kill("SIGTERM");
  await new Promise((resolve) => first.once("exit", resolve));
  const { child: daemon } = await startUntil(daemonArgv, /Started spark-idle/, daemonEnvironment);
  children.push(daemon);
  await sleep(IDLE_MS);
  const d = memoryOf(daemon.pid);
  const b = memoryOf(bare.pid);
  const loadA = load();
  // Settled: the lowest RSS seen while it stays idle (sampled every 250 ms).
  let settled = d;
  let settledAt = IDLE_MS;
  for (let t = 0; t < SETTLE_MS; t += 250) {
    await sleep(250);
    const now = memoryOf(daemon.pid);
    if (now.rss < settled.rss) [settled, settledAt] = [now, IDLE_MS + t + 250];
  }
  const bSettled = memoryOf(bare.pid);

  // ---- (b) what each import costs ---------------------------------------------------------
  const steps = [
    ["node:net, node:child_process, node:fs (builtins)", "node:net"],
    ["@culture/core (bundles zod, yaml, execa, irc-framework)", join(root, "packages/core/dist/index.js")],
    ["the CLI program (commander, every command)", join(root, "packages/cli/dist/main.js")],
    ["@culture/backend-acp (bundled ACP SDK)", join(root, "packages/backend-acp/dist/index.js")],
  ];
  const probe = `
    const rows = [];
    const snap = () => { gc(); gc(); const m = process.memoryUsage(); return { rss: m.rss, heap: m.heapUsed }; };
    let last = snap();
    rows.push({ rss: last.rss, heap: last.heap, d: 0, dh: 0 });
    process.argv = [process.argv[0], "x", "--version"];
    for (const spec of ${JSON.stringify(steps.map((s) => s[1]))}) {
      if (spec.endsWith("main.js")) await import(spec.replace("main.js", "") + (await import("node:fs")).readdirSync(spec.replace("main.js", "")).find((f) => /^program-.*\\.js$/.test(f)));
      else await import(spec);
      const now = snap();
      rows.push({ rss: now.rss, heap: now.heap, d: now.rss - last.rss, dh: now.heap - last.heap });
      last = now;
    }
    console.log(JSON.stringify(rows));
  `;
  const r = spawnSync(process.execPath, ["--expose-gc", ...DAEMON_FLAGS, "--input-type=module", "-e", probe], { cwd: join(root, "packages/core"), encoding: "utf8" });
  if (r.status !== 0) throw new Error(`import probe failed: ${r.stderr}`);
  const rows = JSON.parse(r.stdout.trim().split("\n").pop());

  // ---- report -------------------------------------------------------------------------------
  console.log(`culture idle daemon memory, node ${process.version}, demo agent (ACP), embedded IRC server\n`);
  console.log(`(a) after ${IDLE_MS} ms idle (load average ${loadA})`);
  console.log(`${"".padEnd(44)} ${"RSS MiB".padStart(9)} ${"anon MiB".padStart(9)}`);
  console.log(`${"bare node (baseline)".padEnd(44)} ${mib(b.rss).toFixed(1).padStart(9)} ${mib(b.anon).toFixed(1).padStart(9)}`);
  console.log(`${"idle daemon (culture start --foreground)".padEnd(44)} ${mib(d.rss).toFixed(1).padStart(9)} ${mib(d.anon).toFixed(1).padStart(9)}`);
  console.log(`daemon - bare node: ${mib(d.rss - b.rss).toFixed(1)} MiB\n`);
  console.log(`(a') settled: the lowest in the next ${SETTLE_MS / 1000} s (load average ${load()})`);
  console.log(`${"bare node (baseline)".padEnd(44)} ${mib(bSettled.rss).toFixed(1).padStart(9)} ${mib(bSettled.anon).toFixed(1).padStart(9)}`);
  console.log(`${`idle daemon, settled (${(settledAt / 1000).toFixed(1)} s after it was up)`.padEnd(44)} ${mib(settled.rss).toFixed(1).padStart(9)} ${mib(settled.anon).toFixed(1).padStart(9)}`);
  console.log(`daemon - bare node: ${mib(settled.rss - bSettled.rss).toFixed(1)} MiB; target RSS <= 55 MiB: ${mib(settled.rss) <= 55 ? "met" : "NOT met"}\n`);
  console.log(`(b) what each import adds in a fresh node (after a collection; cumulative, in this order)`);
  console.log(`${"".padEnd(52)} ${"+RSS".padStart(7)} ${"+heap".padStart(7)} ${"RSS".padStart(7)}`);
  console.log(`${"bare node --expose-gc".padEnd(52)} ${"".padStart(7)} ${"".padStart(7)} ${(rows[0].rss / 2 ** 20).toFixed(1).padStart(7)}`);
  for (const [k, [name]] of steps.entries()) {
    const row = rows[k + 1];
    console.log(`${name.padEnd(52)} ${(row.d / 2 ** 20).toFixed(1).padStart(7)} ${(row.dh / 2 ** 20).toFixed(1).padStart(7)} ${(row.rss / 2 ** 20).toFixed(1).padStart(7)}`);
  }
  console.log("(MiB)");
} finally {
  for (const c of children.reverse()) c.kill("SIGTERM");
  await sleep(300);
  rmSync(home, { recursive: true, force: true });
}
