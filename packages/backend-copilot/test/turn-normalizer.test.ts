import type { SessionEvent } from "@github/copilot-sdk";
import { describe, expect, it } from "vitest";
import { chooseEffort } from "../src/reasoning-effort.js";
import { TurnNormalizer } from "../src/turn-normalizer.js";

let seq = 0;
/** A session event as the runtime sends it (only the fields the normalizer reads matter). */
function ev(type: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}): SessionEvent {
  return { id: `e${++seq}`, parentId: null, timestamp: new Date(0).toISOString(), type, data, ...extra } as unknown as SessionEvent;
}

describe("TurnNormalizer", () => {
  it("holds the last message until the turn ends, then attaches the summed usage", () => {
    const n = new TurnNormalizer("m");
    expect(n.push(ev("assistant.message", { messageId: "1", content: "first" }))).toEqual([]);
    expect(n.push(ev("assistant.usage", { model: "m", inputTokens: 3, outputTokens: 1 }))).toEqual([]);
    const flushed = n.push(ev("assistant.message", { messageId: "2", content: "second", model: "m2" }));
    expect(flushed).toEqual([{ type: "assistant", model: "m", content: [{ type: "text", text: "first" }] }]);
    n.push(ev("assistant.usage", { model: "m", inputTokens: 4, outputTokens: 5, cacheReadTokens: 2, cacheWriteTokens: 1, reasoningTokens: 3, cost: 1 }));
    // `cost` is Copilot's premium-request multiplier, not USD: it is not reported as money.
    expect(n.finish()).toEqual({
      type: "assistant",
      model: "m2",
      content: [{ type: "text", text: "second" }],
      usage: { inputTokens: 7, outputTokens: 6, cacheReadTokens: 2, cacheWriteTokens: 1, reasoningTokens: 3 },
    });
    expect(n.finish()).toBeNull();
  });

  it("reports the usage of a turn that ended on a tool call as a message of its own", () => {
    const n = new TurnNormalizer("m");
    n.push(ev("tool.execution_start", { toolCallId: "c1", toolName: "bash", arguments: { command: "ls" } }));
    n.push(ev("assistant.usage", { model: "m", inputTokens: 10, outputTokens: 2 }));
    n.push(ev("tool.execution_complete", { toolCallId: "c1", success: true, result: { content: "x" } }));
    expect(n.finish()).toEqual({ type: "assistant", model: "m", content: [], usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } });
    expect(n.finish()).toBeNull();
  });

  it("uses a message's reasoningText when no reasoning event came, and reports leftover reasoning at the end", () => {
    const n = new TurnNormalizer(undefined);
    n.push(ev("assistant.message", { messageId: "1", content: "hi", reasoningText: "hmm" }));
    expect(n.finish()!.content).toEqual([
      { type: "thinking", thinking: "hmm" },
      { type: "text", text: "hi" },
    ]);
    const m = new TurnNormalizer(undefined);
    m.push(ev("assistant.reasoning", { reasoningId: "r", content: "only thoughts" }));
    expect(m.finish()!.content).toEqual([{ type: "thinking", thinking: "only thoughts" }]);
  });

  it("reports each tool result once: from the hook when it comes first, else from execution_complete", () => {
    const n = new TurnNormalizer(undefined);
    n.push(ev("tool.execution_start", { toolCallId: "a", toolName: "bash", arguments: { command: "ls", cwd: "/x" } }));
    n.push(ev("tool.execution_start", { toolCallId: "b", toolName: "view", arguments: { path: "f" } }));
    // Same arguments in another key order still match call "a".
    expect(n.pushToolHook({ toolName: "bash", toolArgs: { cwd: "/x", command: "ls" }, result: "files", isError: false })).toEqual([
      { type: "assistant", content: [{ type: "tool_result", tool_use_id: "a", content: "files" }] },
    ]);
    expect(n.push(ev("tool.execution_complete", { toolCallId: "a", success: true, result: { content: "files" } }))).toEqual([]);
    expect(n.push(ev("tool.execution_complete", { toolCallId: "b", success: false, error: { message: "nope" } }))).toEqual([
      { type: "assistant", content: [{ type: "tool_result", tool_use_id: "b", content: "nope", is_error: true }] },
    ]);
  });

  it("reports a hook for a call the runtime never announced as a whole call with its own id", () => {
    const n = new TurnNormalizer(undefined);
    expect(n.pushToolHook({ toolName: "grep", toolArgs: { q: "x" }, result: "boom", isError: true })).toEqual([
      {
        type: "assistant",
        content: [
          { type: "tool_use", id: "hook-1", name: "grep", input: { q: "x" } },
          { type: "tool_result", tool_use_id: "hook-1", content: "boom", is_error: true },
        ],
      },
    ]);
  });

  it("keeps a session.error until later activity clears it; sub-agent errors never count", () => {
    const n = new TurnNormalizer(undefined);
    n.push(ev("session.error", { errorType: "rate_limit", message: "slow down" }));
    expect(n.error?.message).toBe("slow down");
    n.push(ev("assistant.message", { messageId: "1", content: "carrying on" }));
    expect(n.error).toBeNull();
    n.push(ev("session.error", { errorType: "query", message: "sub failed" }, { agentId: "sub" }));
    expect(n.error).toBeNull();
    n.push(ev("session.error", { errorType: "query", message: "failed" }));
    expect(n.error?.errorType).toBe("query");
  });
});

describe("chooseEffort", () => {
  const reasoner = {
    id: "r",
    name: "R",
    capabilities: { supports: { vision: false, reasoningEffort: true }, limits: { max_context_window_tokens: 1 } },
    supportedReasoningEfforts: ["low", "medium", "high"] as const,
  };
  const plain = { id: "p", name: "P", capabilities: { supports: { vision: false, reasoningEffort: false }, limits: { max_context_window_tokens: 1 } } };
  const cases: Array<[string, Parameters<typeof chooseEffort>[0], unknown, string | undefined]> = [
    ["none sends nothing", "none", reasoner, undefined],
    ["a supported level is sent as is", "medium", reasoner, "medium"],
    ["max falls back to the highest supported level", "max", reasoner, "high"],
    ["a model without efforts gets none", "high", plain, undefined],
    ["an unknown model gets none", "high", undefined, undefined],
  ];
  for (const [name, thinking, model, expected] of cases) {
    it(name, () => {
      expect(chooseEffort(thinking, model as Parameters<typeof chooseEffort>[1]).effort).toBe(expected);
    });
  }
  it("with only higher levels supported, picks the lowest", () => {
    expect(chooseEffort("low", { ...reasoner, supportedReasoningEfforts: ["high", "xhigh"] }).effort).toBe("high");
  });
});
