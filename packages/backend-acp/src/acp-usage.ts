/**
 * An ACP turn's usage, from what ACP agents actually send:
 *
 * - The `session/prompt` response's `usage` (ACP's unstable field; OpenCode sends it):
 *   `{inputTokens, outputTokens, thoughtTokens?, cachedReadTokens?, cachedWriteTokens?,
 *   totalTokens}`, disjoint parts (OpenCode builds `totalTokens` as their sum), so culture's
 *   input adds the cached parts and its output the thought tokens. OpenCode 1.18 fills it from
 *   the turn's last assistant message, i.e. its last model call.
 * - The response's `_meta.quota` (Gemini CLI 0.61): `{token_count: {input_tokens,
 *   output_tokens}, model_usage: [{model, token_count}]}` summed over the turn's model calls;
 *   input is Gemini's `promptTokenCount` (cached included), output its
 *   `candidatesTokenCount` (Gemini CLI passes on no thought tokens).
 * - `usage_update` (stable ACP): `used`/`size` are the context window in use, not tokens spent
 *   (so they are not counted); `cost: {amount, currency}` is the session's cumulative cost,
 *   so the turn's cost is its growth since the previous turn ({@link AcpSessionCost}).
 */
import type { Usage } from "@culture/core";

/** One model's share of a turn's usage. */
export interface ModelUsage {
  model: string | undefined;
  usage: Usage;
}

/** The token usage a `session/prompt` response carries, per model (empty when it carries none). */
export function responseUsage(response: unknown): ModelUsage[] {
  if (!isRecord(response)) return [];
  const u = response.usage;
  if (isRecord(u) && typeof u.inputTokens === "number" && typeof u.outputTokens === "number") {
    const cacheRead = num(u.cachedReadTokens);
    const cacheWrite = num(u.cachedWriteTokens);
    const thought = num(u.thoughtTokens);
    return [
      {
        model: undefined,
        usage: {
          inputTokens: u.inputTokens + cacheRead + cacheWrite,
          outputTokens: u.outputTokens + thought,
          cacheReadTokens: cacheRead,
          cacheWriteTokens: cacheWrite,
          reasoningTokens: thought,
        },
      },
    ];
  }
  const quota = isRecord(response._meta) && isRecord(response._meta.quota) ? response._meta.quota : null;
  if (!quota) return [];
  const perModel = Array.isArray(quota.model_usage) ? quota.model_usage.filter(isRecord) : [];
  const counted = perModel.flatMap((m): ModelUsage[] => {
    const t = isRecord(m.token_count) ? m.token_count : {};
    const usage = { inputTokens: num(t.input_tokens), outputTokens: num(t.output_tokens) };
    return usage.inputTokens + usage.outputTokens > 0 ? [{ model: typeof m.model === "string" && m.model ? m.model : undefined, usage }] : [];
  });
  if (counted.length) return counted;
  const t = isRecord(quota.token_count) ? quota.token_count : {};
  const usage = { inputTokens: num(t.input_tokens), outputTokens: num(t.output_tokens) };
  return usage.inputTokens + usage.outputTokens > 0 ? [{ model: undefined, usage }] : [];
}

/**
 * The session's cumulative cost from `usage_update`, turned into each turn's cost. A session
 * culture created starts at 0; a loaded one's figure before the first turn is unknown, so that
 * turn's cost is unknown (never the whole history's).
 */
export class AcpSessionCost {
  private baseline: number | null = null;
  private latest: number | null = null;

  /** A session starts: `0` for a new one, `null` for a loaded one. */
  reset(baseline: 0 | null): void {
    this.baseline = baseline;
    this.latest = baseline;
  }

  /** A `usage_update` arrived. Only USD figures count. */
  note(update: { cost?: { amount: number; currency: string } | null }): void {
    const cost = update.cost;
    if (cost && typeof cost.amount === "number" && Number.isFinite(cost.amount) && cost.currency.toUpperCase() === "USD") this.latest = cost.amount;
  }

  /**
   * The cost since the previous call, or null when unknown. A figure that did not grow while
   * tokens were used is not a cost: agents report 0 for models they have no price for.
   */
  take(tokensUsed: boolean): number | null {
    const before = this.baseline;
    const now = this.latest;
    this.baseline = now;
    if (before === null || now === null || now < before) return null;
    const spent = now - before;
    return spent > 0 || !tokensUsed ? spent : null;
  }
}

function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
