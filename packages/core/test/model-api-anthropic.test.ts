/**
 * The scripted Anthropic Messages API on the wire: the SSE events in the API's order with
 * text and tool_use blocks, the same reply as one JSON message, count_tokens, the API's
 * error shape, and the parse of the history shapes Claude Code sends. (The real Claude Code
 * CLI runs against it in packages/backend-claude/test/claude.real.test.ts.)
 */
import { afterEach, describe, expect, it } from "vitest";
import { anthropicMessagesDialect, parseAnthropicRequest } from "../src/testing/model-apis/anthropic-messages.js";
import { startScriptedModelApi, type ScriptedModelApi } from "../src/testing/model-apis/scripted-model-api.js";

let api: ScriptedModelApi | null = null;
afterEach(async () => {
  await api?.close();
  api = null;
});

const bash = { name: "Bash", description: "run", input_schema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } };

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${api!.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

function events(sse: string): Array<{ event: string; data: Record<string, unknown> }> {
  return sse
    .split("\n\n")
    .filter(Boolean)
    .map((chunk) => {
      const event = /^event: (.*)$/m.exec(chunk)![1]!;
      const data = JSON.parse(/^data: (.*)$/m.exec(chunk)![1]!) as Record<string, unknown>;
      expect(data.type).toBe(event);
      return { event, data };
    });
}

describe("the scripted Anthropic Messages API", () => {
  it("streams text and a tool call as the API does, and the tool input reassembles from input_json_delta", async () => {
    api = await startScriptedModelApi({ dialects: [anthropicMessagesDialect], script: () => ({ text: "Running it.", shell: "echo hi" }) });
    const res = await post("/v1/messages?beta=true", { model: "claude-x", stream: true, max_tokens: 100, tools: [bash], messages: [{ role: "user", content: "hi" }] });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const evs = events(await res.text());
    const order = evs.map((e) => e.event).filter((e) => e !== "content_block_delta");
    expect(order).toEqual(["message_start", "ping", "content_block_start", "content_block_stop", "content_block_start", "content_block_stop", "message_delta", "message_stop"]);
    const start = evs[0]!.data.message as Record<string, unknown>;
    expect(start).toMatchObject({ type: "message", role: "assistant", model: "claude-x", content: [], stop_reason: null });
    const text = evs.filter((e) => e.event === "content_block_delta" && e.data.index === 0).map((e) => (e.data.delta as { text: string }).text).join("");
    expect(text).toBe("Running it.");
    const tool = evs.find((e) => e.event === "content_block_start" && e.data.index === 1)!.data.content_block as Record<string, unknown>;
    expect(tool).toMatchObject({ type: "tool_use", name: "Bash", input: {} });
    expect(String(tool.id)).toMatch(/^toolu_/);
    const json = evs
      .filter((e) => e.event === "content_block_delta" && e.data.index === 1)
      .map((e) => e.data.delta as { type: string; partial_json: string })
      .map((d) => (expect(d.type).toBe("input_json_delta"), d.partial_json))
      .join("");
    expect(JSON.parse(json)).toEqual({ command: "echo hi", description: "Run a shell command" });
    expect(evs.find((e) => e.event === "message_delta")!.data).toMatchObject({ delta: { stop_reason: "tool_use" }, usage: { output_tokens: expect.any(Number) } });
  });

  it("answers without streaming as one message, counts tokens, and fails in the API's error shape", async () => {
    let status = 0;
    api = await startScriptedModelApi({ dialects: [anthropicMessagesDialect], script: () => (status ? { fail: status } : { text: "plain" }) });
    const plain = (await (await post("/v1/messages", { model: "m", messages: [{ role: "user", content: "hi" }] })).json()) as Record<string, unknown>;
    expect(plain).toMatchObject({ type: "message", role: "assistant", content: [{ type: "text", text: "plain" }], stop_reason: "end_turn" });
    const count = (await (await post("/v1/messages/count_tokens", { model: "m", messages: [{ role: "user", content: "hi" }] })).json()) as Record<string, unknown>;
    expect(count.input_tokens).toEqual(expect.any(Number));
    for (const [code, type] of [[401, "authentication_error"], [429, "rate_limit_error"], [529, "overloaded_error"], [500, "api_error"]] as const) {
      status = code;
      const res = await post("/v1/messages", { model: "m", stream: true, messages: [{ role: "user", content: "hi" }] });
      expect(res.status).toBe(code);
      expect(await res.json()).toMatchObject({ type: "error", error: { type, message: `scripted failure ${code}` } });
    }
    // Token counting and Claude Code's connectivity check are not model turns.
    expect((await fetch(`${api.url}/api/hello`, { method: "HEAD" })).status).toBe(200);
    expect(api.turns()).toHaveLength(5);
  });

  it("reads Claude Code's history: system entries, system reminders, merged user entries and tool results", () => {
    const body = {
      model: "m",
      system: [{ type: "text", text: "billing" }, { type: "text", text: "You are Claude Code" }],
      tools: [bash],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "<system-reminder>\ncontext\n</system-reminder>" },
            { type: "text", text: "[IRC @mention in #c] <a> one\n" },
            { type: "text", text: "[Request interrupted by user]\n" },
            { type: "text", text: "[IRC @mention in #c] <a> two" },
          ],
        },
        { role: "system", content: "# Environment" },
      ],
    };
    const first = parseAnthropicRequest("/v1/messages", body);
    expect(first).toMatchObject({
      system: "billing\nYou are Claude Code",
      userTexts: ["[IRC @mention in #c] <a> one", "[Request interrupted by user]", "[IRC @mention in #c] <a> two"],
      lastUserText: "[IRC @mention in #c] <a> two",
      afterToolResult: false,
      tools: ["Bash"],
    });
    const next = parseAnthropicRequest("/v1/messages", {
      ...body,
      messages: [
        ...body.messages,
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "a.txt" }] }, { type: "text", text: "<system-reminder>\nwhisper\n</system-reminder>" }] },
      ],
    });
    expect(next).toMatchObject({ lastUserText: "", afterToolResult: true, toolResults: [{ id: "toolu_1", output: "a.txt" }] });
  });
});
