/** The usage meter: a turn's additive usage summed, priced (agent cost, else prices:, else unknown), recorded and announced. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentMessage } from "../src/agent-message.js";
import type { TurnResult } from "../src/events.js";
import { createDaemonHooks } from "../src/hooks.js";
import { createLogger } from "../src/logger.js";
import { configSchema } from "../src/config/schema.js";
import { costOfTokens } from "../src/usage/prices.js";
import { readUsageJournal } from "../src/usage/usage-journal.js";
import { UsageMeter } from "../src/usage/usage-meter.js";
import type { UsageRecord } from "../src/usage/usage-record.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const logger = createLogger({ level: "silent" });
const PRICES = { "gpt-5": { input: 1.25, output: 10, cache_read: 0.125 } };

function turn(messages: AgentMessage[], over: Partial<TurnResult> = {}): TurnResult {
  return {
    origin: { id: "p1", kind: "mention", channel: "#dev", sender: "alice", replyTo: "#dev", text: "hi", account: "alice-acct" },
    prompt: "hi",
    messages,
    finalText: "",
    sentTo: new Set(),
    error: null,
    durationMs: 5,
    ...over,
  };
}
const text = (t: string, model?: string): AgentMessage => ({ type: "assistant", content: [{ type: "text", text: t }], ...(model ? { model } : {}) });

describe("UsageMeter", () => {
  it("sums the turn's usage, keeps the agent's own cost, and records who asked where", () => {
    const m = new UsageMeter({ nick: "spark-a", logger, model: "cfg-model", journalPath: null, now: () => 1000 });
    const r = m.meter(turn([
      text("thinking…", "claude-x"),
      { type: "assistant", model: "claude-x", content: [], usage: { inputTokens: 100, outputTokens: 10, cacheReadTokens: 60, cacheWriteTokens: 5, costUsd: 0.01 } },
      { type: "assistant", model: "claude-haiku", content: [], usage: { inputTokens: 20, outputTokens: 2, costUsd: 0.001 } },
    ]));
    expect(r).toEqual({
      v: 1, type: "turn", at: 1000, agent: "spark-a", turn: "p1", kind: "mention", channel: "#dev", nick: "alice", account: "alice-acct",
      model: "claude-x", tokens: { input: 120, output: 12, cacheRead: 60, cacheWrite: 5, reasoning: 0 }, costUsd: 0.011, costSource: "agent", reported: true, failed: false,
    } satisfies UsageRecord);
  });

  it("prices tokens from the prices table when the agent gives no cost, and says unknown (null) when neither exists", () => {
    const priced = new UsageMeter({ nick: "a", logger, prices: PRICES, model: "gpt-5", journalPath: null });
    const usage = { inputTokens: 1000, outputTokens: 100, cacheReadTokens: 400, reasoningTokens: 30 };
    const r = priced.meter(turn([{ type: "assistant", content: [], usage }]));
    expect(r.costSource).toBe("prices");
    expect(r.costUsd).toBeCloseTo((600 * 1.25 + 400 * 0.125 + 100 * 10) / 1e6, 12);
    expect(r.costUsd).toBe(costOfTokens(r.tokens, PRICES["gpt-5"]));
    // A model not in the table: tokens counted, cost unknown — never a guess.
    const other = priced.meter(turn([{ type: "assistant", model: "o9", content: [], usage }]));
    expect([other.tokens.input, other.costUsd, other.costSource]).toEqual([1000, null, null]);
    // One part unknown makes the turn's cost unknown (not the known part passed off as the whole).
    const mixed = priced.meter(turn([{ type: "assistant", content: [], usage: { ...usage, costUsd: 0.5 } }, { type: "assistant", model: "o9", content: [], usage }]));
    expect(mixed.costUsd).toBeNull();
  });

  it("a turn whose agent reported nothing is recorded as not reported, with no cost; a failed turn says so", () => {
    const m = new UsageMeter({ nick: "a", logger, prices: PRICES, model: "gpt-5", journalPath: null });
    expect(m.meter(turn([text("hello")], { error: "boom" }))).toMatchObject({ reported: false, failed: true, costUsd: null, tokens: { input: 0, output: 0 } });
  });

  it("appends each turn to the journal and fires turnUsage with the same record; status shows today", async () => {
    const dir = mkdtempSync(join(tmpdir(), "meter-"));
    dirs.push(dir);
    const path = join(dir, "usage.jsonl");
    const hooks = createDaemonHooks();
    const m = new UsageMeter({ nick: "spark-a", logger, prices: PRICES, model: "gpt-5", journalPath: path }).apply(hooks);
    m.open();
    const seen: UsageRecord[] = [];
    hooks.turnUsage.tap("test", (r) => void seen.push(r));
    await hooks.turnEnd.promise(turn([{ type: "assistant", content: [], usage: { inputTokens: 10, outputTokens: 1 } }]));
    await hooks.turnEnd.promise(turn([{ type: "assistant", content: [], usage: { inputTokens: 5, outputTokens: 2 } }], { origin: { id: "p2", kind: "dm", channel: null, sender: "bob", replyTo: "bob", text: "x" } }));
    m.close();
    expect(readUsageJournal(path).entries).toEqual(seen);
    expect(seen.map((r) => [r.turn, r.channel, r.nick, r.account])).toEqual([["p1", "#dev", "alice", "alice-acct"], ["p2", null, "bob", null]]);
    const status = hooks.status.call({} as never) as unknown as { usage: { today: Record<string, number> } };
    expect(status.usage.today).toMatchObject({ turns: 2, input_tokens: 15, output_tokens: 3, cost_unknown_turns: 0 });
  });

  it("bad prices config is refused, naming the field", () => {
    const r = configSchema.safeParse({ prices: { "gpt-5": { input: -1, outptu: 3 } } });
    expect(r.success).toBe(false);
    const paths = r.error!.issues.map((i) => i.path.join("."));
    expect(paths).toEqual(expect.arrayContaining(["prices.gpt-5.input", "prices.gpt-5.output"]));
  });
});
