/**
 * How full Claude Code's context window is, for core's context care (AgentMessage.context).
 * Each assistant message of the stream restates its API response's `usage`: what that model
 * call read (`input_tokens` uncached, plus `cache_read_input_tokens` and
 * `cache_creation_input_tokens`) and wrote (`output_tokens`), which is what the conversation
 * fills of the window after it. The turn's `result` carries `modelUsage[model].contextWindow`,
 * the window Claude Code itself uses for its auto-compaction. A subagent's (Task tool's)
 * messages use their own context and are left out.
 */
import type { ContextUse } from "@culture/core";

/** The context tokens an SDK assistant message reports, or null when it reports none (or is a subagent's). */
export function assistantContextTokens(raw: unknown): number | null {
  if (!isRecord(raw) || raw.type !== "assistant" || typeof raw.parent_tool_use_id === "string" || raw.error) return null;
  const message = isRecord(raw.message) ? raw.message : null;
  const u = message && isRecord(message.usage) ? message.usage : null;
  if (!u) return null;
  const total = num(u.input_tokens) + num(u.cache_read_input_tokens) + num(u.cache_creation_input_tokens) + num(u.output_tokens);
  return total > 0 ? total : null;
}

/** The context window of `model` in a result's `modelUsage` (else the largest one there), or null. */
export function contextWindowOf(modelUsage: unknown, model: string | null): number | null {
  if (!isRecord(modelUsage)) return null;
  const windowOf = (v: unknown) => (isRecord(v) && typeof v.contextWindow === "number" && v.contextWindow > 0 ? v.contextWindow : null);
  if (model && windowOf(modelUsage[model]) !== null) return windowOf(modelUsage[model]);
  const all = Object.values(modelUsage).map(windowOf).filter((w): w is number => w !== null);
  return all.length ? Math.max(...all) : null;
}

/** The context use to report after a turn, or null when the turn's messages reported no tokens. */
export function contextUse(usedTokens: number | null, windowTokens: number | null): ContextUse | null {
  return usedTokens === null ? null : { usedTokens, windowTokens };
}

function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
