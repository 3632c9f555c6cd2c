/**
 * The part of the `codex app-server` protocol culture speaks, as zod schemas (inbound: every
 * message is validated at the boundary) and TypeScript types (outbound).
 *
 * Verified against openai/codex `codex-rs/app-server/README.md` and
 * `codex-rs/app-server-protocol/src/protocol/v2/{thread,turn,item,shared}.rs`: JSON-RPC 2.0
 * without the `"jsonrpc"` field, one message per line; params and results are camelCase;
 * sandbox modes and approval policies are kebab-case (`workspace-write`, `never`);
 * `codexErrorInfo` is camelCase (`"unauthorized"`, or `{ "httpConnectionFailed": {...} }`).
 * Inbound objects are loose: fields culture does not use are kept, not rejected, so a newer
 * Codex that adds fields still validates.
 */
import { z } from "zod";
import type { SandboxMode } from "./codex-options.js";

/** A JSON-RPC request id. culture sends numbers; the server may use either. */
export type RequestId = number | string;

const requestId = z.union([z.number(), z.string()]);

/** A JSON-RPC error object. */
export const rpcErrorSchema = z.looseObject({
  code: z.number(),
  message: z.string(),
  data: z.unknown().optional(),
});

/** A JSON-RPC error object, as received. */
export type RpcError = z.infer<typeof rpcErrorSchema>;

/** Any inbound line, before it is classified (request, notification, response). */
export const envelopeSchema = z.looseObject({
  id: requestId.optional(),
  method: z.string().min(1).optional(),
  params: z.unknown().optional(),
  result: z.unknown().optional(),
  error: rpcErrorSchema.optional(),
});

/** One inbound message, classified. */
export type InboundMessage =
  | { kind: "request"; id: RequestId; method: string; params: unknown }
  | { kind: "notification"; method: string; params: unknown }
  | { kind: "result"; id: RequestId; result: unknown }
  | { kind: "error"; id: RequestId; error: RpcError };

/**
 * Classifies a parsed JSON value as a JSON-RPC message, or returns why it is not one.
 * A request has `id` and `method`; a notification `method` only; a response `id` and
 * `result` or `error`.
 */
export function classifyMessage(value: unknown): InboundMessage | { problem: string } {
  const parsed = envelopeSchema.safeParse(value);
  if (!parsed.success) return { problem: z.prettifyError(parsed.error).replace(/\n/g, "; ") };
  const m = parsed.data;
  if (m.method !== undefined) {
    return m.id === undefined ? { kind: "notification", method: m.method, params: m.params } : { kind: "request", id: m.id, method: m.method, params: m.params };
  }
  if (m.id === undefined) return { problem: "neither a method nor an id" };
  if (m.error) return { kind: "error", id: m.id, error: m.error };
  if ("result" in (value as object)) return { kind: "result", id: m.id, result: m.result };
  return { problem: "a response with neither result nor error" };
}

// ---------------------------------------------------------------- shared shapes

/** `TurnError`: why a turn failed (also the payload of the `error` notification). */
export const turnErrorSchema = z.looseObject({
  message: z.string(),
  codexErrorInfo: z.unknown().optional(),
  additionalDetails: z.string().nullable().optional(),
});

/** A turn error, as received. */
export type TurnError = z.infer<typeof turnErrorSchema>;

/** `TurnStatus`. */
export const TURN_STATUSES = ["completed", "interrupted", "failed", "inProgress"] as const;

/** The `Turn` object (only the fields culture reads). */
export const turnSchema = z.looseObject({
  id: z.string(),
  status: z.enum(TURN_STATUSES),
  error: turnErrorSchema.nullable().optional(),
});

/** A `ThreadItem`: its `type` decides the rest (see item-normalizer.ts). Unknown types pass. */
export const threadItemSchema = z.looseObject({
  type: z.string(),
  id: z.string(),
});

/** A thread item, as received. */
export type ThreadItem = z.infer<typeof threadItemSchema>;

// ---------------------------------------------------------------- notifications culture reads

/** The params of each server notification culture handles; others are logged at debug and ignored. */
/** A token count breakdown of `thread/tokenUsage/updated` (token-usage.ts). */
const tokenBreakdown = z.looseObject({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cachedInputTokens: z.number().optional(),
  reasoningOutputTokens: z.number().optional(),
  totalTokens: z.number().optional(),
});

export const notificationSchemas = {
  "turn/started": z.looseObject({ threadId: z.string(), turn: turnSchema }),
  "turn/completed": z.looseObject({ threadId: z.string(), turn: turnSchema }),
  "item/started": z.looseObject({ threadId: z.string(), turnId: z.string(), item: threadItemSchema }),
  "item/completed": z.looseObject({ threadId: z.string(), turnId: z.string(), item: threadItemSchema }),
  "item/agentMessage/delta": z.looseObject({ threadId: z.string(), turnId: z.string(), itemId: z.string(), delta: z.string() }),
  error: z.looseObject({
    threadId: z.string().optional(),
    turnId: z.string().optional(),
    error: turnErrorSchema,
    willRetry: z.boolean(),
  }),
  "thread/tokenUsage/updated": z.looseObject({
    threadId: z.string(),
    turnId: z.string().optional(),
    tokenUsage: z.looseObject({
      total: tokenBreakdown.optional(),
      last: tokenBreakdown,
      /** The model's context window (tokens), when Codex knows it (context care, token-usage.ts). */
      modelContextWindow: z.number().nullable().optional(),
    }),
  }),
} as const;

/** The notification methods culture handles. */
export type KnownNotification = keyof typeof notificationSchemas;

/** The params of a handled notification. */
export type NotificationParams<M extends KnownNotification> = z.infer<(typeof notificationSchemas)[M]>;

// ---------------------------------------------------------------- responses culture reads

/** Results of the requests culture sends (only the fields it reads). */
export const resultSchemas = {
  initialize: z.looseObject({ userAgent: z.string().optional() }),
  "thread/start": z.looseObject({ thread: z.looseObject({ id: z.string() }), model: z.string().optional() }),
  "thread/resume": z.looseObject({ thread: z.looseObject({ id: z.string() }), model: z.string().optional() }),
  "turn/start": z.looseObject({ turn: turnSchema }),
  "turn/steer": z.looseObject({ turnId: z.string() }),
  "turn/interrupt": z.looseObject({}),
  "thread/compact/start": z.looseObject({}),
} as const;

/** The request methods culture sends. */
export type ClientMethod = keyof typeof resultSchemas;

/** The result of a request culture sends. */
export type ClientResult<M extends ClientMethod> = z.infer<(typeof resultSchemas)[M]>;

// ---------------------------------------------------------------- outbound params

/** One piece of user input (`UserInput::Text`; `text_elements` is snake_case on the wire). */
export interface TextInput {
  type: "text";
  text: string;
  text_elements: [];
}

/** Codex's reasoning effort (`ReasoningEffort`, lowercase). */
export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh";

/** `initialize` params. */
export interface InitializeParams {
  clientInfo: { name: string; title: string; version: string };
  capabilities: null;
}

/** `thread/start` params (the fields culture sets). */
export interface ThreadStartParams {
  model?: string | null;
  cwd: string;
  developerInstructions?: string | null;
  /** `never` (culture's permissions are bypassed), or `untrusted`: ask before anything outside Codex's known-safe commands. */
  approvalPolicy: "never" | "untrusted";
  sandbox: SandboxMode;
  /** Codex config overrides for this thread (config.toml keys, dotted or nested). */
  config?: Record<string, unknown>;
  ephemeral?: boolean;
  sessionStartSource?: "startup" | "clear";
}

/** `thread/resume` params (the fields culture sets). */
export interface ThreadResumeParams extends Omit<ThreadStartParams, "ephemeral" | "sessionStartSource"> {
  threadId: string;
}

/** `turn/start` params (the fields culture sets). */
export interface TurnStartParams {
  threadId: string;
  input: TextInput[];
  effort?: ReasoningEffort;
}

/** Params of each request culture sends. */
export interface ClientParams {
  initialize: InitializeParams;
  "thread/start": ThreadStartParams;
  "thread/resume": ThreadResumeParams;
  "turn/start": TurnStartParams;
  "turn/steer": { threadId: string; input: TextInput[]; expectedTurnId: string };
  "turn/interrupt": { threadId: string; turnId: string };
  "thread/compact/start": { threadId: string };
}

/** A text input item. */
export function textInput(text: string): TextInput {
  return { type: "text", text, text_elements: [] };
}

// ---------------------------------------------------------------- server -> client requests

/** Approval requests culture answers (v2 names, then the older v1 names). */
export const APPROVAL_METHODS = [
  "item/commandExecution/requestApproval",
  "item/fileChange/requestApproval",
  "execCommandApproval",
  "applyPatchApproval",
] as const;

/** The JSON-RPC error code for "method not found". */
export const METHOD_NOT_FOUND = -32601;

/** The error code the app-server answers with when it is overloaded ("retry later"). */
export const SERVER_OVERLOADED = -32001;
