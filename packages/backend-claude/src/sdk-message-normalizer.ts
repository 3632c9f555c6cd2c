/**
 * Claude Agent SDK messages -> culture's {@link AgentMessage}. The CLI streams one assistant
 * message per completed content block, so each becomes its own AgentMessage as it arrives:
 * the supervisor sees every tool call when the model makes it, not at the end of the turn.
 * Tool results come back inside `user` messages and are reported as `tool_result` blocks.
 *
 * Everything else is sorted rather than trusted: the session's `system/init`, the turn's
 * `result`, assistant messages that carry an API `error` (synthetic "API Error: ..." text that
 * must not be relayed to IRC), and messages culture does not use. A message type this code
 * has never heard of is reported as unknown (the runner logs it) and never breaks a turn: the
 * CLI adds message types faster than this file changes.
 */
import type { AgentMessage, ContentBlock } from "@culture/core";

/** What one SDK message means to the runner. */
export type NormalizedSdkMessage =
  /** Something the agent said or did: goes to `onMessage`. */
  | { kind: "message"; message: AgentMessage }
  /** The session started (`system/init`). */
  | { kind: "init"; sessionId: string; model: string | null; permissionMode: string | null }
  /** An assistant message standing for a failed API call (`error` set); not relayed. */
  | { kind: "api-error"; error: string; text: string }
  /** The end of a turn. */
  | { kind: "result"; result: TurnResult }
  /** Claude Code is retrying a failed API request (`system/api_retry`); it retries even a 401. */
  | { kind: "api-retry"; attempt: number | null; maxRetries: number | null; error: string | null; status: number | null; delayMs: number | null }
  /** Nothing for the daemon: `note` says what it was, `known` whether culture knows the type. */
  | { kind: "skip"; note: string; known: boolean; level: "debug" | "info"; fields?: Record<string, unknown> };

/** The fields of a `result` message the runner uses. */
export interface TurnResult {
  subtype: string;
  isError: boolean;
  /** The final text (success) or the error text (`is_error` on a success subtype). */
  text: string;
  /** The `errors` of an error subtype. */
  errors: string[];
  /** The HTTP status of the API error that ended the turn, when there was one. */
  apiErrorStatus: number | null;
  sessionId: string | null;
  /** The result's `modelUsage`: the process's running totals per model (turn-usage.ts). */
  modelUsage: unknown;
}

/** Message types of the SDK that carry nothing for the daemon. */
const IGNORED_TYPES = new Set([
  "stream_event",
  "tool_progress",
  "auth_status",
  "tool_use_summary",
  "rate_limit_event",
  "prompt_suggestion",
  "conversation_reset",
  "keep_alive",
]);

/** System subtypes of the SDK, all but `init` informational for culture. */
const SYSTEM_SUBTYPES = new Set([
  "compact_boundary",
  "status",
  "api_retry",
  "control_request_progress",
  "model_refusal_fallback",
  "model_refusal_no_fallback",
  "local_command_output",
  "hook_started",
  "hook_progress",
  "hook_response",
  "plugin_install",
  "task_notification",
  "task_started",
  "task_updated",
  "task_progress",
  "background_tasks_changed",
  "thinking_tokens",
  "session_state_changed",
  "worker_shutting_down",
  "commands_changed",
  "notification",
  "files_persisted",
  "memory_recall",
  "elicitation_complete",
  "permission_denied",
  "mirror_error",
  "informational",
  "session_writes_lost",
]);

/** Sorts one message from the SDK's stream (see the module comment). Never throws. */
export function normalizeSdkMessage(raw: unknown): NormalizedSdkMessage {
  if (!isRecord(raw)) return { kind: "skip", note: `a non-object message (${typeof raw})`, known: false, level: "info" };
  const type = raw.type;
  switch (type) {
    case "assistant":
      return normalizeAssistant(raw);
    case "user":
      return normalizeUser(raw);
    case "result":
      return { kind: "result", result: toTurnResult(raw) };
    case "system":
      return normalizeSystem(raw);
    default:
      if (typeof type === "string" && IGNORED_TYPES.has(type)) return { kind: "skip", note: type, known: true, level: "debug" };
      return { kind: "skip", note: `message type ${JSON.stringify(type)}`, known: false, level: "info" };
  }
}

function normalizeAssistant(raw: Record<string, unknown>): NormalizedSdkMessage {
  const message = isRecord(raw.message) ? raw.message : {};
  const blocks = Array.isArray(message.content) ? message.content : [];
  if (typeof raw.error === "string" && raw.error) {
    return { kind: "api-error", error: raw.error, text: blocks.map((b) => (isRecord(b) && typeof b.text === "string" ? b.text : "")).join("") };
  }
  // A subagent's (Task tool's) text is not the agent's answer: keep only its tool calls.
  const subagent = typeof raw.parent_tool_use_id === "string";
  const content: ContentBlock[] = [];
  const skipped: string[] = [];
  for (const block of blocks) {
    const converted = isRecord(block) ? convertAssistantBlock(block) : null;
    if (converted && (!subagent || converted.type === "tool_use")) content.push(converted);
    else skipped.push(isRecord(block) ? String(block.type) : typeof block);
  }
  if (content.length === 0) {
    return { kind: "skip", note: `an assistant message with no usable blocks (${skipped.join(", ") || "empty"})`, known: true, level: "debug" };
  }
  // No usage here: each block's message restates its API response's usage so far, which is not
  // additive; the turn's usage comes from the result (turn-usage.ts).
  const out: AgentMessage = { type: "assistant", content };
  if (typeof message.model === "string" && message.model && message.model !== "<synthetic>") out.model = message.model;
  return { kind: "message", message: out };
}

function convertAssistantBlock(block: Record<string, unknown>): ContentBlock | null {
  switch (block.type) {
    case "text":
      return typeof block.text === "string" && block.text !== "" ? { type: "text", text: block.text } : null;
    case "thinking":
      return typeof block.thinking === "string" && block.thinking !== "" ? { type: "thinking", thinking: block.thinking } : null;
    case "tool_use":
    case "server_tool_use":
    case "mcp_tool_use":
      return typeof block.id === "string" && typeof block.name === "string" ? { type: "tool_use", id: block.id, name: block.name, input: block.input ?? {} } : null;
    default:
      // redacted_thinking, web search results, and blocks newer than this code.
      return null;
  }
}

function normalizeUser(raw: Record<string, unknown>): NormalizedSdkMessage {
  if (raw.isReplay === true) return { kind: "skip", note: "a replayed user message", known: true, level: "debug" };
  const message = isRecord(raw.message) ? raw.message : {};
  const blocks = Array.isArray(message.content) ? message.content : [];
  const content: ContentBlock[] = [];
  for (const block of blocks) {
    if (!isRecord(block) || block.type !== "tool_result" || typeof block.tool_use_id !== "string") continue;
    const result: ContentBlock = { type: "tool_result", tool_use_id: block.tool_use_id, content: block.content ?? "" };
    if (block.is_error === true) result.is_error = true;
    content.push(result);
  }
  if (content.length === 0) return { kind: "skip", note: "a user message without tool results", known: true, level: "debug" };
  return { kind: "message", message: { type: "assistant", content } };
}

function normalizeSystem(raw: Record<string, unknown>): NormalizedSdkMessage {
  const subtype = raw.subtype;
  if (subtype === "init") {
    return {
      kind: "init",
      sessionId: typeof raw.session_id === "string" ? raw.session_id : "",
      model: typeof raw.model === "string" ? raw.model : null,
      permissionMode: typeof raw.permissionMode === "string" ? raw.permissionMode : null,
    };
  }
  if (subtype === "api_retry") {
    const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);
    return {
      kind: "api-retry",
      attempt: num(raw.attempt),
      maxRetries: num(raw.max_retries),
      error: typeof raw.error === "string" ? raw.error : null,
      status: num(raw.error_status),
      delayMs: num(raw.retry_delay_ms),
    };
  }
  if (subtype === "compact_boundary") {
    return { kind: "skip", note: "Claude Code compacted its context", known: true, level: "info", fields: { metadata: raw.compact_metadata } };
  }
  if (typeof subtype === "string" && SYSTEM_SUBTYPES.has(subtype)) return { kind: "skip", note: `system/${subtype}`, known: true, level: "debug" };
  return { kind: "skip", note: `system message subtype ${JSON.stringify(subtype)}`, known: false, level: "info" };
}

function toTurnResult(raw: Record<string, unknown>): TurnResult {
  return {
    subtype: typeof raw.subtype === "string" ? raw.subtype : "unknown",
    isError: raw.is_error === true || (typeof raw.subtype === "string" && raw.subtype !== "success"),
    text: typeof raw.result === "string" ? raw.result : "",
    errors: Array.isArray(raw.errors) ? raw.errors.filter((e): e is string => typeof e === "string") : [],
    apiErrorStatus: typeof raw.api_error_status === "number" ? raw.api_error_status : null,
    sessionId: typeof raw.session_id === "string" ? raw.session_id : null,
    modelUsage: raw.modelUsage ?? null,
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
