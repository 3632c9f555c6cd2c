/**
 * Sums of usage journal entries: the running totals budgets rebuild at start, `culture usage`'s
 * tables and the status's "today". Pure functions over entries, so the CLI (reading every
 * agent's journal) and a daemon (reading its own) add up the same way.
 */
import { addTokens, emptyTokens, type UsageEntry, type UsageTokens } from "./usage-record.js";

/** Summed usage. */
export interface UsageTotals {
  turns: number;
  tokens: UsageTokens;
  /** The sum of the known costs, USD. */
  costUsd: number;
  /** Turns whose cost is unknown (no cost from the agent, no price): their cost is in no sum. */
  costUnknownTurns: number;
}

/** Which entries to count. Times are epoch ms; `since` inclusive, `until` exclusive. */
export interface UsageFilter {
  since?: number;
  until?: number;
  agent?: string;
  channel?: string;
  account?: string;
  nick?: string;
  model?: string;
}

/** What `culture usage --by` groups on (days are UTC days, `YYYY-MM-DD`). */
export type UsageGroupKey = "agent" | "channel" | "account" | "nick" | "model" | "day";

/** One group of {@link groupUsage}. */
export interface UsageGroup {
  key: Partial<Record<UsageGroupKey, string | null>>;
  totals: UsageTotals;
}

/** Zero usage. */
export function emptyTotals(): UsageTotals {
  return { turns: 0, tokens: emptyTokens(), costUsd: 0, costUnknownTurns: 0 };
}

/** Adds one entry (a turn or a day's rollup) into `totals`. */
export function addEntry(totals: UsageTotals, e: UsageEntry): UsageTotals {
  addTokens(totals.tokens, e.tokens);
  if (e.type === "day") {
    totals.turns += e.turns;
    totals.costUsd += e.costUsd;
    totals.costUnknownTurns += e.costUnknownTurns;
  } else {
    totals.turns += 1;
    if (e.costUsd === null) totals.costUnknownTurns += 1;
    else totals.costUsd += e.costUsd;
  }
  return totals;
}

/** True when `e` passes `filter` (channel and account compare case-insensitively, as IRC does). */
export function matchesUsage(e: UsageEntry, filter: UsageFilter): boolean {
  if (filter.since !== undefined && e.at < filter.since) return false;
  if (filter.until !== undefined && e.at >= filter.until) return false;
  if (filter.agent !== undefined && !same(e.agent, filter.agent)) return false;
  if (filter.channel !== undefined && !same(e.channel, filter.channel)) return false;
  if (filter.account !== undefined && !same(e.account, filter.account)) return false;
  if (filter.nick !== undefined && !same(e.nick, filter.nick)) return false;
  if (filter.model !== undefined && e.model !== filter.model) return false;
  return true;
}

/** The totals of the entries that pass `filter` (all of them without one). */
export function sumUsage(entries: Iterable<UsageEntry>, filter: UsageFilter = {}): UsageTotals {
  const totals = emptyTotals();
  for (const e of entries) if (matchesUsage(e, filter)) addEntry(totals, e);
  return totals;
}

/** The totals per distinct value of the `by` keys, largest token count first. */
export function groupUsage(entries: Iterable<UsageEntry>, by: readonly UsageGroupKey[], filter: UsageFilter = {}): UsageGroup[] {
  const groups = new Map<string, UsageGroup>();
  for (const e of entries) {
    if (!matchesUsage(e, filter)) continue;
    const key: UsageGroup["key"] = {};
    for (const k of by) key[k] = k === "day" ? (e.type === "day" ? e.day : new Date(e.at).toISOString().slice(0, 10)) : e[k];
    const id = JSON.stringify(by.map((k) => key[k]));
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { key, totals: emptyTotals() }));
    addEntry(g.totals, e);
  }
  return [...groups.values()].sort((a, b) => b.totals.tokens.input + b.totals.tokens.output - (a.totals.tokens.input + a.totals.tokens.output));
}

function same(a: string | null, b: string): boolean {
  return a !== null && a.toLowerCase() === b.toLowerCase();
}

/** Totals as status and `culture usage --json` show them (snake_case, USD rounded to 6 places). */
export interface UsageTotalsJson {
  turns: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  /** Known costs summed, USD. */
  cost_usd: number;
  /** Turns whose cost is unknown. */
  cost_unknown_turns: number;
}

/** The JSON form of `t`. */
export function usageTotalsJson(t: UsageTotals): UsageTotalsJson {
  return {
    turns: t.turns,
    input_tokens: t.tokens.input,
    output_tokens: t.tokens.output,
    cache_read_tokens: t.tokens.cacheRead,
    cache_write_tokens: t.tokens.cacheWrite,
    reasoning_tokens: t.tokens.reasoning,
    cost_usd: Math.round(t.costUsd * 1e6) / 1e6,
    cost_unknown_turns: t.costUnknownTurns,
  };
}
