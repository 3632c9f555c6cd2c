/**
 * The OpenAI Chat Completions API (`POST .../chat/completions`), as OpenCode calls it through
 * `@ai-sdk/openai-compatible` and Copilot's BYOK `wireApi: "completions"` does: streaming
 * (`stream: true`, SSE chunks ending with `data: [DONE]`) or not, with function tool calls.
 * OpenCode's title requests come without tools; scripts see them as requests with `tools: []`.
 */
import type { ServerResponse } from "node:http";
import type { ModelApiDialect, ModelOutput, ServedUsage } from "./dialect.js";
import type { ModelRequest, ModelToolResult } from "./model-request.js";
import { startSse, writeJsonError, writeSse } from "./sse.js";

interface ChatMessage {
  role?: string;
  content?: unknown;
  tool_call_id?: string;
}

interface ChatBody {
  model?: string;
  stream?: boolean;
  messages?: ChatMessage[];
  tools?: Array<{ type?: string; function?: { name?: string }; name?: string }>;
  stream_options?: { include_usage?: boolean };
}

let nextId = 1;

/** The OpenAI Chat Completions dialect. */
export const openAiChatDialect: ModelApiDialect = {
  api: "openai-chat",

  handles(method, path) {
    return (method === "POST" && path.endsWith("/chat/completions")) || (method === "GET" && /\/v1\/models\/?$/.test(path));
  },

  answerAux(path, _body, res) {
    if (!path.split("?")[0]!.endsWith("/models") && !path.split("?")[0]!.endsWith("/models/")) return false;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ object: "list", data: [{ id: "scripted-model", object: "model", created: 0, owned_by: "culture" }] }));
    return true;
  },

  parse(path, raw) {
    const body = (raw ?? {}) as ChatBody;
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const system = messages
      .filter((m) => m.role === "system" || m.role === "developer")
      .map((m) => contentText(m.content))
      .join("\n");
    const userTexts = messages.filter((m) => m.role === "user").map((m) => contentText(m.content));
    const toolResults: ModelToolResult[] = messages
      .filter((m) => m.role === "tool")
      .map((m) => ({ id: m.tool_call_id ?? "", output: contentText(m.content) }));
    const last = messages.at(-1);
    const afterToolResult = last?.role === "tool";
    const tools = (body.tools ?? []).map((t) => t.function?.name ?? t.name ?? "").filter(Boolean);
    const request: ModelRequest = {
      api: "openai-chat",
      path,
      model: body.model,
      stream: body.stream === true,
      system,
      userTexts,
      lastUserText: last?.role === "user" ? contentText(last.content) : "",
      toolResults,
      afterToolResult,
      tools,
      body: raw,
    };
    return request;
  },

  reply(req, output, res) {
    const id = `chatcmpl-scripted-${nextId++}`;
    const created = Math.floor(Date.now() / 1000);
    const model = req.model ?? "scripted-model";
    const call = output.toolCall ? { id: `call_scripted_${nextId++}`, ...output.toolCall } : undefined;
    const finishReason = call ? "tool_calls" : "stop";
    // OpenAI's counting: prompt tokens include the cached ones, completion tokens the reasoning ones.
    const promptTokens = output.inputTokens ?? Math.max(1, Math.ceil(JSON.stringify((req.body as ChatBody | undefined)?.messages ?? "").length / 4));
    const completionTokens = Math.max(1, Math.ceil(JSON.stringify(assistantMessage(output, call)).length / 4));
    const cached = Math.floor(promptTokens / 4);
    const reasoning = Math.min(2, completionTokens);
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      prompt_tokens_details: { cached_tokens: cached },
      completion_tokens_details: { reasoning_tokens: reasoning },
    };
    const served: ServedUsage = { input: promptTokens, output: completionTokens, cacheRead: cached, cacheWrite: 0, reasoning };
    if (!req.stream) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id,
          object: "chat.completion",
          created,
          model,
          choices: [{ index: 0, message: assistantMessage(output, call), finish_reason: finishReason }],
          usage,
        }),
      );
      return served;
    }
    const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    startSse(res);
    writeSse(res, chunk({ role: "assistant", content: "" }, null));
    if (output.text) writeSse(res, chunk({ content: output.text }, null));
    if (call) {
      writeSse(
        res,
        chunk({ tool_calls: [{ index: 0, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }, null),
      );
      writeSse(res, chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(call.input) } }] }, null));
    }
    writeSse(res, chunk({}, finishReason));
    const body = req.body as ChatBody | undefined;
    if (body?.stream_options?.include_usage) {
      writeSse(res, { id, object: "chat.completion.chunk", created, model, choices: [], usage });
    }
    writeSse(res, "[DONE]");
    res.end();
    // A streamed reply reports usage only when the client asked for it.
    return body?.stream_options?.include_usage ? served : undefined;
  },

  fail(status, message, res) {
    writeJsonError(res, status, { error: { message, type: errorType(status), code: status } });
  },
};

function assistantMessage(output: ModelOutput, call: { id: string; name: string; input: Record<string, unknown> } | undefined) {
  return {
    role: "assistant",
    content: output.text ?? null,
    ...(call ? { tool_calls: [{ id: call.id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.input) } }] } : {}),
  };
}

/** A message's content as text: a string, or the text parts of a content array. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) => {
        const p = part as { type?: string; text?: unknown };
        return typeof p.text === "string" ? p.text : "";
      })
      .join("");
  }
  if (content === null || content === undefined) return "";
  return JSON.stringify(content);
}

function errorType(status: number): string {
  if (status === 401) return "invalid_request_error";
  if (status === 429) return "rate_limit_exceeded";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}
