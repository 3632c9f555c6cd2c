/**
 * The pure parts of context care and of fatal-vs-transient: core's one classifier (every
 * backend maps its errors onto it), the context warnings' crossing rule, the retry notice's
 * threshold, and the `context:` config's errors. The real agent CLIs' side is in
 * packages/backend-claude/test/claude.context.real.test.ts.
 */
import { describe, expect, it } from "vitest";
import { classifyAgentFailure, failureOf, withFailure, type AgentFailureFacts } from "../src/agent-failure.js";
import { parseConfig } from "../src/config/load-config.js";
import { ContextCare, contextConfigOf } from "../src/daemon/context-care.js";
import { RetryNotices } from "../src/daemon/retry-notice.js";
import { createDaemonHooks } from "../src/hooks.js";
import { createLogger } from "../src/logger.js";
import { CultureError, isCultureError } from "../src/errors.js";
import { isFatalAgentError } from "../src/daemon/runner-keeper.js";
import type { AgentStatus } from "../src/events.js";

const quiet = createLogger({ level: "error", write: () => undefined });

describe("classifyAgentFailure: one classifier for every backend", () => {
  it.each<[AgentFailureFacts, string, string]>([
    // fatal: a person must act
    [{ status: 401, text: "invalid x-api-key" }, "fatal", "auth"],
    [{ status: 403, kind: "permission_error", text: "forbidden" }, "fatal", "auth"],
    [{ kind: "authentication_failed", text: "Invalid API key · Please run /login" }, "fatal", "auth"],
    [{ kind: "unauthorized", text: "" }, "fatal", "auth"],
    [{ text: "OAuth token has been revoked" }, "fatal", "auth"],
    [{ status: 400, text: "prompt is too long: 210000 tokens > 200000 maximum" }, "fatal", "prompt_too_long"],
    [{ kind: "contextWindowExceeded", text: "" }, "fatal", "prompt_too_long"],
    [{ status: 400, text: "This model's maximum context length is 128000 tokens" }, "fatal", "prompt_too_long"],
    [{ status: 413, text: "request_too_large" }, "fatal", "prompt_too_long"],
    [{ status: 404, kind: "model_not_found", text: "model: claude-nope" }, "fatal", "model_not_found"],
    [{ status: 404, text: "The model `gpt-9` does not exist" }, "fatal", "model_not_found"],
    [{ status: 400, kind: "billing_error", text: "Your credit balance is too low" }, "fatal", "out_of_credit"],
    [{ status: 402, text: "payment required" }, "fatal", "out_of_credit"],
    // A 429 that says the quota is gone is not worth waiting for.
    [{ status: 429, kind: "insufficient_quota", text: "You exceeded your current quota" }, "fatal", "out_of_credit"],
    [{ status: 429, kind: "rate_limit", text: "Claude AI usage limit reached|1767225600" }, "fatal", "out_of_credit"],
    [{ kind: "usageLimitExceeded", text: "" }, "fatal", "out_of_credit"],
    // transient: wait and try again
    [{ status: 429, text: "rate_limit_error" }, "transient", "rate_limited"],
    [{ kind: "RATE_LIMIT", text: "" }, "transient", "rate_limited"],
    [{ status: 529, text: "Overloaded" }, "transient", "overloaded"],
    [{ kind: "serverOverloaded", text: "" }, "transient", "overloaded"],
    [{ status: 503, text: "" }, "transient", "overloaded"],
    [{ status: 500, text: "Internal server error" }, "transient", "server_error"],
    [{ status: 502, text: "" }, "transient", "server_error"],
    [{ status: 408, text: "" }, "transient", "server_error"],
    [{ text: "read ECONNRESET" }, "transient", "connection"],
    [{ kind: "responseStreamDisconnected", text: "stream disconnected before completion" }, "transient", "connection"],
    [{ text: "API Error: Connection error." }, "transient", "connection"],
    // neither: the turn fails, the agent carries on
    [{ status: 400, text: "tools.0: unexpected field" }, "unknown", "unknown"],
    [{ status: 404, text: "not here" }, "unknown", "unknown"],
    [{}, "unknown", "unknown"],
  ])("%j is %s (%s)", (facts, klass, reason) => {
    expect(classifyAgentFailure(facts)).toEqual({ class: klass, reason });
  });

  it("reads the failure an error carries, and only a fatal one makes the keeper pause", () => {
    const full = withFailure(new CultureError("E_AGENT_API_ERROR", "context full"), { class: "fatal", reason: "prompt_too_long" });
    expect(failureOf(full)).toEqual({ class: "fatal", reason: "prompt_too_long" });
    expect(isFatalAgentError(full)).toBe(true);
    const busy = withFailure(new CultureError("E_AGENT_API_ERROR", "overloaded"), { class: "transient", reason: "overloaded" });
    expect(isFatalAgentError(busy)).toBe(false);
    // An API error without a classified failure fails its turn only.
    expect(isFatalAgentError(new CultureError("E_AGENT_API_ERROR", "odd"))).toBe(false);
    expect(failureOf(new CultureError("E_AGENT_AUTH", "sign in"))).toEqual({ class: "fatal", reason: "auth" });
    // A look-alike detail is not trusted.
    expect(failureOf(new CultureError("E_AGENT_API_ERROR", "x", { details: { failure: { class: "deadly", reason: "auth" } } }))).toBeNull();
    expect(failureOf(new Error("plain"))).toBeNull();
  });
});

describe("context care", () => {
  function care(config: { warn_at: number | null; compact_at: number | null }) {
    const whispers: string[] = [];
    let compactions = 0;
    const c = new ContextCare({ nick: "spark-a", config, logger: quiet, whisper: (m) => void whispers.push(m), compact: async () => void compactions++ });
    return { c, whispers, compactions: () => compactions };
  }

  it("whispers once per crossing of warn_at, and again only after the share fell below it", async () => {
    const { c, whispers } = care({ warn_at: 0.7, compact_at: null });
    await c.note({ usedTokens: 100_000, windowTokens: 200_000 });
    expect(whispers).toHaveLength(0);
    await c.note({ usedTokens: 140_000, windowTokens: 200_000 }); // exactly 70 %: crossed
    expect(whispers).toHaveLength(1);
    expect(whispers[0]).toMatch(/^Your context window is 70% full \(140000 of 200000 tokens\)\. .*culture channel compact/);
    await c.note({ usedTokens: 150_000, windowTokens: 200_000 });
    await c.note({ usedTokens: 190_000, windowTokens: 200_000 });
    expect(whispers).toHaveLength(1);
    await c.note({ usedTokens: 30_000, windowTokens: 200_000 }); // compacted
    await c.note({ usedTokens: 145_000, windowTokens: 200_000 });
    expect(whispers).toHaveLength(2);
    expect(c.status()).toMatchObject({ used_tokens: 145_000, window_tokens: 200_000, share: 0.725, warnings: 2, compactions: 0 });
  });

  it("never warns or compacts without a window size, and shows the tokens", async () => {
    const { c, whispers, compactions } = care({ warn_at: 0.1, compact_at: 0.2 });
    await c.note({ usedTokens: 9_999_999, windowTokens: null });
    await c.afterTurn();
    expect(whispers).toHaveLength(0);
    expect(compactions()).toBe(0);
    expect(c.status()).toMatchObject({ used_tokens: 9_999_999, window_tokens: null, share: null });
  });

  it("compacts after the turn that crossed compact_at, once per crossing", async () => {
    const { c, compactions } = care({ warn_at: 0.7, compact_at: 0.85 });
    await c.note({ usedTokens: 180_000, windowTokens: 200_000 });
    expect(compactions()).toBe(0); // never in the middle of a turn
    await c.afterTurn();
    expect(compactions()).toBe(1);
    await c.note({ usedTokens: 190_000, windowTokens: 200_000 }); // still above: not again
    await c.afterTurn();
    expect(compactions()).toBe(1);
    await c.note({ usedTokens: 20_000, windowTokens: 200_000 });
    await c.note({ usedTokens: 175_000, windowTokens: 200_000 });
    await c.afterTurn();
    expect(compactions()).toBe(2);
    expect(c.status()).toMatchObject({ compactions: 2 });
  });

  it("taps the hooks: messages' reports, the turn's end, the status", async () => {
    const hooks = createDaemonHooks();
    const { c, whispers } = care({ warn_at: 0.5, compact_at: null });
    c.apply(hooks);
    const before = hooks.status.call({ nick: "spark-a" } as AgentStatus);
    expect(before.context).toBeUndefined(); // nothing reported yet
    await hooks.agentMessage.promise({ type: "assistant", content: [], context: { usedTokens: 120, windowTokens: 200 } }, null);
    // A message without a report, or with a broken one, changes nothing.
    await hooks.agentMessage.promise({ type: "assistant", content: [{ type: "text", text: "hi" }] }, null);
    await hooks.agentMessage.promise({ type: "assistant", content: [], context: { usedTokens: Number.NaN, windowTokens: 200 } }, null);
    expect(whispers).toHaveLength(1);
    expect(hooks.status.call({ nick: "spark-a" } as AgentStatus).context).toMatchObject({ used_tokens: 120, window_tokens: 200, share: 0.6, warn_at: 0.5, compact_at: null, warnings: 1 });
  });

  it("reads an agent's own context: over the config's, which is over the defaults", () => {
    expect(contextConfigOf({}, {})).toEqual({ warn_at: 0.7, compact_at: null });
    const config = parseConfig("context:\n  warn_at: 0.6\nagents:\n  - nick: spark-a\n  - nick: spark-b\n    context:\n      warn_at: 0.8\n      compact_at: 0.9\n", "/p/agents.yaml", {});
    expect(contextConfigOf(config, config.agents[0]!)).toEqual({ warn_at: 0.6, compact_at: null });
    expect(contextConfigOf(config, config.agents[1]!)).toEqual({ warn_at: 0.8, compact_at: 0.9 });
    expect(contextConfigOf(parseConfig("agents: []\n", "/p/agents.yaml", {}), {})).toEqual({ warn_at: 0.7, compact_at: null });
  });

  it.each([
    ["context:\n  warn_at: 70\n", /context\.warn_at.*at most 1.*not 70/s],
    ["context:\n  warn_at: 0\n", /context\.warn_at.*above 0/s],
    ["context:\n  compact_at: -0.5\n", /context\.compact_at.*above 0/s],
    ["context:\n  warn_at: 0.8\n  compact_at: 0.5\n", /context\.compact_at.*below warn_at/s],
    ["context:\n  warn_at: seventy\n", /context\.warn_at: expected a number, got the string "seventy"/s],
    ["context:\n  warn: 0.7\n", /warn/],
    ["agents:\n  - nick: spark-a\n    context:\n      compact_at: 2\n", /agents\[0\]\.context\.compact_at.*at most 1/s],
  ])("refuses %j with a clear error", (yaml, message) => {
    let caught: unknown;
    try {
      parseConfig(yaml, "/p/agents.yaml", {});
    } catch (err) {
      caught = err;
    }
    expect(isCultureError(caught, "E_CONFIG_INVALID")).toBe(true);
    expect((caught as Error).message).toMatch(message);
  });
});

describe("retry notices", () => {
  function notices(noticeAfterMs: number) {
    let now = 0;
    const told: { id: string; why: string }[] = [];
    let origin: { id: string } | null = { id: "p1" };
    const open = new Set(["p1", "p2"]);
    const n = new RetryNotices({
      logger: quiet,
      noticeAfterMs,
      now: () => now,
      turn: () => origin as never,
      receipts: { isOpen: (id) => open.has(id), tell: (id, s) => void told.push({ id, why: (s as { why: string }).why }) },
    });
    return { n, told, tick: (ms: number) => (now += ms), setTurn: (id: string | null) => (origin = id ? { id } : null) };
  }

  it("tells the asker once the turn's retries have waited long enough, and once only", () => {
    const { n, told, tick } = notices(30_000);
    n.retrying({ reason: "overloaded", detail: "529 overloaded_error", attempt: 1, delayMs: 5_000 });
    tick(5_000);
    n.retrying({ reason: "overloaded", detail: "529 overloaded_error", attempt: 2, delayMs: 10_000 });
    expect(told).toHaveLength(0); // 15 s so far
    tick(10_000);
    n.retrying({ reason: "overloaded", detail: "529 overloaded_error", attempt: 3, delayMs: 20_000 });
    expect(told).toEqual([{ id: "p1", why: "the model API is overloaded (529 overloaded_error); next try in 20s" }]);
    tick(20_000);
    n.retrying({ reason: "overloaded", detail: "529 overloaded_error", attempt: 4, delayMs: 40_000 });
    expect(told).toHaveLength(1);
  });

  it("counts each turn on its own, and stays quiet outside a turn or for a line already answered", () => {
    const { n, told, setTurn } = notices(10_000);
    n.retrying({ reason: "rate_limited", detail: "429", attempt: 1, delayMs: 6_000 });
    setTurn("p2");
    n.retrying({ reason: "rate_limited", detail: "429", attempt: 1, delayMs: 6_000 });
    expect(told).toHaveLength(0); // 6 s in each turn, not 12 s in one
    setTurn(null);
    n.retrying({ reason: "rate_limited", detail: "429", attempt: 2, delayMs: 60_000 });
    setTurn("p3"); // not an open receipt (a schedule's prompt, or already final)
    n.retrying({ reason: "rate_limited", detail: "429", attempt: 1, delayMs: 60_000 });
    expect(told).toHaveLength(0);
    expect(n.retries).toBe(4);
  });
});
