import { describe, expect, it } from "vitest";
import { CodexTokenUsage } from "../src/token-usage.js";

const b = (input: number, output: number, cached = 0, reasoning = 0) => ({ inputTokens: input, outputTokens: output, cachedInputTokens: cached, reasoningOutputTokens: reasoning, totalTokens: input + output });

describe("CodexTokenUsage", () => {
  it("adds each notification's growth of the thread's total, so a re-sent notification counts nothing", () => {
    const u = new CodexTokenUsage();
    expect(u.update("th", { total: b(100, 10, 40, 3), last: b(100, 10, 40, 3) })).toEqual({ inputTokens: 100, outputTokens: 10, cacheReadTokens: 40, reasoningTokens: 3 });
    expect(u.update("th", { total: b(250, 30, 140, 3), last: b(150, 20, 100, 0) })).toEqual({ inputTokens: 150, outputTokens: 20, cacheReadTokens: 100, reasoningTokens: 0 });
    // The same total again (after thread/resume, or a rate-limit update): nothing new.
    expect(u.update("th", { total: b(250, 30, 140, 3), last: b(150, 20, 100, 0) })).toBeNull();
  });

  it("uses `last` for the first notification of a thread and when there is no total", () => {
    const u = new CodexTokenUsage();
    u.update("a", { total: b(100, 10), last: b(100, 10) });
    expect(u.update("b", { total: b(500, 50), last: b(20, 5) })).toEqual({ inputTokens: 20, outputTokens: 5, cacheReadTokens: 0, reasoningTokens: 0 });
    expect(u.update("b", { last: b(7, 1) })).toEqual({ inputTokens: 7, outputTokens: 1, cacheReadTokens: 0, reasoningTokens: 0 });
  });
});
