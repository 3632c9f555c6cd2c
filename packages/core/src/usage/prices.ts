/**
 * The `prices:` table: what a model's tokens cost, for agents that report tokens but no cost
 * (Codex, most ACP agents). Used only when the agent gave no cost; a model that is in neither
 * has "cost unknown" (null), never a guessed figure.
 *
 * ```yaml
 * prices:                       # USD per million tokens, by kind
 *   gpt-5-codex: { input: 1.25, output: 10, cache_read: 0.125 }
 *   gemini-2.5-pro: { input: 1.25, output: 10 }
 * ```
 * Keys are model names exactly as the agent reports them. `cache_read` and `cache_write`
 * default to `input` (what an uncached token costs); reasoning tokens are output tokens.
 */
import { z } from "zod";
import type { Usage } from "../agent-message.js";
import { tokensOf, type UsageTokens } from "./usage-record.js";

const perMillion = z.number().nonnegative().finite();

/** One model's prices, USD per million tokens. */
export const modelPriceSchema = z
  .object({
    input: perMillion,
    output: perMillion,
    cache_read: perMillion.optional(),
    cache_write: perMillion.optional(),
  })
  .strict();

/** The `prices:` section: model name -> prices. */
export const pricesSchema = z.record(z.string().min(1), modelPriceSchema);

/** One model's prices. */
export type ModelPrice = z.infer<typeof modelPriceSchema>;
/** The `prices:` section. */
export type PricesConfig = Record<string, ModelPrice>;

/** What `tokens` cost at `price`, USD. */
export function costOfTokens(tokens: UsageTokens, price: ModelPrice): number {
  const uncached = Math.max(0, tokens.input - tokens.cacheRead - tokens.cacheWrite);
  const usd =
    uncached * price.input +
    tokens.cacheRead * (price.cache_read ?? price.input) +
    tokens.cacheWrite * (price.cache_write ?? price.input) +
    tokens.output * price.output;
  return usd / 1_000_000;
}

/**
 * The cost of one message's usage: the agent's own figure when it gave one (`source: "agent"`),
 * else the prices table's for `model`, else `null` (unknown).
 */
export function priceUsage(usage: Usage, model: string | null, prices: PricesConfig | undefined): { usd: number; source: "agent" | "prices" } | null {
  if (typeof usage.costUsd === "number" && Number.isFinite(usage.costUsd)) return { usd: usage.costUsd, source: "agent" };
  const price = model !== null ? prices?.[model] : undefined;
  return price ? { usd: costOfTokens(tokensOf(usage), price), source: "prices" } : null;
}
