/**
 * The budget engine: running totals per cap and period, kept in memory and updated per turn,
 * so checking a turn before it starts is a few comparisons (no journal read). It is rebuilt at
 * start from the usage journal (every record of the current periods), and its operators'
 * changes (raises, resets, which alerts went out) are persisted by the caller
 * ({@link BudgetEngine.overrides}), so counts and "alerted once" survive kill -9.
 *
 * - {@link BudgetEngine.record}: one turn's spend; returns the thresholds (50 / 80 / 100 %) it
 *   crossed for the first time this period (only the highest per cap: a turn that jumps from 40 %
 *   to 110 % is one alert, not three).
 * - {@link BudgetEngine.check}: the cap that stops a turn for this origin now, or null.
 * - {@link BudgetEngine.inFlight}: a turn in flight whose spend so far takes a `hard_stop` cap past it.
 * - Periods roll over on their own: the clock is read on every call (tests inject it).
 */
import { capCounts, capName, type CapSpec } from "./budget-caps.js";
import { periodOf, type PeriodSpan } from "./budget-period.js";
import type { Spend } from "./spend.js";

/** The thresholds alerted, in percent. */
export const BUDGET_THRESHOLDS = [50, 80, 100] as const;

/** What an operator changed on a cap this period, persisted. */
export interface CapOverride {
  /** The period key it applies to (`day 2026-11-27`); dropped when the period ends. */
  period: string;
  /** Thresholds already alerted this period. */
  alerted: number[];
  raisedTokens: number;
  raisedUsd: number;
  /** Epoch ms of the last reset in this period: only spends after it count. */
  resetAt: number | null;
}

/** A cap's standing now. */
export interface CapStanding {
  cap: CapSpec;
  period: PeriodSpan;
  tokens: number;
  usd: number;
  /** The cap plus what operators raised, per unit (null: that unit is not capped). */
  tokenLimit: number | null;
  usdLimit: number | null;
  /** Of the fuller unit, in percent (may pass 100). */
  percent: number;
  /** Turns counted whose cost was unknown (they count no USD). */
  unknownCost: number;
}

/** A threshold crossed for the first time this period. */
export interface Crossing {
  standing: CapStanding;
  threshold: number;
  /** The spend that crossed it. */
  spend: Spend;
}

/** Who asks for a turn (what a check compares caps against). */
export interface Asker {
  channel: string | null;
  account: string | null;
}

/** The agent's budget totals and thresholds. */
export class BudgetEngine {
  private readonly state = new Map<string, { cap: CapSpec; period: PeriodSpan; tokens: number; usd: number; unknownCost: number; o: CapOverride }>();
  private readonly seen = new Set<string>();

  constructor(
    readonly agent: string,
    readonly caps: readonly CapSpec[],
    readonly timeZone: string,
    private readonly now: () => number = Date.now,
    overrides: Readonly<Record<string, CapOverride>> = {},
  ) {
    const t = now();
    for (const cap of caps) {
      const period = periodOf(t, cap.per, timeZone);
      const saved = overrides[cap.id];
      const o = saved && saved.period === period.key ? { ...saved, alerted: [...saved.alerted] } : fresh(period);
      this.state.set(cap.id, { cap, period, tokens: 0, usd: 0, unknownCost: 0, o });
    }
  }

  /** True when there is any cap at all. */
  get active(): boolean {
    return this.caps.length > 0;
  }

  /**
   * Counts the journal's records at start (those before the current periods or a reset are
   * skipped), then returns the thresholds passed that were not alerted yet (a daemon killed
   * between counting and alerting alerts now; one that alerted does not again).
   */
  rebuild(spends: Iterable<Spend>): Crossing[] {
    let last: Spend | null = null;
    for (const s of spends) {
      this.add(s);
      last = s;
    }
    if (!last) return [];
    const out: Crossing[] = [];
    for (const st of this.state.values()) {
      const c = this.cross(st, last);
      if (c) out.push(c);
    }
    return out;
  }

  /** One turn's spend: counted against every cap it falls under; returns the thresholds it crossed first. */
  record(spend: Spend): Crossing[] {
    if (!this.add(spend)) return [];
    const out: Crossing[] = [];
    for (const st of this.state.values()) {
      if (!capCounts(st.cap, spend)) continue;
      const c = this.cross(st, spend);
      if (c) out.push(c);
    }
    return out;
  }

  /**
   * The cap that stops a turn for `asker` now (at or past 100 %), or null. An agent or home cap
   * stops every turn of the agent; a channel or account cap only that channel's or account's.
   */
  check(asker: Asker | null): CapStanding | null {
    for (const st of this.current()) {
      if (!this.applies(st.cap, asker)) continue;
      const s = standing(st);
      if (s.percent >= 100) return s;
    }
    return null;
  }

  /** The agent or home cap that stops every turn now, or null (the daemon's "over budget" state). */
  agentBlocked(): CapStanding | null {
    return this.check(null);
  }

  /** A `hard_stop` cap that the turn in flight (spent so far: `tokens`, `usd`) takes to 100 %, or null. */
  inFlight(asker: Asker | null, tokens: number, usd: number): CapStanding | null {
    for (const st of this.current()) {
      if (!st.cap.hardStop || !this.applies(st.cap, asker)) continue;
      const s = standing({ ...st, tokens: st.tokens + tokens, usd: st.usd + usd });
      if (s.percent >= 100) return s;
    }
    return null;
  }

  /**
   * Raises the caps that stop this agent now (every over cap), or, when none does, the agent's
   * own caps, by `amount` for the rest of the period. Returns the caps raised (none when no cap
   * has that unit).
   */
  raise(amount: { tokens?: number; usd?: number }): CapStanding[] {
    const targets = this.targets().filter((st) => (amount.tokens && st.cap.tokens !== null) || (amount.usd && st.cap.usd !== null));
    for (const st of targets) {
      if (amount.tokens && st.cap.tokens !== null) st.o.raisedTokens += amount.tokens;
      if (amount.usd && st.cap.usd !== null) st.o.raisedUsd += amount.usd;
      const pct = standing(st).percent;
      st.o.alerted = st.o.alerted.filter((t) => t <= pct);
    }
    return targets.map(standing);
  }

  /** Starts the counts of the caps that stop this agent (or, when none does, its own caps) from zero now. */
  reset(): CapStanding[] {
    const targets = this.targets();
    const t = this.now();
    for (const st of targets) {
      st.tokens = 0;
      st.usd = 0;
      st.unknownCost = 0;
      st.o.resetAt = t;
      st.o.alerted = [];
    }
    return targets.map(standing);
  }

  /** Every cap's standing now. */
  standings(): CapStanding[] {
    return this.current().map(standing);
  }

  /** The earliest end of a current period (epoch ms), or null without caps: when the state may change by itself. */
  nextRollover(): number | null {
    const ends = this.current().map((st) => st.period.end);
    return ends.length ? Math.min(...ends) : null;
  }

  /** What to persist: per cap id, the operators' changes and the alerts sent this period. */
  overrides(): Record<string, CapOverride> {
    const out: Record<string, CapOverride> = {};
    for (const st of this.current()) out[st.cap.id] = { ...st.o, alerted: [...st.o.alerted] };
    return out;
  }

  /** A name for the cap, for people. */
  static describe(s: CapStanding): string {
    return capName(s.cap);
  }

  private applies(cap: CapSpec, asker: Asker | null): boolean {
    if (cap.scope === "agent" || cap.scope === "home") return true;
    if (!asker) return false;
    return capCounts(cap, { agent: this.agent, channel: asker.channel, account: asker.account });
  }

  /** The caps an operator's raise or reset acts on: every over cap, else the agent's own, else all. */
  private targets() {
    const all = this.current();
    const over = all.filter((st) => standing(st).percent >= 100);
    if (over.length) return over;
    const own = all.filter((st) => st.cap.scope === "agent");
    return own.length ? own : all;
  }

  /** The states with their periods rolled to now. */
  private current() {
    const t = this.now();
    const out = [];
    for (const st of this.state.values()) {
      if (t >= st.period.end || t < st.period.start) {
        st.period = periodOf(t, st.cap.per, this.timeZone);
        st.tokens = 0;
        st.usd = 0;
        st.unknownCost = 0;
        st.o = fresh(st.period);
      }
      out.push(st);
    }
    return out;
  }

  /** Adds a spend to the caps it counts under (once per turn id); false when it was seen already. */
  private add(spend: Spend): boolean {
    if (this.seen.has(spend.turn)) return false;
    this.seen.add(spend.turn);
    if (this.seen.size > 200_000) this.seen.delete(this.seen.values().next().value!);
    for (const st of this.current()) {
      if (!capCounts(st.cap, spend)) continue;
      if (spend.at < st.period.start || spend.at >= st.period.end) continue;
      if (st.o.resetAt !== null && spend.at <= st.o.resetAt) continue;
      st.tokens += spend.tokens;
      if (spend.usd === null) st.unknownCost++;
      else st.usd += spend.usd;
    }
    return true;
  }

  private cross(st: { cap: CapSpec; period: PeriodSpan; tokens: number; usd: number; unknownCost: number; o: CapOverride }, spend: Spend): Crossing | null {
    const s = standing(st);
    const passed = BUDGET_THRESHOLDS.filter((t) => s.percent >= t && !st.o.alerted.includes(t));
    if (!passed.length) return null;
    for (const t of passed) st.o.alerted.push(t);
    return { standing: s, threshold: passed[passed.length - 1]!, spend };
  }
}

function fresh(period: PeriodSpan): CapOverride {
  return { period: period.key, alerted: [], raisedTokens: 0, raisedUsd: 0, resetAt: null };
}

function standing(st: { cap: CapSpec; period: PeriodSpan; tokens: number; usd: number; unknownCost: number; o: CapOverride }): CapStanding {
  const tokenLimit = st.cap.tokens === null ? null : st.cap.tokens + st.o.raisedTokens;
  const usdLimit = st.cap.usd === null ? null : st.cap.usd + st.o.raisedUsd;
  const pct = Math.max(tokenLimit ? (st.tokens / tokenLimit) * 100 : 0, usdLimit ? (st.usd / usdLimit) * 100 : 0);
  return { cap: st.cap, period: st.period, tokens: st.tokens, usd: st.usd, tokenLimit, usdLimit, percent: pct, unknownCost: st.unknownCost };
}
