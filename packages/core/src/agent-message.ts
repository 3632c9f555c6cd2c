/**
 * The one shape every backend normalizes its agent's output to. It follows the harness
 * specification (Claude's message shape), including the `thinking` key on thinking blocks.
 */

/** A text block: what the agent says. */
export interface TextBlock {
  type: "text";
  text: string;
}

/** A tool call the agent made. `input` is whatever the tool received. */
export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

/** The result of a tool call, matched to its call by `tool_use_id`. */
export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: unknown;
  is_error?: boolean;
}

/** The agent's visible reasoning. */
export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
}

/** One block of an agent message. */
export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock;

/**
 * Token usage reported with a message, when the agent reports it. Additive: a turn's usage is
 * the sum of the `usage` of its messages (a backend whose agent reports running totals reports
 * the difference, or puts the turn's total on one message). `inputTokens` counts everything the
 * model read (cached reads and cache writes are parts of it); `outputTokens` everything it
 * wrote (reasoning is part of it).
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Part of `inputTokens` read from the prompt cache. */
  cacheReadTokens?: number;
  /** Part of `inputTokens` written to the prompt cache. */
  cacheWriteTokens?: number;
  /** Part of `outputTokens` spent on reasoning. */
  reasoningTokens?: number;
  /** What these tokens cost in USD, when the agent says (never estimated here). */
  costUsd?: number;
}

/**
 * How full the agent's context window is, when the agent says: not additive (the newest
 * report wins). A backend reports it on any message, often a content-less one after a model
 * call; the daemon warns and compacts from it (daemon/context-care.ts).
 */
export interface ContextUse {
  /** Tokens in the context window now (what the last model call read and wrote). */
  usedTokens: number;
  /** The window's size in tokens, or null when the agent does not say. */
  windowTokens: number | null;
}

/** One message from the agent, normalized. */
export interface AgentMessage {
  type: "assistant";
  model?: string;
  content: ContentBlock[];
  usage?: Usage;
  /** The context window's fill after this message, when the agent reports it. */
  context?: ContextUse;
}

/** The concatenated text blocks of a message (blank when it has none). */
export function messageText(message: AgentMessage): string {
  return message.content
    .filter((b): b is TextBlock => b.type === "text")
    .map((b) => b.text)
    .join("");
}
