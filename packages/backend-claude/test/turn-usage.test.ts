import { describe, expect, it } from "vitest";
import { ClaudeTurnUsage } from "../src/turn-usage.js";

const totals = (input: number, output: number, cacheRead: number, cacheWrite: number, cost: number) => ({
  inputTokens: input, outputTokens: output, cacheReadInputTokens: cacheRead, cacheCreationInputTokens: cacheWrite, webSearchRequests: 0, costUSD: cost, contextWindow: 200000, maxOutputTokens: 32000,
});

describe("ClaudeTurnUsage", () => {
  it("turns the process's running totals per model into each turn's additive usage, with Claude Code's cost", () => {
    const u = new ClaudeTurnUsage();
    expect(u.messages({ "claude-sonnet-4-5": totals(10, 5, 100, 20, 0.5) })).toEqual([
      { type: "assistant", model: "claude-sonnet-4-5", content: [], usage: { inputTokens: 130, outputTokens: 5, cacheReadTokens: 100, cacheWriteTokens: 20, costUsd: 0.5 } },
    ]);
    // Turn 2: sonnet did more, haiku appeared; only the differences are this turn's.
    const second = u.messages({ "claude-sonnet-4-5": totals(15, 9, 300, 20, 0.75), "claude-haiku-4-5": totals(7, 3, 0, 0, 0.01) });
    expect(second).toEqual([
      { type: "assistant", model: "claude-sonnet-4-5", content: [], usage: { inputTokens: 205, outputTokens: 4, cacheReadTokens: 200, cacheWriteTokens: 0, costUsd: 0.25 } },
      { type: "assistant", model: "claude-haiku-4-5", content: [], usage: { inputTokens: 7, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.01 } },
    ]);
    // A model that did nothing this turn reports nothing; a new process starts from zero.
    expect(u.messages({ "claude-sonnet-4-5": totals(15, 9, 300, 20, 0.75) })).toEqual([]);
    u.reset();
    expect(u.messages({ "claude-sonnet-4-5": totals(1, 1, 0, 0, 0.001) })[0]!.usage).toEqual({ inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.001 });
  });

  it("reports nothing for a result without modelUsage, and no cost when Claude Code gives none", () => {
    const u = new ClaudeTurnUsage();
    expect(u.messages(undefined)).toEqual([]);
    expect(u.messages({})).toEqual([]);
    expect(u.messages({ m: { inputTokens: 3, outputTokens: 2 } })[0]!.usage).toEqual({ inputTokens: 3, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });
});
