// `culture console` in headless chromium (Debian's, driven by playwright-core): the first render
// of a fleet of 50 agents, and event -> visible in the page, p50/p95. The fleet is simulated (50
// status rows and a transcript feed answered in memory, no daemons): what is measured is the
// console itself, its server, SSE and the page, the part no other bench covers.
//
//   first render: page load (reload, the session kept) until all 50 rows are in the table
//   fleet change -> visible: a row's tool changes in the source; the console polls the fleet at
//     --interval (0.25 s here; `culture console` defaults to 1 s, like
//     `culture top`) and pushes it; until the page shows it
//   transcript event -> visible: a new event in an agent's feed; the agent's page stream asks
//     the daemon every 100 ms; until the page shows it
//
// Targets (issue 26): first render < 500 ms, event -> visible < 300 ms p95.
// Build first (`npm run build`). CULTURE_CHROMIUM overrides /usr/bin/chromium.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { startConsole } from "../packages/cli/dist/console-server.js";

const AGENTS = 50;
const RENDERS = 20;
const EVENTS = 40;
const INTERVAL = 0.25;
const CHROMIUM = process.env.CULTURE_CHROMIUM ?? "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

const now = () => Date.now() / 1000;
const tools = new Map();
const feed = [];
const row = (i) => {
  const nick = `spark-${String(i).padStart(2, "0")}`;
  const tool = tools.get(nick) ?? null;
  return { nick, state: tool ? "working" : "idle", source: "local", irc: "connected", tool, toolSince: tool ? now() : null, queued: 0, turns: i, approvals: 0, spend: null, task: tool ? `running ${tool}` : "idle", paused: false, pending: [], backend: "claude", spendUsd: i / 100, tokensToday: i * 1000 };
};
const source = {
  async rows() {
    return Array.from({ length: AGENTS }, (_, i) => row(i));
  },
  async control(nick, type, fields = {}) {
    if (type !== "events") return { running: true, ok: false, data: null, error: "bench: events only", errorCode: null };
    const after = typeof fields.after === "number" ? fields.after : null;
    const events = after === null ? feed.slice(-(fields.limit ?? 100)) : feed.filter((e) => e.seq > after);
    return { running: true, ok: true, data: { events, first: feed[0]?.seq ?? null, last: feed.length }, error: null, errorCode: null };
  },
};

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const fmt = (xs) => `p50 ${pct(xs, 50).toFixed(0)} ms, p95 ${pct(xs, 95).toFixed(0)} ms (n=${xs.length})`;

const home = mkdtempSync(join(tmpdir(), "culture-console-bench-"));
const running = await startConsole({ host: "127.0.0.1", port: 0, intervalSeconds: INTERVAL, network: false, config: null, source, accountsFile: join(home, "accounts.json") });
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
try {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await page.goto(running.url);
  await page.fill("#login-token input[name=token]", running.token);
  await page.click("#login-token button");
  await page.waitForFunction((n) => document.querySelectorAll("#fleet tbody tr").length === n, AGENTS);

  const renders = [];
  for (let i = 0; i < RENDERS; i++) {
    const t0 = performance.now();
    await page.reload();
    await page.waitForFunction((n) => document.querySelectorAll("#fleet tbody tr").length === n, AGENTS, { polling: "raf" });
    renders.push(performance.now() - t0);
  }

  // The page notes when a watched text appears (MutationObserver), in epoch ms like this process.
  const watch = (selector, text) =>
    page.evaluate(
      ([selector, text]) =>
        new Promise((resolve) => {
          const seen = () => [...document.querySelectorAll(selector)].some((n) => n.textContent.includes(text));
          const obs = new MutationObserver(() => {
            if (seen()) {
              obs.disconnect();
              resolve(Date.now());
            }
          });
          obs.observe(document.body, { subtree: true, childList: true, characterData: true });
        }),
      [selector, text],
    );

  const fleetLag = [];
  for (let i = 0; i < EVENTS; i++) {
    const nick = `spark-${String(i % AGENTS).padStart(2, "0")}`;
    const tool = `Tool${i}`;
    const visible = watch(`#fleet tr[data-nick="${nick}"] td.tool`, tool);
    await new Promise((r) => setTimeout(r, 50 + Math.random() * 200));
    const t0 = Date.now();
    tools.set(nick, tool);
    fleetLag.push((await visible) - t0);
    tools.delete(nick);
  }

  await page.goto(`${running.url}#/agent/spark-07`);
  await page.waitForSelector("#agent-view:not([hidden])");
  const eventLag = [];
  for (let i = 0; i < EVENTS; i++) {
    const text = `event ${i} ${Math.random().toString(36).slice(2)}`;
    const visible = watch("#transcript li pre", text);
    await new Promise((r) => setTimeout(r, 20 + Math.random() * 100));
    const t0 = Date.now();
    feed.push({ seq: feed.length + 1, at: t0, kind: "reply", text, who: "alice", where: "#dev" });
    eventLag.push((await visible) - t0);
  }

  console.log(`console, ${AGENTS} simulated agents, headless chromium:`);
  console.log(`  first render of the fleet:        ${fmt(renders)}  (target < 500 ms)`);
  console.log(`  fleet change -> visible (${INTERVAL}s poll): ${fmt(fleetLag)}  (target < 300 ms p95)`);
  console.log(`  transcript event -> visible:      ${fmt(eventLag)}  (target < 300 ms p95)`);
} finally {
  await browser.close();
  await running.close();
  rmSync(home, { recursive: true, force: true });
}
