/**
 * A Codex turn's usage, from the app-server's `thread/tokenUsage/updated` notifications:
 * `{tokenUsage: {total, last, modelContextWindow}}`, each a breakdown `{totalTokens,
 * inputTokens, cachedInputTokens, outputTokens, reasoningOutputTokens}`. `total` is the
 * thread's running total, `last` the latest model call's. Codex sends the notification after
 * each model call, and again without new work (after `thread/resume`, with the previous
 * turn's id; when rate limits change), so summing `last` would count some calls twice: each
 * notification adds the growth of `total` since the previous one of the same thread, and only
 * when there is no earlier total to compare with (a notification without `total`, or the
 * first of a thread) its `last`. Codex reports no cost: the `prices:` table prices it.
 *
 * OpenAI's counting: `inputTokens` includes the cached ones, `outputTokens` the reasoning ones,
 * the same as culture's.
 */
import type { ContextUse, Usage } from "@culture/core";

/** One breakdown of a tokenUsage notification. */
export interface CodexTokenBreakdown {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
  reasoningOutputTokens?: number;
  totalTokens?: number;
}

/** Follows one thread's running total (see the module comment). */
export class CodexTokenUsage {
  private threadId: string | null = null;
  private total: CodexTokenBreakdown | null = null;

  /** The usage a notification adds, or null when it adds nothing. */
  update(threadId: string, usage: { total?: CodexTokenBreakdown; last: CodexTokenBreakdown }): Usage | null {
    if (threadId !== this.threadId) {
      this.threadId = threadId;
      this.total = null;
    }
    const previous = this.total;
    const total = usage.total;
    if (total) this.total = total;
    let add: CodexTokenBreakdown;
    if (total && previous && total.inputTokens >= previous.inputTokens && total.outputTokens >= previous.outputTokens) {
      add = {
        inputTokens: total.inputTokens - previous.inputTokens,
        outputTokens: total.outputTokens - previous.outputTokens,
        cachedInputTokens: (total.cachedInputTokens ?? 0) - (previous.cachedInputTokens ?? 0),
        reasoningOutputTokens: (total.reasoningOutputTokens ?? 0) - (previous.reasoningOutputTokens ?? 0),
      };
    } else {
      add = usage.last;
    }
    if (add.inputTokens === 0 && add.outputTokens === 0) return null;
    return {
      inputTokens: add.inputTokens,
      outputTokens: add.outputTokens,
      cacheReadTokens: Math.max(0, add.cachedInputTokens ?? 0),
      reasoningTokens: Math.max(0, add.reasoningOutputTokens ?? 0),
    };
  }
}

/** `a + b` (either may be absent). */
export function sumUsage(a: Usage | null, b: Usage | null): Usage | null {
  if (!a) return b;
  if (!b) return a;
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: (a.cacheReadTokens ?? 0) + (b.cacheReadTokens ?? 0),
    reasoningTokens: (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0),
  };
}

/**
 * How full the thread's context window is after a notification (core's context care): the
 * latest model call's tokens (`last.totalTokens`, else its input plus output), which is what
 * Codex itself compares with `modelContextWindow`. Null when the call reported no tokens.
 */
export function contextOf(usage: { last: CodexTokenBreakdown; modelContextWindow?: number | null }): ContextUse | null {
  const used = usage.last.totalTokens ?? usage.last.inputTokens + usage.last.outputTokens;
  if (!(used > 0)) return null;
  const window = usage.modelContextWindow;
  return { usedTokens: used, windowTokens: typeof window === "number" && window > 0 ? window : null };
}
