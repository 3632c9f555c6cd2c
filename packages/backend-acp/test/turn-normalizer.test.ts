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
    expect(n.finish({ stopReason: "end_turn" })).toBeNull();
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
    expect(n.finish()!.content).toEqual([
      { type: "tool_use", id: "t", name: "Fetch", input: {} },
      { type: "text", text: "done" },
    ]);
  });

  it("joins text and thinking chunks, ignores non-text content, and uses usage_update without response usage", () => {
    const n = new TurnNormalizer();
    n.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hel" } });
    n.push({ sessionUpdate: "agent_message_chunk", content: { type: "image", data: "", mimeType: "image/png" } });
    n.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "lo" } });
    n.push({ sessionUpdate: "usage_update", used: 10, size: 100 });
    n.push({ sessionUpdate: "usage_update", used: 42, size: 100 });
    n.push({ sessionUpdate: "plan", entries: [] });
    expect(n.finish({ stopReason: "end_turn" })).toEqual({
      type: "assistant",
      content: [{ type: "text", text: "Hello" }],
      usage: { inputTokens: 42, outputTokens: 0 },
    });
  });

  it("returns null for a turn that produced nothing", () => {
    expect(new TurnNormalizer().finish({ stopReason: "cancelled" })).toBeNull();
  });
});
