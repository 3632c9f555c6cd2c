import { describe, expect, it } from "vitest";
import { TurnNormalizer } from "../src/turn-normalizer.js";

describe("TurnNormalizer", () => {
  it("waits for a tool call's input before reporting it, and reports thinking first", () => {
    const n = new TurnNormalizer("m1");
    expect(n.push({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "plan" } })).toEqual([]);
    expect(n.push({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Run tests", kind: "execute" })).toEqual([]);
    expect(n.push({ sessionUpdate: "tool_call_update", toolCallId: "t1", rawInput: { command: "npm test" } })).toEqual([
      {
        type: "assistant",
        model: "m1",
        content: [
          { type: "thinking", thinking: "plan" },
          { type: "tool_use", id: "t1", name: "Run tests", input: { command: "npm test" } },
        ],
      },
    ]);
    expect(
      n.push({
        sessionUpdate: "tool_call_update",
        toolCallId: "t1",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "ok" } }],
      }),
    ).toEqual([{ type: "assistant", model: "m1", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] }]);
    // A second completion of the same call is not reported twice.
    expect(n.push({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" })).toEqual([]);
    expect(n.finish({ stopReason: "end_turn" })).toEqual([]);
  });

  it("waits for a pending call's input (OpenCode 1.18.33 sends only {cwd} first, the command later)", () => {
    // The exact sequence the real `opencode acp` sends for one bash call.
    const n = new TurnNormalizer();
    const cwd = "/work/project";
    const pending = { sessionUpdate: "tool_call", toolCallId: "c1", title: "bash", kind: "execute", status: "pending", rawInput: { cwd } } as const;
    expect(n.push(pending)).toEqual([]);
    const command = "culture channel send '#test' hi";
    const running = n.push({
      sessionUpdate: "tool_call_update",
      toolCallId: "c1",
      kind: "execute",
      status: "in_progress",
      title: command,
      rawInput: { command, description: "Run a shell command", cwd },
    });
    expect(running).toEqual([
      { type: "assistant", content: [{ type: "tool_use", id: "c1", name: "bash", input: { command, description: "Run a shell command", cwd } }] },
    ]);
    expect(n.push({ sessionUpdate: "tool_call_update", toolCallId: "c1", status: "in_progress", title: command, rawInput: { command, cwd } })).toEqual([]);
    const [done] = n.push({ sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed", title: command, rawOutput: { output: "sent" } });
    expect(done!.content).toEqual([{ type: "tool_result", tool_use_id: "c1", content: { output: "sent" } }]);
  });

  it("two different bash calls of OpenCode are two different tool uses (no false 'same call')", () => {
    const n = new TurnNormalizer();
    const uses = ["ls", "pwd"].flatMap((command, i) => [
      ...n.push({ sessionUpdate: "tool_call", toolCallId: `c${i}`, title: "bash", kind: "execute", status: "pending", rawInput: { cwd: "/w" } }),
      ...n.push({ sessionUpdate: "tool_call_update", toolCallId: `c${i}`, status: "in_progress", title: command, rawInput: { command, cwd: "/w" } }),
    ]);
    expect(uses.flatMap((m) => m.content)).toEqual([
      { type: "tool_use", id: "c0", name: "bash", input: { command: "ls", cwd: "/w" } },
      { type: "tool_use", id: "c1", name: "bash", input: { command: "pwd", cwd: "/w" } },
    ]);
  });

  it("prefers the tool's programmatic name over its title", () => {
    const n = new TurnNormalizer();
    const [message] = n.push({ sessionUpdate: "tool_call", toolCallId: "t", title: "Read a.ts", name: "read_file", rawInput: { p: 1 } });
    expect(message!.content).toEqual([{ type: "tool_use", id: "t", name: "read_file", input: { p: 1 } }]);
  });

  it("reports a call that completes at once with both blocks", () => {
    const n = new TurnNormalizer();
    const [message] = n.push({ sessionUpdate: "tool_call", toolCallId: "t", title: "x", status: "failed", rawOutput: "boom" });
    expect(message!.content).toEqual([
      { type: "tool_use", id: "t", name: "x", input: {} },
      { type: "tool_result", tool_use_id: "t", content: "boom", is_error: true },
    ]);
  });

  it("reports a call that never got input or status at the end of the turn", () => {
    const n = new TurnNormalizer();
    n.push({ sessionUpdate: "tool_call", toolCallId: "t", title: "Fetch", kind: "fetch" });
    n.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "done" } });
    expect(n.finish()[0]!.content).toEqual([
      { type: "tool_use", id: "t", name: "Fetch", input: {} },
      { type: "text", text: "done" },
    ]);
  });

  it("joins text and thinking chunks, ignores non-text content, and does not count usage_update's context size as tokens", () => {
    const n = new TurnNormalizer();
    n.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hel" } });
    n.push({ sessionUpdate: "agent_message_chunk", content: { type: "image", data: "", mimeType: "image/png" } });
    n.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "lo" } });
    n.push({ sessionUpdate: "usage_update", used: 10, size: 100 });
    n.push({ sessionUpdate: "usage_update", used: 42, size: 100 });
    n.push({ sessionUpdate: "plan", entries: [] });
    expect(n.finish({ stopReason: "end_turn" })).toEqual([{ type: "assistant", content: [{ type: "text", text: "Hello" }] }]);
  });

  it("puts the response's usage (OpenCode's disjoint parts) and the turn's cost on the final message", () => {
    const n = new TurnNormalizer("m1");
    n.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } });
    const response = { stopReason: "end_turn", usage: { inputTokens: 100, outputTokens: 20, thoughtTokens: 5, cachedReadTokens: 300, cachedWriteTokens: 7, totalTokens: 432 } };
    expect(n.finish(response, 0.25)).toEqual([
      { type: "assistant", model: "m1", content: [{ type: "text", text: "hi" }], usage: { inputTokens: 407, outputTokens: 25, cacheReadTokens: 300, cacheWriteTokens: 7, reasoningTokens: 5, costUsd: 0.25 } },
    ]);
  });

  it("reads Gemini CLI's _meta.quota per model, one message per model", () => {
    const n = new TurnNormalizer("gemini-2.5-pro");
    n.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } });
    const response = {
      stopReason: "end_turn",
      _meta: { quota: { token_count: { input_tokens: 130, output_tokens: 12 }, model_usage: [{ model: "gemini-2.5-pro", token_count: { input_tokens: 100, output_tokens: 10 } }, { model: "gemini-2.5-flash", token_count: { input_tokens: 30, output_tokens: 2 } }] } },
    };
    expect(n.finish(response)).toEqual([
      { type: "assistant", model: "gemini-2.5-pro", content: [{ type: "text", text: "hi" }], usage: { inputTokens: 100, outputTokens: 10 } },
      { type: "assistant", model: "gemini-2.5-flash", content: [], usage: { inputTokens: 30, outputTokens: 2 } },
    ]);
  });

  it("returns nothing for a turn that produced nothing", () => {
    expect(new TurnNormalizer().finish({ stopReason: "cancelled" })).toEqual([]);
  });
});
