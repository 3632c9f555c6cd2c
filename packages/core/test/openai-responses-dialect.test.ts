// The OpenAI Responses dialect of the scripted model API, over real HTTP. (The real Codex CLI
// runs against it in packages/backend-codex/test/codex.real.test.ts.)
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedModelApi, type ScriptedModelApi } from "../src/testing/index.js";

const history = [
  { type: "message", role: "developer", content: [{ type: "input_text", text: "be brief" }] },
  { type: "message", role: "user", content: [{ type: "input_text", text: "[IRC @mention in #c] <ann> hi" }] },
  { type: "function_call", name: "exec_command", arguments: '{"cmd":"ls"}', call_id: "call_1" },
  { type: "function_call_output", call_id: "call_1", output: "a.txt" },
];

describe("the openai-responses dialect", () => {
  let api: ScriptedModelApi | undefined;
  afterEach(async () => api?.close());

  it("normalises the input history and streams a function call as the Responses API does", async () => {
    api = await startScriptedModelApi({ script: (req) => (req.afterToolResult ? { text: "done" } : { shell: "echo hi" }) });
    const post = (input: unknown[]) =>
      fetch(`${api!.url}/v1/responses`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", stream: true, input, tools: [{ type: "function", name: "exec_command" }, { type: "web_search" }] }),
      }).then((r) => r.text());
    const events = (body: string) => body.split("\n\n").filter(Boolean).map((e) => JSON.parse(e.split("\ndata: ")[1]!) as Record<string, any>);

    const first = events(await post(history.slice(0, 2)));
    expect([...new Set(first.map((e) => e.type))]).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(first.map((e) => e.sequence_number)).toEqual(first.map((_, i) => i));
    expect(first.at(-2)!.item).toMatchObject({ type: "function_call", name: "exec_command", arguments: '{"cmd":"echo hi"}' });
    expect(first.at(-1)!.response.usage.total_tokens).toBeGreaterThan(0);

    const second = events(await post(history));
    expect(second.find((e) => e.type === "response.output_text.done")!.text).toBe("done");
    const [a, b] = api.turns();
    expect(a).toMatchObject({ system: "be brief", lastUserText: "[IRC @mention in #c] <ann> hi", afterToolResult: false, tools: ["exec_command", "web_search"] });
    expect(b).toMatchObject({ lastUserText: "", afterToolResult: true, toolResults: [{ id: "call_1", output: "a.txt" }] });
  });

  it("lists a namespace's tools as <namespace>__<tool> and calls one with the namespace field (Codex's MCP tools)", async () => {
    api = await startScriptedModelApi({ script: () => ({ tool: "mcp__culture__send", input: { target: "#c", message: "hi" } }) });
    const tools = [{ type: "namespace", name: "mcp__culture", tools: [{ type: "function", name: "send" }, { type: "function", name: "read" }] }];
    const body = await fetch(`${api.url}/v1/responses`, {
      method: "POST",
      body: JSON.stringify({ stream: false, input: history.slice(0, 2), tools }),
    }).then((r) => r.json() as Promise<{ output: unknown[] }>);
    expect(api.turns()[0]!.tools).toEqual(["mcp__culture", "mcp__culture__send", "mcp__culture__read"]);
    expect(body.output[0]).toMatchObject({ type: "function_call", name: "send", namespace: "mcp__culture", arguments: '{"target":"#c","message":"hi"}' });
  });

  it("fails with an OpenAI-shaped error body", async () => {
    api = await startScriptedModelApi({ script: () => ({ fail: 429 }) });
    const res = await fetch(`${api.url}/v1/responses`, { method: "POST", body: JSON.stringify({ input: "x" }) });
    expect(res.status).toBe(429);
    expect(await res.json()).toMatchObject({ error: { code: "rate_limit_exceeded", type: "rate_limit_error" } });
  });
});
