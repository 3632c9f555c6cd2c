/**
 * One finished turn's usage, as the usage journal keeps it and as `hooks.turnUsage` hands it
 * to budgets and plugins. Tokens come from what the agent reported (each backend's normaliser
 * turns its dialect into {@link Usage}); the cost is the agent's own figure when it gave one,
 * else the `prices:` table's, else `null` — "cost unknown", never a guess.
 *
 * Token kinds, the same for every backend: `input` is everything the model read, including
 * cached reads and cache writes (`cacheRead` and `cacheWrite` are parts of it); `output` is
 * everything it wrote, including reasoning (`reasoning` is part of it).
 */
import type { PromptOrigin } from "../events.js";
import type { Usage } from "../agent-message.js";

/** Token counts of one turn (or the sum of many). */
export interface UsageTokens {
  /** Everything the model read, cached or not. */
  input: number;
  /** Everything the model wrote, reasoning included. */
  output: number;
  /** Part of `input` read from the provider's prompt cache. */
  cacheRead: number;
  /** Part of `input` written to the provider's prompt cache. */
  cacheWrite: number;
  /** Part of `output` spent on reasoning (0 when the agent does not say). */
  reasoning: number;
}

/** Where a turn's cost figure came from. */
export type CostSource = "agent" | "prices" | null;

/** One turn's usage: a line `{"v":1,"type":"turn",...}` of the usage journal. */
export interface UsageRecord {
  v: 1;
  type: "turn";
  /** When the turn ended, epoch ms. */
  at: number;
  /** The agent's nick. */
  agent: string;
  /** The prompt's id (its `PromptOrigin.id`): unique per turn. */
  turn: string;
  /** What kind of prompt the turn answered. */
  kind: PromptOrigin["kind"];
  /** The channel of a mention; null for a DM and for the daemon's own prompts. */
  channel: string | null;
  /** The nick that asked (mention or DM); null for the daemon's own prompts. */
  nick: string | null;
  /** The IRC account of the asker when the server said; null when not logged in or unknown. */
  account: string | null;
  /** The model that did (most of) the work, as the agent named it; else the configured one. */
  model: string | null;
  tokens: UsageTokens;
  /** USD: the agent's figure, else the prices table's; null when neither exists. */
  costUsd: number | null;
  costSource: CostSource;
  /** False when the agent reported no usage at all for the turn (tokens are then all 0). */
  reported: boolean;
  /** True when the turn ended with an error (timed out, agent crashed, API error). */
  failed: boolean;
}

/**
 * Per-day sums of turns older than the journal keeps one by one (see the usage journal's
 * compaction): a line `{"v":1,"type":"day",...}`, one per (UTC day, agent, channel, nick,
 * account, model).
 */
export interface UsageRollup {
  v: 1;
  type: "day";
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  /** The start of that UTC day, epoch ms (the rollup's time for `since` filters). */
  at: number;
  agent: string;
  channel: string | null;
  nick: string | null;
  account: string | null;
  model: string | null;
  /** How many turns were summed. */
  turns: number;
  tokens: UsageTokens;
  /** The sum of the known costs. */
  costUsd: number;
  /** How many of those turns had no known cost (their tokens are in `tokens`, their cost nowhere). */
  costUnknownTurns: number;
}

/** A line of the usage journal. */
export type UsageEntry = UsageRecord | UsageRollup;

/** Zero tokens. */
export function emptyTokens(): UsageTokens {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
}

/** Adds `b` into `a` (mutates and returns `a`). */
export function addTokens(a: UsageTokens, b: UsageTokens): UsageTokens {
  a.input += b.input;
  a.output += b.output;
  a.cacheRead += b.cacheRead;
  a.cacheWrite += b.cacheWrite;
  a.reasoning += b.reasoning;
  return a;
}

/** The tokens of a normalised {@link Usage}. */
export function tokensOf(usage: Usage): UsageTokens {
  return {
    input: usage.inputTokens,
    output: usage.outputTokens,
    cacheRead: usage.cacheReadTokens ?? 0,
    cacheWrite: usage.cacheWriteTokens ?? 0,
    reasoning: usage.reasoningTokens ?? 0,
  };
}

/** All tokens of a count (input + output): what a token budget counts. */
export function totalTokens(t: UsageTokens): number {
  return t.input + t.output;
}
