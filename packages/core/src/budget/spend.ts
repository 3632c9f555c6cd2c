/**
 * What a budget counts of one turn: when, whose, where, asked by whom, how many tokens, what it
 * cost. The budget engine needs only this much of a usage record (usage/usage-record.ts), so it
 * does not change when the record grows; {@link spendOfRecord} is the one place that reads a record.
 */
import { totalTokens, type UsageRecord } from "../usage/usage-record.js";

/** One turn's spending, as budgets count it. */
export interface Spend {
  /** Epoch ms the turn ended. */
  at: number;
  /** The agent's nick. */
  agent: string;
  /** The channel the turn was asked in, or null (a DM, or no asker). */
  channel: string | null;
  /** The asker's IRC account, or null (not logged in, or no asker). */
  account: string | null;
  /** The asker's nick, or null. */
  nick: string | null;
  /** Tokens of every kind reported. */
  tokens: number;
  /** USD, or null when the cost is unknown. */
  usd: number | null;
  /** The turn's id (so a record seen twice counts once). */
  turn: string;
}

/** A usage journal record as budgets count it: all tokens (input + output), the cost or null. */
export function spendOfRecord(r: UsageRecord): Spend {
  return { at: r.at, agent: r.agent, channel: r.channel, account: r.account, nick: r.nick, tokens: totalTokens(r.tokens), usd: r.costUsd, turn: r.turn };
}
