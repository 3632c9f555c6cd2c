/**
 * What `culture usage` prints: the usage journals of every agent, filtered to a time window and
 * grouped, as a table or JSON. Pure functions of the journal entries, so the command file only
 * parses options.
 */
import { groupUsage, readUsageJournal, sumUsage, usageError, usageJournalPath, usageTotalsJson, type UsageEntry, type UsageFilter, type UsageGroupKey, type UsageTotals } from "@culture/core";
import { renderTable } from "./table.js";

/** The `--by` keys. */
export const USAGE_KEYS: readonly UsageGroupKey[] = ["agent", "channel", "account", "nick", "model", "day"];

const DAY_MS = 86_400_000;

/**
 * A `--since`/`--until` value as epoch ms: `today` (00:00 UTC), `yesterday`, `<N>d` / `<N>h` /
 * `<N>m` ago, a date `YYYY-MM-DD` (00:00 UTC) or an ISO date-time.
 */
export function parseWhen(value: string, now: number, option: string): number {
  const v = value.trim();
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  if (v === "today") return today;
  if (v === "yesterday") return today - DAY_MS;
  const ago = /^(\d+)([dhm])$/.exec(v);
  if (ago) return now - Number(ago[1]) * { d: DAY_MS, h: 3_600_000, m: 60_000 }[ago[2] as "d" | "h" | "m"];
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) {
    const t = Date.parse(`${v}T00:00:00Z`);
    if (!Number.isNaN(t)) return t;
  }
  if (/^\d{4}-\d{2}-\d{2}T/.test(v)) {
    const t = Date.parse(v);
    if (!Number.isNaN(t)) return t;
  }
  throw usageError(`${option} ${JSON.stringify(value)}: expected today, yesterday, a count of days/hours/minutes ago (7d, 12h, 30m), a date (2026-11-01, UTC) or an ISO date-time`);
}

/** The `--by` list, checked. */
export function parseBy(value: string): UsageGroupKey[] {
  const keys = value.split(",").map((k) => k.trim()).filter(Boolean);
  const bad = keys.filter((k) => !USAGE_KEYS.includes(k as UsageGroupKey));
  if (keys.length === 0 || bad.length) throw usageError(`--by ${JSON.stringify(value)}: group by one or more of ${USAGE_KEYS.join(", ")} (comma-separated)`);
  return keys as UsageGroupKey[];
}

/** The report as JSON. */
export function usageJson(entries: readonly UsageEntry[], by: readonly UsageGroupKey[], filter: UsageFilter, skipped: unknown[]): Record<string, unknown> {
  return {
    since: filter.since === undefined ? null : new Date(filter.since).toISOString(),
    until: filter.until === undefined ? null : new Date(filter.until).toISOString(),
    by,
    groups: groupUsage(entries, by, filter).map((g) => ({ ...g.key, ...usageTotalsJson(g.totals) })),
    total: usageTotalsJson(sumUsage(entries, filter)),
    skipped_lines: skipped,
  };
}

/** The report as a table with a total line. */
export function usageTable(entries: readonly UsageEntry[], by: readonly UsageGroupKey[], filter: UsageFilter): string {
  const groups = groupUsage(entries, by, filter);
  const header = [...by.map((k) => k.toUpperCase()), "TURNS", "INPUT", "OUTPUT", "CACHE-READ", "CACHE-WRITE", "REASONING", "COST"];
  const row = (key: string[], t: UsageTotals) => [
    ...key,
    String(t.turns),
    count(t.tokens.input),
    count(t.tokens.output),
    count(t.tokens.cacheRead),
    count(t.tokens.cacheWrite),
    count(t.tokens.reasoning),
    costCell(t),
  ];
  const rows = groups.map((g) => row(by.map((k) => g.key[k] ?? "-"), g.totals));
  if (groups.length > 1) rows.push(row(by.map((_, i) => (i === 0 ? "total" : "")), sumUsage(entries, filter)));
  return renderTable(header, rows);
}

/** A cost cell: `$1.2345`, `unknown` (no known cost at all), or `$0.50 + 2 unknown` (turns whose cost is unknown). */
export function costCell(t: Pick<UsageTotals, "turns" | "costUsd" | "costUnknownTurns">): string {
  if (t.turns > 0 && t.costUnknownTurns === t.turns) return "unknown";
  const known = `$${t.costUsd.toFixed(4)}`;
  return t.costUnknownTurns > 0 ? `${known} + ${t.costUnknownTurns} unknown` : known;
}

/** A token count with thousands separators. */
function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** Today's usage (UTC) of one agent, read from its journal: the status of an agent whose daemon does not answer. */
export function usageTodayFromJournal(nick: string): { today: Record<string, number> } {
  const now = Date.now();
  const t = sumUsage(readUsageJournal(usageJournalPath(nick)).entries, { since: Math.floor(now / DAY_MS) * DAY_MS });
  return { today: { ...usageTotalsJson(t) } };
}

/** The status table's TODAY cell: tokens (input + output) and cost, `-` without usage. */
export function todayCell(usage: unknown): string {
  const today = (usage as { today?: Record<string, number> } | undefined)?.today;
  if (!today || !today.turns) return "-";
  const tokens = (today.input_tokens ?? 0) + (today.output_tokens ?? 0);
  const short = tokens >= 1e6 ? `${(tokens / 1e6).toFixed(1)}M` : tokens >= 1e3 ? `${(tokens / 1e3).toFixed(1)}k` : String(tokens);
  return `${short} tok ${costCell({ turns: today.turns, costUsd: today.cost_usd ?? 0, costUnknownTurns: today.cost_unknown_turns ?? 0 }).replace(/ unknown$/, "?").replace(/^unknown$/, "$?")}`;
}
