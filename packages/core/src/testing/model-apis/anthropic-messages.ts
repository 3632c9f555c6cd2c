/**
 * The Anthropic Messages API as Claude Code calls it (`ANTHROPIC_BASE_URL`): `POST /v1/messages`
 * streamed as server-sent events exactly in the API's order (message_start, per content block
 * content_block_start / _delta / _stop with `text_delta` or `input_json_delta`, message_delta
 * with the stop_reason and usage, message_stop), the same reply as one JSON message when the
 * request did not ask to stream, `POST /v1/messages/count_tokens`, and errors in the API's
 * shape (`{"type":"error","error":{"type":"overloaded_error",...}}`) with its status codes.
 *
 * Claude Code also makes requests that are not the agent's turn: `HEAD /api/hello` (a
 * connectivity check, answered here), and model requests without the agent's tools (session
 * titles, summaries, and the supervisor's tool-less evaluations); a script sees those like any
 * other request (`tools` empty) and the IRC script answers them with plain text, which is all
 * Claude Code needs to go on. Claude Code 2.1.330 with CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
 * makes none of the side requests.
 *
 * Claude Code's history has quirks the parse copes with: `role: "system"` entries between
 * turns, context blocks (`<system-reminder>...`) in user messages, which are not user texts,
 * and consecutive user entries merged into one message (a prompt, "[Request interrupted by
 * user]", the next prompt), whose text blocks are separate user texts.
 */
import type { ServerResponse } from "node:http";
import type { ModelApiDialect, ModelOutput } from "./dialect.js";
import type { ModelRequest, ModelToolResult } from "./model-request.js";
import { startSse, writeJsonError, writeSse } from "./sse.js";

/** The Anthropic API's error `type` for an HTTP status. */
export function anthropicErrorType(status: number): string {
  switch (status) {
    case 400:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 402:
      return "billing_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 504:
      return "timeout_error";
    case 529:
      return "overloaded_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

let counter = 0;
/** An id like the API's (`msg_...`, `toolu_...`, `req_...`): unique within the process. */
function newId(prefix: string): string {
  counter += 1;
  return `${prefix}_scripted${String(counter).padStart(6, "0")}${Math.random().toString(36).slice(2, 10)}`;
}

/** The Anthropic Messages API dialect. */
export const anthropicMessagesDialect: ModelApiDialect = {
  api: "anthropic",

  handles(method, path) {
    if (path === "/api/hello") return method === "HEAD" || method === "GET";
    return method === "POST" && (path === "/v1/messages" || path === "/v1/messages/count_tokens");
  },

  answerAux(path, body, res) {
    const bare = path.split("?")[0];
    if (bare === "/api/hello") {
      // Claude Code's connectivity check (skipped with CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1).
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
      return true;
    }
    if (bare !== "/v1/messages/count_tokens") return false;
    res.writeHead(200, { "content-type": "application/json", "request-id": newId("req") });
    res.end(JSON.stringify({ input_tokens: estimateTokens(body) }));
    return true;
  },

  parse(path, body) {
    return parseAnthropicRequest(path, body);
  },

  reply(req, output, res) {
    const message = buildMessage(req, output);
    const u = message.usage;
    const served = { input: u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens, output: u.output_tokens, cacheRead: u.cache_read_input_tokens, cacheWrite: u.cache_creation_input_tokens, reasoning: 0 };
    if (!req.stream) {
      res.writeHead(200, { "content-type": "application/json", "request-id": newId("req") });
      res.end(JSON.stringify(message));
      return served;
    }
    streamMessage(message, res);
    return served;
  },

  fail(status, message, res) {
    const type = anthropicErrorType(status);
    const headers: Record<string, string> = { "content-type": "application/json", "request-id": newId("req") };
    // Claude Code honours retry-after: keep its own retries fast in tests.
    if (status === 429 || status === 529 || status >= 500) headers["retry-after"] = "0";
    if (type === "overloaded_error") headers["x-should-retry"] = "true";
    res.writeHead(status, headers);
    res.end(JSON.stringify({ type: "error", error: { type, message }, request_id: headers["request-id"] }));
  },
};

/**
 * Normalises a Messages API request body. Tolerant of everything Claude Code sends: string or
 * block content, system as a string or text blocks, user messages that carry only tool results
 * or tool results followed by text (hook context), and side requests without tools.
 */
export function parseAnthropicRequest(path: string, body: unknown): ModelRequest {
  const b = isRecord(body) ? body : {};
  const messages = Array.isArray(b.messages) ? b.messages.filter(isRecord) : [];
  const userTexts: string[] = [];
  const toolResults: ModelToolResult[] = [];
  let lastUserText = "";
  let afterToolResult = false;
  for (const m of messages) {
    if (m.role !== "user") continue;
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m.content) ? m.content.filter(isRecord) : [];
    // Claude Code merges consecutive user entries into one message (a prompt, "[Request
    // interrupted by user]", the next prompt): each text block is one user text, and the last
    // block says whether the model is asked to go on after a tool or to answer a prompt.
    let last: "text" | "tool" | null = null;
    let lastText = "";
    for (const block of blocks) {
      if (block.type === "text" && typeof block.text === "string") {
        // Context Claude Code attaches (CLAUDE.md, git status, dates, hook output) is not the user's words.
        const text = block.text.trim();
        if (!text || isSystemReminder(text)) continue;
        userTexts.push(text);
        last = "text";
        lastText = text;
      } else if (block.type === "tool_result") {
        toolResults.push({ id: typeof block.tool_use_id === "string" ? block.tool_use_id : "", output: toolResultText(block.content) });
        last = "tool";
      }
    }
    if (last === null) continue;
    afterToolResult = last === "tool";
    lastUserText = last === "text" ? lastText : "";
  }
  // Only the newest turn decides (Claude Code also puts `system` entries in the history).
  const newest = messages.filter((m) => m.role === "user" || m.role === "assistant").at(-1);
  if (newest && newest.role !== "user") {
    afterToolResult = false;
    lastUserText = "";
  }
  return {
    api: "anthropic",
    path,
    model: typeof b.model === "string" ? b.model : undefined,
    stream: b.stream === true,
    system: systemText(b.system),
    userTexts,
    lastUserText,
    toolResults,
    afterToolResult,
    tools: Array.isArray(b.tools) ? b.tools.filter(isRecord).flatMap((t) => (typeof t.name === "string" ? [t.name] : [])) : [],
    body,
  };
}

/** An Anthropic `message` object for this output. */
function buildMessage(req: ModelRequest, output: ModelOutput): AnthropicMessage {
  const content: AnthropicBlock[] = [];
  if (output.text) content.push({ type: "text", text: output.text });
  if (output.toolCall) content.push({ type: "tool_use", id: newId("toolu"), name: output.toolCall.name, input: output.toolCall.input });
  if (content.length === 0) content.push({ type: "text", text: "" });
  const outputTokens = Math.max(1, Math.ceil(JSON.stringify(content).length / 4));
  return {
    id: newId("msg"),
    type: "message",
    role: "assistant",
    model: req.model ?? "claude-scripted",
    content,
    stop_reason: output.toolCall ? "tool_use" : "end_turn",
    stop_sequence: null,
    // The uncached part, the part read from the cache and the part written to it, as the API
    // reports a cached conversation (non-zero, so metering is seen to count each).
    usage: { input_tokens: output.inputTokens !== undefined ? Math.max(1, output.inputTokens - 1007) : estimateTokens(req.body), cache_creation_input_tokens: 7, cache_read_input_tokens: 1000, output_tokens: outputTokens },
  };
}

/** Streams a message as the API does: every block in pieces, then the stop reason and usage. */
function streamMessage(message: AnthropicMessage, res: ServerResponse): void {
  startSse(res);
  const start = { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...message.usage, output_tokens: 1 } };
  writeSse(res, { type: "message_start", message: start }, "message_start");
  writeSse(res, { type: "ping" }, "ping");
  message.content.forEach((block, index) => {
    if (block.type === "text") {
      writeSse(res, { type: "content_block_start", index, content_block: { type: "text", text: "" } }, "content_block_start");
      for (const piece of chunks(block.text, 16)) {
        writeSse(res, { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } }, "content_block_delta");
      }
    } else {
      writeSse(res, { type: "content_block_start", index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } }, "content_block_start");
      writeSse(res, { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: "" } }, "content_block_delta");
      for (const piece of chunks(JSON.stringify(block.input), 24)) {
        writeSse(res, { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } }, "content_block_delta");
      }
    }
    writeSse(res, { type: "content_block_stop", index }, "content_block_stop");
  });
  writeSse(
    res,
    { type: "message_delta", delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: message.usage.output_tokens } },
    "message_delta",
  );
  writeSse(res, { type: "message_stop" }, "message_stop");
  res.end();
}

type AnthropicBlock = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

interface AnthropicMessage {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: AnthropicBlock[];
  stop_reason: "end_turn" | "tool_use";
  stop_sequence: null;
  usage: { input_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number; output_tokens: number };
}

function chunks(text: string, size: number): string[] {
  if (text === "") return [""];
  const out: string[] = [];
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

function systemText(system: unknown): string {
  if (typeof system === "string") return system;
  if (!Array.isArray(system)) return "";
  return system
    .filter(isRecord)
    .map((b) => (typeof b.text === "string" ? b.text : ""))
    .join("\n");
}

function toolResultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .filter(isRecord)
      .map((b) => (b.type === "text" && typeof b.text === "string" ? b.text : JSON.stringify(b)))
      .join("\n");
  }
  return content === undefined ? "" : JSON.stringify(content);
}

/** A rough token count (4 characters a token), enough for Claude Code's context bookkeeping. */
function estimateTokens(body: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(body ?? "").length / 4));
}

/** A text block that is wholly one `<system-reminder>` element. */
export function isSystemReminder(text: string): boolean {
  const t = text.trim();
  return t.startsWith("<system-reminder>") && t.endsWith("</system-reminder>");
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
