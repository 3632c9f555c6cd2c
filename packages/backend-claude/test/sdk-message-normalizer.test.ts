import { describe, expect, it } from "vitest";
import { normalizeSdkMessage } from "../src/sdk-message-normalizer.js";

const assistant = (content: unknown[], extra: Record<string, unknown> = {}) => ({
  type: "assistant",
  session_id: "s",
  parent_tool_use_id: null,
  message: { model: "claude-sonnet-4-6", content, usage: { input_tokens: 3, output_tokens: 4, cache_read_input_tokens: 10 } },
  ...extra,
});

describe("normalizeSdkMessage", () => {
  it("turns assistant blocks into culture blocks (thinking key, tool_use input) without the per-block usage (not additive: the turn's usage comes from the result)", () => {
    const n = normalizeSdkMessage(
      assistant([
        { type: "thinking", thinking: "hmm", signature: "x" },
        { type: "text", text: "hi" },
        { type: "tool_use", id: "t1", name: "Bash", input: { command: "ls" } },
        { type: "redacted_thinking", data: "..." },
      ]),
    );
    expect(n).toEqual({
      kind: "message",
      message: {
        type: "assistant",
        model: "claude-sonnet-4-6",
        content: [
          { type: "thinking", thinking: "hmm" },
          { type: "text", text: "hi" },
          { type: "tool_use", id: "t1", name: "Bash", input: { command: "ls" } },
        ],
      },
    });
  });

  it("reports tool results from user messages, with is_error only when set", () => {
    const n = normalizeSdkMessage({
      type: "user",
      message: {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "out" }] },
          { type: "tool_result", tool_use_id: "t2", content: "boom", is_error: true },
          { type: "text", text: "not a result" },
        ],
      },
    });
    expect(n).toEqual({
      kind: "message",
      message: {
        type: "assistant",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "out" }] },
          { type: "tool_result", tool_use_id: "t2", content: "boom", is_error: true },
        ],
      },
    });
  });

  it("keeps only the tool calls of a subagent's messages (its text is not the agent's answer)", () => {
    const n = normalizeSdkMessage(assistant([{ type: "text", text: "sub says" }, { type: "tool_use", id: "t9", name: "Grep", input: {} }], { parent_tool_use_id: "task1" }));
    expect(n.kind === "message" && n.message.content).toEqual([{ type: "tool_use", id: "t9", name: "Grep", input: {} }]);
  });

  it("sets apart assistant messages that stand for API errors", () => {
    const n = normalizeSdkMessage(assistant([{ type: "text", text: "Invalid API key · Please run /login" }], { error: "authentication_failed" }));
    expect(n).toEqual({ kind: "api-error", error: "authentication_failed", text: "Invalid API key · Please run /login" });
  });

  it("reads system/init and result messages", () => {
    expect(normalizeSdkMessage({ type: "system", subtype: "init", session_id: "abc", model: "m", permissionMode: "bypassPermissions" })).toEqual({
      kind: "init",
      sessionId: "abc",
      model: "m",
      permissionMode: "bypassPermissions",
    });
    expect(normalizeSdkMessage({ type: "result", subtype: "success", is_error: true, result: "API Error: 529", api_error_status: 529, session_id: "abc" })).toEqual({
      kind: "result",
      result: { subtype: "success", isError: true, text: "API Error: 529", errors: [], apiErrorStatus: 529, sessionId: "abc", modelUsage: null },
    });
    const failed = normalizeSdkMessage({ type: "result", subtype: "error_max_turns", is_error: false, errors: ["max turns"] });
    expect(failed.kind === "result" && failed.result).toMatchObject({ isError: true, errors: ["max turns"] });
  });

  it("skips what carries nothing for the daemon, and marks what it has never seen as unknown", () => {
    expect(normalizeSdkMessage({ type: "stream_event", event: {} })).toMatchObject({ kind: "skip", known: true });
    expect(normalizeSdkMessage({ type: "system", subtype: "api_retry", attempt: 2, max_retries: 10, error: "authentication_failed", error_status: 401, retry_delay_ms: 1022 })).toEqual({
      kind: "api-retry",
      attempt: 2,
      maxRetries: 10,
      error: "authentication_failed",
      status: 401,
      delayMs: 1022,
    });
    expect(normalizeSdkMessage({ type: "system", subtype: "from_the_future" })).toMatchObject({ kind: "skip", known: false });
    expect(normalizeSdkMessage({ type: "hologram" })).toMatchObject({ kind: "skip", known: false });
    expect(normalizeSdkMessage("garbage")).toMatchObject({ kind: "skip", known: false });
    expect(normalizeSdkMessage(assistant([{ type: "text", text: "" }]))).toMatchObject({ kind: "skip", known: true });
  });
});
