/**
 * Budgets without a daemon: the config section (bad values name their field), periods in a time
 * zone, the engine's running totals, thresholds, raises and resets, the operators' command and
 * amounts, and the agent-to-agent chain's token cap.
 */
import { describe, expect, it } from "vitest";
import { parseConfig } from "../src/config/load-config.js";
import { CultureError } from "../src/errors.js";
import { resolveCaps } from "../src/budget/budget-caps.js";
import { parseBudgetCommand } from "../src/budget/budget-command.js";
import { BudgetEngine } from "../src/budget/budget-engine.js";
import { periodOf } from "../src/budget/budget-period.js";
import { crossingText, parseBudgetAmount } from "../src/budget/budget-texts.js";
import type { Spend } from "../src/budget/spend.js";
import { AgentChainGuard } from "../src/daemon/agent-chain.js";

const FILE = "/tmp/budget-test/agents.yaml";

function configError(yaml: string): string {
  try {
    parseConfig(yaml, FILE, {});
  } catch (err) {
    expect(err).toBeInstanceOf(CultureError);
    expect((err as CultureError).code).toBe("E_CONFIG_INVALID");
    return (err as Error).message;
  }
  throw new Error("the config was accepted");
}

describe("budget: config", () => {
  it("reads caps per agent, channel, account and home, with the time zone stated or the machine's", () => {
    const c = parseConfig(
      `budget:
  time_zone: Europe/Berlin
  hard_stop: true
  home: { usd: 50, per: month }
  channels:
    "#general": { tokens: 2000000, per: day }
  accounts:
    alice: [{ usd: 2, per: day }, { usd: 10, per: week, hard_stop: false }]
  chain_tokens: 100000
agents:
  - nick: spark-a
    budget: { usd: 5, tokens: 1000000, per: day }
`,
      FILE,
      {},
    );
    expect(c.budget?.time_zone).toBe("Europe/Berlin");
    const caps = resolveCaps(c, c.agents[0]!);
    expect(caps.map((x) => [x.id, x.hardStop])).toEqual([
      ["agent spark-a day", true],
      ["home month", true],
      ["channel #general day", true],
      ["account alice day", true],
      ["account alice week", false],
    ]);
    expect(parseConfig("agents: []\n", FILE, {}).budget?.time_zone).toBeUndefined();
  });

  it("names the field of every bad value", () => {
    expect(configError("budget:\n  time_zone: Mars/Olympus\n")).toMatch(/budget\.time_zone[\s\S]*IANA time zone/);
    expect(configError("budget:\n  home: { usd: 5 }\n")).toMatch(/budget\.home\.per/);
    expect(configError("budget:\n  home: { usd: 5, per: year }\n")).toMatch(/budget\.home\.per[\s\S]*day", "week" or "month/);
    expect(configError("budget:\n  home: { per: day }\n")).toMatch(/budget\.home[\s\S]*needs tokens or usd/);
    expect(configError("budget:\n  home: { usd: -1, per: day }\n")).toMatch(/budget\.home\.usd/);
    expect(configError("budget:\n  home: { usd: 1, per: day, dollars: 3 }\n")).toMatch(/budget\.home[\s\S]*dollars/);
    expect(configError("budget:\n  channels:\n    general: { usd: 1, per: day }\n")).toMatch(/budget\.channels\.general[\s\S]*not a channel name like #general/);
    expect(configError("budget:\n  chain_tokens: 0\n")).toMatch(/budget\.chain_tokens/);
    expect(configError("budget:\n  hard_stop: sometimes\n")).toMatch(/budget\.hard_stop/);
    expect(configError("agents:\n  - nick: spark-a\n    budget: { tokens: 1.5, per: day }\n")).toMatch(/agents\[0\]\.budget\.tokens/);
  });
});

describe("budget periods", () => {
  it("days, ISO weeks and months start at local midnight, across daylight saving", () => {
    const tz = "Europe/Berlin";
    const at = Date.parse("2026-03-29T12:00:00Z"); // the day Berlin moves to summer time (23 hours long)
    const day = periodOf(at, "day", tz);
    expect(new Date(day.start).toISOString()).toBe("2026-03-28T23:00:00.000Z");
    expect(new Date(day.end).toISOString()).toBe("2026-03-29T22:00:00.000Z");
    expect(day.key).toBe("day 2026-03-29");
    const week = periodOf(Date.parse("2026-11-27T10:00:00Z"), "week", tz); // a Friday
    expect(week.key).toBe("week 2026-11-23");
    expect(new Date(week.start).toISOString()).toBe("2026-11-22T23:00:00.000Z");
    const month = periodOf(Date.parse("2026-12-31T23:30:00Z"), "month", tz); // already January in Berlin
    expect(month.key).toBe("month 2027-01");
    expect(periodOf(Date.parse("2026-12-31T23:30:00Z"), "month", "UTC").key).toBe("month 2026-12");
  });
});

function spend(i: number, at: number, tokens: number, usd: number | null, extra: Partial<Spend> = {}): Spend {
  return { at, agent: "spark-a", channel: "#general", account: "alice", nick: "alice", tokens, usd, turn: `t${i}`, ...extra };
}

describe("the budget engine", () => {
  it("alerts 50, 80 and 100 % once per period, stops at the cap, rolls over with the clock", () => {
    let now = Date.parse("2026-11-27T10:00:00Z");
    const caps = resolveCaps({ budget: { time_zone: "UTC", hard_stop: false, home: null, channels: {}, accounts: {}, chain_tokens: null } }, { nick: "spark-a", budget: { usd: 1, per: "day" } });
    const e = new BudgetEngine("spark-a", caps, "UTC", () => now);
    expect(e.record(spend(1, now, 10, 0.3))).toEqual([]);
    expect(e.record(spend(2, now, 10, 0.3)).map((c) => c.threshold)).toEqual([50]);
    expect(e.record(spend(2, now, 10, 0.3))).toEqual([]); // the same turn twice counts once
    expect(e.check(null)).toBeNull();
    const jump = e.record(spend(3, now, 10, 0.5)); // 60 % -> 110 %: one alert, the highest
    expect(jump.map((c) => c.threshold)).toEqual([100]);
    expect(crossingText("spark-a", jump[0]!, "UTC")).toBe(
      '[OVER BUDGET] spark-a: spark-a\'s budget is used up ($1.10 of $1.00 per day). Turns of spark-a wait until it resets at 2026-11-28 00:00 UTC or an operator says "@spark-a budget raise <amount>" or "@spark-a budget reset".',
    );
    expect(e.check(null)?.cap.id).toBe("agent spark-a day");
    expect(e.record(spend(4, now, 10, 0.1))).toEqual([]); // past 100 %: no second alert
    // An operator raises by $1: the turn may start; 100 % is alerted again when reached.
    expect(e.raise({ usd: 1 }).map((s) => s.cap.id)).toEqual(["agent spark-a day"]);
    expect(e.check(null)).toBeNull();
    expect(e.raise({ tokens: 5 })).toEqual([]); // no token cap
    expect(e.record(spend(5, now, 10, 0.8)).map((c) => c.threshold)).toEqual([100]);
    // Reset: from zero.
    e.reset();
    expect(e.check(null)).toBeNull();
    expect(e.standings()[0]!.usd).toBe(0);
    // The next day the counts start again without any call but the clock.
    now += 1_000;
    e.record(spend(6, now, 10, 2.5)); // the raise holds for the period: the limit is $2
    expect(e.check(null)).not.toBeNull();
    now = Date.parse("2026-11-28T00:00:00Z");
    expect(e.check(null)).toBeNull();
    expect(e.standings()[0]!.period.key).toBe("day 2026-11-28");
  });

  it("a channel's or account's cap stops only that channel's or account's prompts; unknown costs count no dollars", () => {
    const now = Date.parse("2026-11-27T10:00:00Z");
    const caps = resolveCaps(
      { budget: { time_zone: "UTC", hard_stop: true, home: null, channels: { "#General": { tokens: 100, per: "day" } }, accounts: { Bob: { usd: 1, per: "week" } }, chain_tokens: null } },
      { nick: "spark-a", budget: null },
    );
    const e = new BudgetEngine("spark-a", caps, "UTC", () => now);
    e.record(spend(1, now, 100, null, { agent: "spark-b" })); // another agent's turn in #general
    expect(e.check({ channel: "#general", account: null })?.cap.id).toBe("channel #general day");
    expect(e.check({ channel: "#other", account: null })).toBeNull();
    expect(e.agentBlocked()).toBeNull();
    e.record(spend(2, now, 1, 1, { channel: null, account: "bob" }));
    expect(e.check({ channel: null, account: "BOB" })?.cap.id).toBe("account bob week");
    expect(e.check({ channel: null, account: "alice" })).toBeNull();
    expect(e.standings().find((s) => s.cap.scope === "channel")!.unknownCost).toBe(1);
    // hard_stop: a turn in flight that takes #general past its cap
    expect(e.inFlight({ channel: "#other", account: null }, 1_000, 0)).toBeNull();
  });

  it("rebuilds totals at start and alerts only thresholds not alerted before (the saved overrides)", () => {
    const now = Date.parse("2026-11-27T10:00:00Z");
    const caps = resolveCaps({ budget: { time_zone: "UTC", hard_stop: false, home: null, channels: {}, accounts: {}, chain_tokens: null } }, { nick: "spark-a", budget: { tokens: 100, per: "day" } });
    const first = new BudgetEngine("spark-a", caps, "UTC", () => now);
    const journal = [spend(1, now - 86_400_000, 500, null), spend(2, now, 60, null)]; // yesterday's does not count
    expect(first.rebuild(journal).map((c) => c.threshold)).toEqual([50]);
    const saved = first.overrides();
    const second = new BudgetEngine("spark-a", caps, "UTC", () => now, saved);
    expect(second.rebuild(journal)).toEqual([]);
    expect(second.standings()[0]!.tokens).toBe(60);
  });
});

describe("the operators' budget command", () => {
  it("reads show, raise and reset addressed to the agent, and nothing else", () => {
    const names = ["spark-a", "a"];
    expect(parseBudgetCommand("@spark-a budget", names, false)).toEqual({ verb: "show" });
    expect(parseBudgetCommand("spark-a: budget show", names, false)).toEqual({ verb: "show" });
    expect(parseBudgetCommand("@spark-a budget raise $5", names, false)).toEqual({ verb: "raise", amount: "$5" });
    expect(parseBudgetCommand("budget reset", names, true)).toEqual({ verb: "reset" });
    expect(parseBudgetCommand("@spark-a budget show me the money", names, false)).toBeNull();
    expect(parseBudgetCommand("@spark-a what is the budget?", names, false)).toBeNull();
    expect(parseBudgetCommand("budget reset", names, false)).toBeNull();
  });

  it("reads amounts in dollars or tokens and refuses a bare number", () => {
    expect(parseBudgetAmount("$5")).toEqual({ usd: 5 });
    expect(parseBudgetAmount("2.50 USD")).toEqual({ usd: 2.5 });
    expect(parseBudgetAmount("200k")).toEqual({ tokens: 200_000 });
    expect(parseBudgetAmount("1,000,000 tokens")).toEqual({ tokens: 1_000_000 });
    expect(parseBudgetAmount("1.5m tokens")).toEqual({ tokens: 1_500_000 });
    expect(parseBudgetAmount("5")).toEqual({ error: expect.stringMatching(/cannot read the amount "5": say dollars/) });
    expect(parseBudgetAmount("$0")).toEqual({ error: "the amount must be more than 0" });
  });
});

describe("the agent-to-agent chain's token cap", () => {
  it("refuses an agent's mention once the chain spent its tokens; a human message starts a new chain", () => {
    let now = 1_000;
    const chain = new AgentChainGuard(["spark-a", "spark-b"], 10, 500, () => now);
    chain.observe("#dev", "alice");
    now = 2_000;
    chain.observe("#dev", "spark-b");
    chain.noteSpend("#dev", 300, 2_100);
    expect(chain.allows("#dev", "spark-b")).toBe(true);
    chain.noteSpend("#dev", 250, 2_200);
    chain.noteSpend("#elsewhere", 10_000, 2_200);
    expect(chain.limitHit("#dev")).toBe("tokens");
    expect(chain.allows("#dev", "spark-b")).toBe(false);
    expect(chain.allows("#dev", "alice")).toBe(true); // a person is never refused by it
    expect(chain.refused).toBe(1);
    now = 3_000;
    chain.observe("#dev", "alice");
    chain.noteSpend("#dev", 400, 2_900); // a turn that ended before the person spoke belongs to the old chain
    expect(chain.tokens("#dev")).toBe(0);
    expect(chain.allows("#dev", "spark-b")).toBe(true);
  });
});
