/**
 * The usage meter: a built-in plugin that taps `turnEnd`, sums the turn's messages' usage
 * (each backend's normaliser has already turned its agent's report into additive
 * {@link Usage}), prices it, appends one {@link UsageRecord} to the usage journal and fires
 * `turnUsage` with it. It also keeps today's totals (UTC) for the status.
 *
 * It is a tap, not code in the turn loop, so the daemon keeps one place where turns happen and
 * budgets (or any plugin) see the same record the journal holds. `turnUsage` is awaited inside
 * the `turnEnd` tap, so a running total a tap keeps is up to date before the next turn starts.
 */
import type { AgentMessage } from "../agent-message.js";
import { errorMessage } from "../errors.js";
import type { TurnResult } from "../events.js";
import type { DaemonHooks } from "../hooks.js";
import type { Logger } from "../logger.js";
import { priceUsage, type PricesConfig } from "./prices.js";
import { UsageJournal, type UsageFsync } from "./usage-journal.js";
import { addTokens, emptyTokens, tokensOf, totalTokens, type UsageRecord } from "./usage-record.js";
import { addEntry, emptyTotals, sumUsage, usageTotalsJson, type UsageTotals, type UsageTotalsJson } from "./usage-totals.js";

const PLUGIN_NAME = "UsageMeter";
const DAY_MS = 86_400_000;

/** Options of {@link UsageMeter}. */
export interface UsageMeterOptions {
  nick: string;
  logger: Logger;
  /** The `prices:` table. */
  prices?: PricesConfig;
  /** The configured model, for a turn whose messages name none. */
  model: string | null;
  /** The journal file, or null to keep no journal (tests that write no state). */
  journalPath: string | null;
  fsync?: UsageFsync;
  now?: () => number;
}

/** The usage part of the status (`status.usage`). */
export interface UsageStatus {
  /** Since 00:00 UTC today. */
  today: UsageTotalsJson;
  journal: { path: string; write_failures: number } | null;
}

/** Meters every turn of one daemon (see the module comment). */
export class UsageMeter {
  private journal: UsageJournal | null = null;
  private todayStart = 0;
  private todayTotals: UsageTotals = emptyTotals();
  private readonly now: () => number;

  constructor(private readonly o: UsageMeterOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Taps the daemon's hooks: `turnEnd` (meter, journal, `turnUsage`) and `status`. */
  apply(hooks: DaemonHooks): this {
    hooks.turnEnd.tapPromise(PLUGIN_NAME, async (turn) => {
      const record = this.meter(turn);
      this.record(record);
      await hooks.turnUsage.promise(record);
    });
    hooks.status.tap(PLUGIN_NAME, (status) => ({ ...status, usage: this.status() }));
    return this;
  }

  /** Opens the journal (once the daemon owns the agent's state) and loads today's totals from it. */
  open(): void {
    if (this.journal || !this.o.journalPath) return;
    const { journal, contents } = UsageJournal.open({ path: this.o.journalPath, logger: this.o.logger, fsync: this.o.fsync, now: this.now });
    this.journal = journal;
    this.todayStart = startOfUtcDay(this.now());
    this.todayTotals = sumUsage(contents.entries, { since: this.todayStart });
  }

  /** Syncs and closes the journal. */
  close(): void {
    this.journal?.close();
  }

  /** The record of one finished turn (pure: nothing is written). */
  meter(turn: TurnResult): UsageRecord {
    const tokens = emptyTokens();
    const byModel = new Map<string, number>();
    let reported = false;
    let cost = 0;
    let unknownCost = false;
    let priced = false;
    let lastModel: string | null = null;
    for (const m of turn.messages) {
      if (m.model) lastModel = m.model;
      if (!m.usage) continue;
      reported = true;
      const t = tokensOf(m.usage);
      addTokens(tokens, t);
      const model = modelOf(m, lastModel, this.o.model);
      if (model !== null) byModel.set(model, (byModel.get(model) ?? 0) + totalTokens(t));
      const price = priceUsage(m.usage, model, this.o.prices);
      if (!price) unknownCost = true;
      else {
        cost += price.usd;
        if (price.source === "prices") priced = true;
      }
    }
    const model = [...byModel.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? lastModel ?? this.o.model;
    const known = reported && !unknownCost;
    const o = turn.origin;
    return {
      v: 1,
      type: "turn",
      at: this.now(),
      agent: this.o.nick,
      turn: o.id,
      kind: o.kind,
      channel: o.kind === "dm" ? null : o.channel,
      nick: o.sender,
      account: o.account ?? null,
      model,
      tokens,
      costUsd: known ? cost : null,
      costSource: known ? (priced ? "prices" : "agent") : null,
      reported,
      failed: turn.error !== null,
    };
  }

  /** Appends a record to the journal and today's totals. Never throws. */
  record(record: UsageRecord): void {
    try {
      if (!this.journal && this.o.journalPath) this.open();
      this.journal?.append(record);
    } catch (err) {
      this.o.logger.warn(`recording a turn's usage failed: ${errorMessage(err)}`, { turn: record.turn });
    }
    const day = startOfUtcDay(record.at);
    if (day !== this.todayStart) {
      this.todayStart = day;
      this.todayTotals = emptyTotals();
    }
    addEntry(this.todayTotals, record);
  }

  /** Today's usage (UTC) and the journal, for the status. */
  status(): UsageStatus {
    if (startOfUtcDay(this.now()) !== this.todayStart) {
      this.todayStart = startOfUtcDay(this.now());
      this.todayTotals = emptyTotals();
    }
    const t = this.todayTotals;
    return {
      today: usageTotalsJson(t),

      journal: this.journal ? { path: this.journal.path, write_failures: this.journal.writeFailures } : null,
    };
  }
}

/** The start of the UTC day of `ms`. */
export function startOfUtcDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

function modelOf(m: AgentMessage, lastModel: string | null, configured: string | null): string | null {
  return m.model ?? lastModel ?? configured;
}
