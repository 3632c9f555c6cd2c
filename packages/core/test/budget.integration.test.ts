/**
 * Budgets on a real IRC server with a real daemon and the echo backend's real agent process
 * reporting usage (its `spend` behaviour), metered by the daemon's usage meter into the usage
 * journal:
 *
 * - 1,000 turns with random costs against a cap: the cap is overshot by at most one turn and
 *   no turn starts past it (the counts are printed); a period rollover (an injected clock, no
 *   sleeping) lets the waiting prompts run.
 * - The alert lines (#alerts, the webhook, the asker) at 50 / 80 / 100 %, the over-budget
 *   receipt, `@nick budget` refused to a non-operator and obeyed for an operator, the hard stop
 *   of a turn in flight and a channel's cap holding only that channel's prompts.
 */
import { createServer, type Server } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, type IrcServer } from "@culture/server";
import { connectRawClient, type RawIrcClient } from "../src/testing/irc-servers.js";
import type { UsageRecord } from "../src/usage/usage-record.js";
import { eventually, startTestDaemon, type TestDaemon } from "./helpers/daemon-harness.js";

let server: IrcServer;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  server = await startServer({ host: "127.0.0.1", port: 0, stateDir: null, flood: false });
});
afterAll(async () => {
  await server?.close();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

async function daemon(opts: Omit<Parameters<typeof startTestDaemon>[0], "port">): Promise<TestDaemon> {
  const d = await startTestDaemon({ port: server.port, ...opts });
  cleanups.push(() => d.stop());
  return d;
}

async function human(nick: string, channels = ["#test"]): Promise<RawIrcClient> {
  const c = await connectRawClient(server.port, nick);
  cleanups.push(() => c.close());
  for (const ch of channels) await c.join(ch);
  return c;
}

/** A seeded PRNG (mulberry32), so a failing run can be repeated with its printed seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("budgets: the hard stop", () => {
  it("1,000 turns with random costs: overshoot at most one turn, no turn started past the cap; a rollover lets the rest run", async () => {
    const seed = Number(process.env.BUDGET_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const random = prng(seed);
    const TOTAL = 1_000;
    const CAP_AT = 990; // the turn that reaches the cap; the other 10 prompts must wait
    const costs = Array.from({ length: TOTAL }, () => Math.round((0.001 + random() * 0.009) * 1e6) / 1e6);
    const tokens = Array.from({ length: TOTAL }, () => [Math.floor(random() * 5_000), Math.floor(random() * 1_000)] as const);
    const before = costs.slice(0, CAP_AT - 1).reduce((a, b) => a + b, 0);
    const cap = Math.round((before + costs[CAP_AT - 1]! / 2) * 1e6) / 1e6; // reached in the middle of turn CAP_AT's cost
    let shift = 0;
    const d = await daemon({
      nick: "spark-meter",
      agent: { relay: "never", receipts: "off", budget: { usd: cap, per: "day" } },
      config: { budget: { time_zone: "UTC" } },
      timings: { now: () => Date.now() + shift, perSenderLimit: 50 },
    });
    const records: UsageRecord[] = [];
    let onRecord: (() => void) | null = null;
    d.daemon.hooks.turnUsage.tap("test", (r) => {
      records.push(r);
      onRecord?.();
    });
    let started = 0;
    d.daemon.hooks.beforePrompt.tap("test", (p) => {
      started++;
      return p;
    });
    const alice = await human("alice");
    for (let i = 0; i < CAP_AT; i++) {
      const next = new Promise<void>((r) => (onRecord = r));
      alice.send(`PRIVMSG #test :@spark-meter spend ${tokens[i]![0]} ${tokens[i]![1]} ${costs[i]}`);
      await next;
    }
    // The cap is reached: the next prompts are queued (journaled) and none starts.
    for (let i = CAP_AT; i < TOTAL; i++) alice.send(`PRIVMSG #test :@spark-meter spend ${tokens[i]![0]} ${tokens[i]![1]} ${costs[i]}`);
    await eventually(() => d.daemon.status().queued_prompts === TOTAL - CAP_AT, "the prompts after the cap to be queued");
    const status = d.daemon.status();
    const spent = records.reduce((a, r) => a + (r.costUsd ?? 0), 0);
    const spentBeforeLast = spent - (records[records.length - 1]!.costUsd ?? 0);
    const startedPastCap = started - records.length;
    const journal = readFileSync(join(d.home, "state", "agent-spark-meter", "usage.jsonl"), "utf8").trim().split("\n");
    console.log(
      `budget 1,000-turn run (seed ${seed}): cap $${cap.toFixed(6)}; turns run ${records.length}; spent $${spent.toFixed(6)} ` +
        `(overshoot $${(spent - cap).toFixed(6)}, the last turn cost $${costs[CAP_AT - 1]}); turns started past the cap ${startedPastCap}; ` +
        `prompts waiting ${status.queued_prompts}; journal records ${journal.length}`,
    );
    expect(records.length).toBe(CAP_AT);
    expect(started).toBe(CAP_AT);
    expect(spentBeforeLast).toBeLessThan(cap); // every turn but the last started under the cap
    expect(spent).toBeGreaterThanOrEqual(cap);
    expect(spent - cap).toBeLessThanOrEqual(costs[CAP_AT - 1]!); // overshoot: at most one turn
    expect(journal).toHaveLength(CAP_AT);
    expect(status.daemon_state).toBe("over_budget");
    expect(status.description).toMatch(/^over budget: spark-meter's budget is used up \(\$\d+\.\d\d of \$\d+\.\d\d per day\); resumes \d{4}-\d\d-\d\d 00:00 UTC; 10 prompt\(s\) waiting$/);
    const budget = status.budget as { over_budget: { cap: string } | null; caps: Array<{ id: string; percent: number }> };
    expect(budget.over_budget?.cap).toBe("agent spark-meter day");
    expect(budget.caps[0]!.percent).toBeGreaterThanOrEqual(100);

    // The period rolls over (the clock moves a day; nothing sleeps): the waiting prompts run.
    shift = 86_400_000;
    const rest = new Promise<void>((resolve) => (onRecord = () => records.length === TOTAL && resolve()));
    d.daemon.status(); // reading the budget sees the new period: the agent is free again and the queue is fed
    await rest;
    expect(records.length).toBe(TOTAL);
    expect(d.daemon.status().daemon_state).toBe("ready");
    console.log(`after the rollover: turns run ${records.length}, waiting ${d.daemon.status().queued_prompts}`);
  }, 240_000);
});

describe("budgets: alerts, receipts and operators", () => {
  let hook: Server;
  const posts: Array<{ event: string; content: string }> = [];
  beforeAll(async () => {
    hook = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        posts.push(JSON.parse(body) as { event: string; content: string });
        res.end("ok");
      });
    });
    await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
  });
  afterAll(() => new Promise<void>((r) => hook.close(() => r())));

  it("alerts 50 / 80 / 100 % to #alerts, the webhook and the asker; queues with an over-budget receipt; @nick budget is the operators'", async () => {
    const port = (hook.address() as { port: number }).port;
    const d = await daemon({
      nick: "spark-bot",
      channels: ["#test", "#hard"],
      agent: { receipts: "notice", budget: { usd: 1, per: "day" } },
      config: {
        operators: ["erin"],
        operators_by_nick: true,
        webhooks: { url: `http://127.0.0.1:${port}/hook` },
        budget: { time_zone: "UTC", channels: { "#hard": { tokens: 1_000, per: "day", hard_stop: true } } },
      },
    });
    const ops = await human("ops", ["#alerts"]);
    const alice = await human("alice", ["#test", "#hard"]);
    const bob = await human("bob");
    const erin = await human("erin");
    const day = new Date().toISOString().slice(0, 10);
    const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

    alice.send("PRIVMSG #test :@spark-bot spend 100 100 0.6");
    const fifty = await ops.waitFor(/PRIVMSG #alerts :\[BUDGET\] spark-bot: 50% of/);
    expect(fifty).toContain(`:[BUDGET] spark-bot: 50% of spark-bot's budget used ($0.60 of $1.00 per day; resets ${next} 00:00 UTC)`);
    await alice.waitFor(/NOTICE alice :\[budget\] your request took spark-bot's budget to 50% \(\$0\.60 of \$1\.00 per day; resets .* UTC\)$/);
    alice.send("PRIVMSG #test :@spark-bot spend 100 100 0.25");
    await ops.waitFor(/PRIVMSG #alerts :\[BUDGET\] spark-bot: 80% of spark-bot's budget used \(\$0\.85 of \$1\.00 per day/);
    alice.send("PRIVMSG #test :@spark-bot spend 100 100 0.25");
    const over = await ops.waitFor(/PRIVMSG #alerts :\[OVER BUDGET\]/);
    expect(over).toContain(
      `:[OVER BUDGET] spark-bot: spark-bot's budget is used up ($1.10 of $1.00 per day). Turns of spark-bot wait until it resets at ${next} 00:00 UTC or an operator says "@spark-bot budget raise <amount>" or "@spark-bot budget reset".`,
    );
    await eventually(() => d.daemon.currentState === "over_budget", "the over_budget state");
    await eventually(() => posts.some((p) => p.event === "budget_exceeded"), "the webhook's budget_exceeded");
    expect(posts.map((p) => p.event)).toEqual(["budget_warning", "budget_warning", "budget_exceeded"]);
    console.log(`alert lines:\n${ops.lines.filter((l) => l.includes("#alerts :[")).join("\n")}`);

    // A prompt now waits, journaled, and its asker is told why.
    alice.send("PRIVMSG #test :@spark-bot are you there?");
    const receipt = await alice.waitFor(/NOTICE alice :\[#test\] queued; I am over budget/);
    expect(receipt).toContain(
      `NOTICE alice :[#test] queued; I am over budget (spark-bot's budget is used up ($1.10 of $1.00 per day)) and start after ${next} 00:00 UTC or when an operator raises the budget: "@spark-bot are you there?"`,
    );
    expect(d.daemon.status().queued_prompts).toBe(1);

    // Not an operator: refused, nothing changes.
    bob.send("PRIVMSG #test :@spark-bot budget raise $5");
    await bob.waitFor(/NOTICE bob :only operators \(by IRC account\) can manage the budget of spark-bot\.$/);
    bob.send("PRIVMSG #test :@spark-bot budget reset");
    expect(d.daemon.currentState).toBe("over_budget");

    // The operator looks, then raises: the waiting prompt runs.
    erin.send("PRIVMSG #test :@spark-bot budget");
    await erin.waitFor(/PRIVMSG #test :erin: agent spark-bot day: 110% — \$1\.10 of \$1\.00 per day; resets/);
    erin.send("PRIVMSG #test :@spark-bot budget raise $1");
    await erin.waitFor(/PRIVMSG #test :erin: raised agent spark-bot day by \$1 for this period \(by erin\)$/);
    await alice.waitFor(/PRIVMSG #test :I heard: .*are you there\?/);
    expect(d.daemon.currentState).toBe("ready");
    console.log(`operator lines:\n${erin.lines.filter((l) => l.includes(":erin: ")).join("\n")}`);

    // #hard's cap (tokens, hard_stop): a turn in flight that passes it is ended, and the next
    // prompt asked in #hard waits while #test's still run.
    alice.send("PRIVMSG #hard :@spark-bot spend 400 0 -");
    await alice.waitFor(/PRIVMSG #hard :I heard: spent 400 tokens/);
    alice.send("PRIVMSG #hard :@spark-bot spend 700 0 - hang");
    const stopped = await alice.waitFor(/PRIVMSG #hard :alice: sorry, .* failed: /);
    expect(stopped).toMatch(/failed: #hard's channel budget ran out while I was working on it \(hard_stop; 1,100 of 1,000 tokens per day\); my next turn waits until .* UTC or an operator raises the budget\.$/);
    await ops.waitFor(/PRIVMSG #alerts :\[OVER BUDGET\] spark-bot: #hard's channel budget is used up \(1,100 of 1,000 tokens per day\)\. Prompts asked in #hard wait/);
    await eventually(() => d.daemon.status().activity === "idle", "the stopped turn to end");
    alice.send("PRIVMSG #hard :@spark-bot and now?");
    await alice.waitFor(/NOTICE alice :\[#hard\] queued; I am over budget \(#hard's channel budget is used up/);
    alice.send("PRIVMSG #test :@spark-bot still here?");
    await alice.waitFor(/PRIVMSG #test :I heard: .*still here\?/);
    const budget = d.daemon.status().budget as { held: number; over_budget: unknown };
    expect(budget.held).toBe(1);
    expect(budget.over_budget).toBeNull();
    expect(d.daemon.currentState).toBe("ready");

    // An operator's abort drops the held prompt like a queued one: its asker is told, and a
    // raise afterwards runs nothing.
    erin.send("PRIVMSG #test :@spark-bot abort");
    await erin.waitFor(/PRIVMSG #test :erin: aborted the current task and dropped 1 queued prompt\(s\)\.$/);
    await alice.waitFor(/NOTICE alice :\[#hard\] dropped: erin aborted my work and cleared my queue/);
    expect((d.daemon.status().budget as { held: number }).held).toBe(0);
    erin.send("PRIVMSG #test :@spark-bot budget raise 10000 tokens");
    await erin.waitFor(/PRIVMSG #test :erin: raised channel #hard day by 10,000 tokens/);
    alice.send("PRIVMSG #test :@spark-bot last");
    await alice.waitFor(/PRIVMSG #test :I heard: .*last/);
    expect(alice.lines.some((l) => /I heard: .*and now\?/.test(l))).toBe(false);
  }, 120_000);
});

describe("budgets: the agent-to-agent chain's tokens", () => {
  it("refuses an agent's mention once the chain since a person spoke has spent chain_tokens; a person's message starts a new chain", async () => {
    const d = await daemon({
      nick: "spark-chain",
      agent: { receipts: "notice" },
      otherAgents: [{ nick: "spark-peer" }],
      config: { budget: { time_zone: "UTC", chain_tokens: 1_000 } },
      timings: { maxAgentHops: 20 },
    });
    const alice = await human("alice");
    const peer = await human("spark-peer"); // an agent of the same config, played by a raw client
    alice.send("PRIVMSG #test :hello both");
    for (const n of [1, 2]) {
      peer.send(`PRIVMSG #test :@spark-chain spend 600 0 - round ${n}`);
      await peer.waitFor(/PRIVMSG #test :I heard: spent 600 tokens/);
      await eventually(() => d.daemon.status().activity === "idle", "the turn to end");
    }
    peer.send("PRIVMSG #test :@spark-chain spend 1 0 -");
    const refused = await peer.waitFor(/NOTICE spark-peer :\[#test\] not taken/);
    expect(refused).toContain(`NOTICE spark-peer :[#test] not taken: I only take prompts from people here until a person speaks (the agent-to-agent chain's token limit, 1000 tokens): "@spark-chain spend 1 0 -"`);
    expect(d.daemon.status().agent_chain_refused).toBe(1);
    alice.send("PRIVMSG #test :carry on");
    peer.send("PRIVMSG #test :@spark-chain spend 1 0 -");
    await peer.waitFor(/PRIVMSG #test :I heard: spent 1 tokens/);
  }, 60_000);
});
