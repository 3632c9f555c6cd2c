/**
 * The words of budgets: alert lines (#alerts, the webhook, the asker), the `budget show` lines,
 * and the amounts operators type (`$5`, `200k tokens`). One line each, so they fit IRC.
 */
import { formatLocal } from "./budget-period.js";
import { BudgetEngine, type CapStanding, type Crossing } from "./budget-engine.js";

/** `12,345 of 100,000 tokens and $0.41 of $5.00 per day` (the units the cap has). */
export function spentText(s: CapStanding): string {
  const parts: string[] = [];
  if (s.tokenLimit !== null) parts.push(`${int(s.tokens)} of ${int(s.tokenLimit)} tokens`);
  if (s.usdLimit !== null) parts.push(`${usd(s.usd)} of ${usd(s.usdLimit)}${s.unknownCost ? ` (+${s.unknownCost} turn(s) of unknown cost)` : ""}`);
  return `${parts.join(" and ")} per ${s.cap.per}`;
}

/** When the cap's period ends, as people read it. */
export function resetsText(s: CapStanding, tz: string): string {
  return formatLocal(s.period.end, tz);
}

/** Who the cap stops: `turns of spark-bot`, `prompts asked in #general`, `prompts asked by account alice`. */
export function stopsText(s: CapStanding, nick: string): string {
  if (s.cap.scope === "channel") return `prompts asked in ${s.cap.key}`;
  if (s.cap.scope === "account") return `prompts asked by account ${s.cap.key}`;
  return `turns of ${nick}`;
}

/** The #alerts / webhook line of a crossing. */
export function crossingText(nick: string, c: Crossing, tz: string): string {
  const s = c.standing;
  const name = BudgetEngine.describe(s);
  if (c.threshold < 100) return `[BUDGET] ${nick}: ${c.threshold}% of ${name} used (${spentText(s)}; resets ${resetsText(s, tz)})`;
  return `[OVER BUDGET] ${nick}: ${name} is used up (${spentText(s)}). ${cap1(stopsText(s, nick))} wait until it resets at ${resetsText(s, tz)} or an operator says "@${nick} budget raise <amount>" or "@${nick} budget reset".`;
}

/** The NOTICE to the asker whose turn crossed a threshold. */
export function askerCrossingText(nick: string, c: Crossing, tz: string): string {
  const s = c.standing;
  if (c.threshold < 100) return `[budget] your request took ${BudgetEngine.describe(s)} to ${c.threshold}% (${spentText(s)}; resets ${resetsText(s, tz)})`;
  return `[budget] your request used up ${BudgetEngine.describe(s)} (${spentText(s)}); ${stopsText(s, nick)} wait until ${resetsText(s, tz)} or an operator raises it`;
}

/** Why a prompt waits (the receipt's words): `spark-bot's budget is used up (…); it runs after 2026-11-28 00:00 UTC or when an operator raises it`. */
export function waitingWhy(s: CapStanding): string {
  return `${BudgetEngine.describe(s)} is used up (${spentText(s)})`;
}

/** The line a turn aborted by a `hard_stop` cap ends with. */
export function hardStopWhy(s: CapStanding): string {
  return `${BudgetEngine.describe(s)} ran out while I was working on it (hard_stop; ${spentText(s)})`;
}

/** One line per cap for `budget show` (IRC and `culture budget show`). */
export function showLines(nick: string, standings: CapStanding[], tz: string, blocked: CapStanding | null): string[] {
  if (standings.length === 0) return [`${nick} has no budget caps (budget: in agents.yaml; time zone ${tz})`];
  const head = blocked ? `${nick} is over budget: ${waitingWhy(blocked)}` : `${nick} is within budget`;
  return [
    `${head} (time zone ${tz})`,
    ...standings.map((s) => `${s.cap.id}: ${Math.floor(s.percent)}% — ${spentText(s)}${s.cap.hardStop ? ", hard_stop" : ""}; resets ${resetsText(s, tz)}`),
  ];
}

/** An amount an operator raises a cap by. */
export type BudgetAmount = { tokens: number } | { usd: number };

/**
 * Reads `$5`, `5usd`, `5 USD`, `2.50$` (dollars) or `200000 tokens`, `200k tokens`, `1.5m`,
 * `200k` (tokens). A bare number with no unit is refused: it could be either.
 */
export function parseBudgetAmount(text: string): BudgetAmount | { error: string } {
  const t = text.trim().toLowerCase().replace(/,/g, "");
  const dollars = /^\$\s*(\d+(?:\.\d+)?)$|^(\d+(?:\.\d+)?)\s*(?:\$|usd|dollars?)$/.exec(t);
  if (dollars) {
    const n = Number(dollars[1] ?? dollars[2]);
    return n > 0 ? { usd: n } : { error: "the amount must be more than 0" };
  }
  const tokens = /^(\d+(?:\.\d+)?)\s*([km])?\s*(tokens?)?$/.exec(t);
  if (tokens && (tokens[2] || tokens[3])) {
    const n = Math.round(Number(tokens[1]) * (tokens[2] === "k" ? 1_000 : tokens[2] === "m" ? 1_000_000 : 1));
    return n > 0 ? { tokens: n } : { error: "the amount must be more than 0" };
  }
  return { error: `cannot read the amount ${JSON.stringify(text.trim())}: say dollars ($5, 5usd) or tokens (200k, 200000 tokens)` };
}

function int(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

function usd(n: number): string {
  return `$${n < 0.01 && n > 0 ? n.toFixed(4) : n.toFixed(2)}`;
}

function cap1(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
