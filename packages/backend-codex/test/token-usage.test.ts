import { describe, expect, it } from "vitest";
import { CodexTokenUsage, contextOf } from "../src/token-usage.js";
import { failureOf, isCultureError } from "@culture/core";
import { codexFatalError } from "../src/codex-errors.js";

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

describe("context use and fatal failures (core's context care and classifier)", () => {
  it("reads how full the window is from the latest model call and modelContextWindow", () => {
    expect(contextOf({ last: b(150_000, 2_000), modelContextWindow: 258_400 })).toEqual({ usedTokens: 152_000, windowTokens: 258_400 });
    expect(contextOf({ last: { inputTokens: 10, outputTokens: 5 } })).toEqual({ usedTokens: 15, windowTokens: null });
    expect(contextOf({ last: b(0, 0), modelContextWindow: 1000 })).toBeNull();
  });

  it.each([
    [{ message: "Codex ran out of room in the model's context window.", codexErrorInfo: "contextWindowExceeded" }, "prompt_too_long"],
    [{ message: "You've hit your usage limit.", codexErrorInfo: "usageLimitExceeded" }, "out_of_credit"],
    [{ message: "The model `gpt-9` does not exist or you do not have access to it.", codexErrorInfo: { httpConnectionFailed: { httpStatusCode: 404 } } }, "model_not_found"],
  ])("%j pauses the agent (%s)", (failure, reason) => {
    const error = codexFatalError(["codex", "app-server"], failure);
    expect(isCultureError(error, "E_AGENT_API_ERROR")).toBe(true);
    expect(failureOf(error)).toEqual({ class: "fatal", reason });
  });

  it.each([
    [{ message: "stream disconnected before completion", codexErrorInfo: "responseStreamDisconnected" }],
    [{ message: "unexpected status 401 Unauthorized", codexErrorInfo: "unauthorized" }], // E_AGENT_AUTH's own path
    [{ message: "something odd", codexErrorInfo: "other" }],
  ])("%j is not a pause of its own", (failure) => {
    expect(codexFatalError(["codex", "app-server"], failure)).toBeNull();
  });
});
