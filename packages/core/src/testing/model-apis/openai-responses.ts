/**
 * The OpenAI Responses API (`POST /v1/responses`), as Codex (and Copilot BYOK with
 * `wireApi: "responses"`) call it: the history is `input` (messages with `input_text` /
 * `output_text` parts, `function_call` and `function_call_output` items), the system prompt is
 * `instructions`, tools are `{type: "function", name, ...}` (Codex also offers `custom` and
 * built-in tools). A streaming answer is the SSE sequence the real API sends:
 * `response.created`, `response.in_progress`, per output item `response.output_item.added`,
 * the content/argument deltas and their `.done`, `response.output_item.done`, and finally
 * `response.completed` with the whole response and its usage. Every event has a `type` and a
 * `sequence_number`, and is written with a matching `event:` line.
 */
import type { ServerResponse } from "node:http";
import { randomUUID } from "node:crypto";
import type { ModelApiDialect, ModelOutput, ServedUsage } from "./dialect.js";
import type { ModelRequest, ModelToolResult } from "./model-request.js";
import { startSse, writeJsonError, writeSse } from "./sse.js";

type Json = Record<string, unknown>;

/** The OpenAI Responses API dialect. */
export const openaiResponsesDialect: ModelApiDialect = {
  api: "openai-responses",

  handles: (method, path) => method === "POST" && /\/responses$/.test(path),

  parse(path, body): ModelRequest {
    const b = (body ?? {}) as Json;
    const input = typeof b.input === "string" ? [{ type: "message", role: "user", content: b.input }] : asArray(b.input);
    const userTexts: string[] = [];
    const toolResults: ModelToolResult[] = [];
    let lastKind: "user" | "tool" | "other" = "other";
    let lastUserText = "";
    const developer: string[] = [];
    for (const raw of input) {
      const item = (raw ?? {}) as Json;
      const type = item.type ?? (item.role ? "message" : undefined);
      if (type === "message" && item.role === "user") {
        const text = contentText(item.content);
        userTexts.push(text);
        lastUserText = text;
        lastKind = "user";
      } else if (type === "function_call_output" || type === "custom_tool_call_output" || type === "local_shell_call_output") {
        toolResults.push({ id: String(item.call_id ?? item.id ?? ""), output: outputText(item.output) });
        lastKind = "tool";
      } else if (type === "message" && (item.role === "developer" || item.role === "system")) {
        developer.push(contentText(item.content));
      } else if (type === "message" && item.role === "assistant") {
        lastKind = "other";
      }
      // developer messages, reasoning items and the calls themselves leave lastKind as it was
    }
    return {
      api: "openai-responses",
      path,
      model: typeof b.model === "string" ? b.model : undefined,
      stream: b.stream === true,
      // Codex sends its prompts as developer messages (and no `instructions`).
      system: [typeof b.instructions === "string" ? b.instructions : "", ...developer].filter(Boolean).join("\n\n"),
      userTexts,
      lastUserText: lastKind === "user" ? lastUserText : "",
      toolResults,
      afterToolResult: lastKind === "tool",
      tools: asArray(b.tools).flatMap((t) => {
        const tool = (t ?? {}) as Json;
        const name = tool.name ?? (tool.function as Json | undefined)?.name;
        // A namespace (Codex offers each MCP server's tools as one, e.g. `mcp__culture`) also
        // lists its tools as `<namespace>__<tool>`, the name a script calls them by.
        const inner = tool.type === "namespace" && typeof name === "string" ? namespaceTools(tool).map((child) => `${name}__${child}`) : [];
        return typeof name === "string" ? [name, ...inner] : typeof tool.type === "string" ? [tool.type] : [];
      }),
      body,
    };
  },

  reply(req, output, res) {
    const response = buildResponse(req, output);
    if (!req.stream) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ...response, status: "completed" }));
      return servedOf(response);
    }
    let seq = 0;
    const send = (type: string, data: Json) => writeSse(res, { type, sequence_number: seq++, ...data }, type);
    startSse(res);
    const shell = { ...response, status: "in_progress", output: [], usage: null };
    send("response.created", { response: shell });
    send("response.in_progress", { response: shell });
    const items = response.output as Json[];
    items.forEach((item, outputIndex) => {
      if (item.type === "message") {
        const text = String(((item.content as Json[])[0] as Json).text);
        send("response.output_item.added", { output_index: outputIndex, item: { ...item, status: "in_progress", content: [] } });
        const part = { type: "output_text", text: "", annotations: [] };
        send("response.content_part.added", { item_id: item.id, output_index: outputIndex, content_index: 0, part });
        for (const delta of chunks(text)) {
          send("response.output_text.delta", { item_id: item.id, output_index: outputIndex, content_index: 0, delta, logprobs: [] });
        }
        send("response.output_text.done", { item_id: item.id, output_index: outputIndex, content_index: 0, text, logprobs: [] });
        send("response.content_part.done", { item_id: item.id, output_index: outputIndex, content_index: 0, part: { ...part, text } });
      } else {
        const args = String(item.arguments);
        send("response.output_item.added", { output_index: outputIndex, item: { ...item, status: "in_progress", arguments: "" } });
        for (const delta of chunks(args)) send("response.function_call_arguments.delta", { item_id: item.id, output_index: outputIndex, delta });
        send("response.function_call_arguments.done", { item_id: item.id, output_index: outputIndex, arguments: args });
      }
      send("response.output_item.done", { output_index: outputIndex, item });
    });
    send("response.completed", { response: { ...response, status: "completed" } });
    res.end();
    return servedOf(response);
  },

  fail(status, message, res) {
    const type = status === 401 ? "invalid_request_error" : status === 429 ? "rate_limit_error" : status >= 500 ? "server_error" : "invalid_request_error";
    const code = status === 401 ? "invalid_api_key" : status === 429 ? "rate_limit_exceeded" : status === 529 ? "overloaded" : null;
    writeJsonError(res, status, { error: { message, type, param: null, code } });
  },
};

/** The complete `response` object for an output (status set by the caller). */
function buildResponse(req: ModelRequest, output: ModelOutput): Json {
  const items: Json[] = [];
  if (output.text !== undefined && output.text !== "") {
    items.push({
      id: `msg_${hex()}`,
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: output.text, annotations: [], logprobs: [] }],
    });
  }
  if (output.toolCall) {
    items.push({
      id: `fc_${hex()}`,
      type: "function_call",
      status: "completed",
      ...functionName(req, output.toolCall.name),
      call_id: `call_${hex()}`,
      arguments: JSON.stringify(output.toolCall.input),
    });
  }
  if (items.length === 0) {
    items.push({ id: `msg_${hex()}`, type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: "", annotations: [], logprobs: [] }] });
  }
  const inputTokens = output.inputTokens ?? Math.ceil(JSON.stringify((req.body as Json | undefined)?.input ?? "").length / 4);
  const outputTokens = Math.ceil(JSON.stringify(items).length / 4);
  return {
    id: `resp_${hex()}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "completed",
    error: null,
    incomplete_details: null,
    model: req.model ?? "scripted-model",
    output: items,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    usage: {
      input_tokens: inputTokens,
      // OpenAI's counting: input includes the cached tokens, output the reasoning tokens.
      input_tokens_details: { cached_tokens: Math.floor(inputTokens / 4) },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: Math.min(3, outputTokens) },
      total_tokens: inputTokens + outputTokens,
    },
  };
}

/** A response's usage in culture's counting. */
function servedOf(response: Json): ServedUsage {
  const u = response.usage as { input_tokens: number; output_tokens: number; input_tokens_details: { cached_tokens: number }; output_tokens_details: { reasoning_tokens: number } };
  return { input: u.input_tokens, output: u.output_tokens, cacheRead: u.input_tokens_details.cached_tokens, cacheWrite: 0, reasoning: u.output_tokens_details.reasoning_tokens };
}

/** The names of a namespace tool's functions. */
function namespaceTools(tool: Json): string[] {
  return asArray(tool.tools).flatMap((c) => {
    const name = ((c ?? {}) as Json).name;
    return typeof name === "string" ? [name] : [];
  });
}

/**
 * How a function call names `tool`: a tool of a namespace the request offered
 * (`<namespace>__<tool>`) is called by its own name with the `namespace` field, as the API
 * answers calls of namespaced tools; anything else by its name.
 */
function functionName(req: ModelRequest, tool: string): { name: string; namespace?: string } {
  for (const t of asArray((req.body as Json | undefined)?.tools)) {
    const ns = (t ?? {}) as Json;
    if (ns.type !== "namespace" || typeof ns.name !== "string" || !tool.startsWith(`${ns.name}__`)) continue;
    const name = tool.slice(ns.name.length + 2);
    if (namespaceTools(ns).includes(name)) return { name, namespace: ns.name };
  }
  return { name: tool };
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** The text of a message's `content` (a string, or parts with `text`). */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  return asArray(content)
    .map((p) => ((p as Json | null)?.text === undefined ? "" : String((p as Json).text)))
    .filter(Boolean)
    .join("\n");
}

/** A tool output as text: a string, or content parts (`input_text`...), else JSON. */
function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  if (Array.isArray(output)) return contentText(output);
  return JSON.stringify(output ?? null);
}

/** Splits a text into a few deltas, as a streaming API would. */
function chunks(text: string): string[] {
  if (text.length === 0) return [];
  const size = Math.max(8, Math.ceil(text.length / 3));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function hex(): string {
  return randomUUID().replace(/-/g, "");
}
