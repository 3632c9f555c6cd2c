/**
 * One agent daemon's budget (docs/budgets.md "Budgets"): the engine's running totals fed by
 * the usage journals, and what the daemon does with them.
 *
 * - Before each turn the turn loop asks: {@link AgentBudget.blocked} (an agent or home cap is
 *   used up: the daemon's state is `over_budget`, nothing is fed, prompts stay queued and
 *   journaled) and {@link AgentBudget.hold} (a channel's or account's cap is used up: that
 *   prompt is set aside, still journaled, until the cap frees). Both read the running totals,
 *   after picking up what the journals grew by, so a turn never starts past a cap.
 * - After each turn (`hooks.turnUsage`) the spend is counted; a first crossing of 50 / 80 /
 *   100 % this period is alerted to #alerts and the webhook and told to the asker.
 * - During a turn (`hooks.agentMessage`, usage is additive per message) a cap with `hard_stop`
 *   that the turn takes past 100 % ends the turn at once.
 * - Askers of waiting prompts get an `over_budget` receipt saying why and until when.
 * - Operators: `@nick budget [show|raise <amount>|reset]` on IRC, `culture budget ...` on the
 *   control socket. Raises, resets and sent alerts are saved (budget-store.ts).
 * - Periods roll over on a timer (or {@link AgentBudget.tick}, for tests with an injected clock).
 */
import type { AgentMessage } from "../agent-message.js";
import type { AgentConfig, CultureConfig } from "../config/schema.js";
import type { IpcRequest, IpcResult, PromptOrigin } from "../events.js";
import type { DaemonHooks } from "../hooks.js";
import type { Logger } from "../logger.js";
import { usageJournalPath } from "../paths.js";
import type { UsageRecord } from "../usage/usage-record.js";
import type { AgentChainGuard } from "../daemon/agent-chain.js";
import type { PromptQueue, QueuedPrompt } from "../daemon/prompt-queue.js";
import type { ReceiptState } from "../daemon/receipt-texts.js";
import type { Receipts } from "../daemon/receipts.js";
import { resolveCaps } from "./budget-caps.js";
import type { BudgetCommand } from "./budget-command.js";
import { BudgetEngine, type Asker, type CapStanding, type Crossing } from "./budget-engine.js";
import { machineTimeZone } from "../time-zone.js";
import { BudgetStore } from "./budget-store.js";
import { askerCrossingText, crossingText, hardStopWhy, parseBudgetAmount, resetsText, showLines, waitingWhy } from "./budget-texts.js";
import { spendOfRecord, type Spend } from "./spend.js";
import { UsageFeed } from "./usage-feed.js";

/** What {@link AgentBudget} needs from the daemon. */
export interface AgentBudgetOptions {
  nick: string;
  config: CultureConfig;
  agent: AgentConfig;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  hooks: DaemonHooks;
  /** Save raises, resets and sent alerts in the state folder (false: in memory only). */
  persist: boolean;
  /** The clock, epoch ms (tests inject one). */
  now?: () => number;
  chain: AgentChainGuard;
  queue: PromptQueue;
  receipts: Pick<Receipts, "tell" | "final" | "isOpen">;
  alert(event: "budget_warning" | "budget_exceeded", text: string): void;
  /** A NOTICE to a nick (never throws). */
  notice(target: string, text: string): void;
  /** Something the daemon's state depends on changed: re-derive it and feed what waits. */
  changed(reason: string): void;
  /** Ends the turn in flight (a hard stop). */
  interrupt(): Promise<void>;
}

/** The budget part of `culture status --json`. */
export interface BudgetStatus {
  /**
   * The zone periods are counted in; null when no cap counts and the config names none (the
   * machine's zone is looked up only when a budget first counts: that loads ICU's zone data).
   */
  time_zone: string | null;
  /** The cap that stops every turn now, or null. */
  over_budget: { cap: string; why: string; until: string } | null;
  /** Prompts set aside because their channel's or asker's cap is used up. */
  held: number;
  chain_tokens: number | null;
  caps: Array<{
    id: string;
    scope: string;
    per: string;
    percent: number;
    tokens: number;
    tokens_limit: number | null;
    usd: number;
    usd_limit: number | null;
    cost_unknown_turns: number;
    hard_stop: boolean;
    period: string;
    resets_at: string;
  }>;
}

/** The budget of one agent daemon. */
export class AgentBudget {
  readonly engine: BudgetEngine;
  private readonly feed: UsageFeed;
  private readonly store: BudgetStore | null;
  private readonly held: QueuedPrompt[] = [];
  private readonly inFlight = new Map<string, { tokens: number; usd: number }>();
  private readonly stopped = new Set<string>();
  private wasBlocked: string | null = null;
  /** The journals are read (by start) only once the daemon owns the agent's state. */
  private started = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly now: () => number;
  private readonly tz: string;

  constructor(private readonly o: AgentBudgetOptions) {
    this.now = o.now ?? Date.now;
    this.tz = o.config.budget?.time_zone ?? machineTimeZone();
    const caps = resolveCaps(o.config, o.agent);
    this.store = o.persist ? new BudgetStore(o.nick, o.env, o.logger) : null;
    this.engine = new BudgetEngine(o.nick, caps, this.tz, this.now, this.store?.load() ?? {});
    const shared = caps.some((c) => c.scope !== "agent") || (o.config.budget?.chain_tokens ?? null) !== null;
    this.feed = new UsageFeed({ ownPath: usageJournalPath(o.nick, o.env), shared, env: o.env, logger: o.logger });
  }

  /** Rebuilds the totals from the journals, alerts what was missed, taps the hooks, arms the rollover timer. */
  start(): void {
    this.started = true;
    const spends = this.o.persist ? this.feed.poll() : [];
    for (const s of spends) this.o.chain.noteSpend(s.channel, s.tokens, s.at);
    const late = this.engine.rebuild(spends);
    for (const c of late) if (c.standing.cap.scope === "agent") this.alertCrossing(c, false);
    this.save();
    if (this.engine.active) {
      const s = this.engine.standings();
      this.o.logger.info("budget totals rebuilt from the usage journal", { turns: spends.length, caps: s.map((x) => `${x.cap.id} ${Math.floor(x.percent)}%`).join(", "), time_zone: this.tz });
    }
    this.o.hooks.turnUsage.tap("BudgetPlugin", (record) => this.onRecord(record));
    this.o.hooks.agentMessage.tapPromise("BudgetPlugin", (msg, origin) => this.onMessage(msg, origin));
    this.arm();
  }

  /** Stops the rollover timer. */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The agent or home cap that stops every turn now (after reading what the journals grew by), or null. */
  blocked(): CapStanding | null {
    if (!this.engine.active) return null;
    this.sync();
    const s = this.engine.agentBlocked();
    const id = s?.cap.id ?? null;
    if (id !== this.wasBlocked) {
      this.wasBlocked = id;
      if (s) {
        this.o.logger.warn(`over budget: ${waitingWhy(s)}; no turn starts until ${resetsText(s, this.tz)} or an operator raises or resets it`);
        this.tellWaiting(s);
      } else this.o.logger.info("within budget again: turns start");
      queueMicrotask(() => this.o.changed(s ? "over budget" : "within budget"));
    }
    return s;
  }

  /**
   * Asked before a turn starts: true when a channel's or account's used-up cap stops this prompt
   * (it is set aside, still journaled, and its asker told why); false when it may run.
   */
  hold(p: QueuedPrompt): boolean {
    if (!this.engine.active || p.origin.kind === "system") return false;
    this.sync();
    const s = this.engine.check(askerOf(p.origin));
    if (!s) return false;
    this.held.push(p);
    this.o.receipts.tell(p.origin.id, this.receipt(s));
    this.o.logger.info("a prompt waits: its budget is used up", { cap: s.cap.id, from: p.origin.sender });
    return true;
  }

  /**
   * An operator's abort: the prompts set aside by a used-up cap leave with the queue. Returns
   * them (the caller settles their journal entries and tells their askers).
   */
  releaseHeld(): QueuedPrompt[] {
    const held = this.held.splice(0);
    if (held.length > 0) this.o.changed("held prompts dropped");
    return held;
  }

  /** The receipt of a prompt that arrives while its cap is used up, or null. */
  receiptFor(origin: PromptOrigin): ReceiptState | null {
    if (!this.engine.active) return null;
    const s = this.engine.check(askerOf(origin));
    return s ? this.receipt(s) : null;
  }

  /** An operator's command from IRC (`by`: their account or nick); the lines to answer with. */
  command(cmd: BudgetCommand, by: string): { ok: boolean; lines: string[] } {
    if (cmd.verb === "show") return { ok: true, lines: this.show() };
    if (cmd.verb === "reset") {
      const done = this.engine.reset();
      this.o.logger.info(`budget reset by ${by}`, { caps: done.map((s) => s.cap.id).join(", ") });
      this.afterChange(`budget reset by ${by}`);
      return { ok: true, lines: done.length ? [`reset ${done.map((s) => s.cap.id).join(", ")} for this period (by ${by})`, ...this.show()] : ["there is no budget cap to reset"] };
    }
    const amount = parseBudgetAmount(cmd.amount);
    if ("error" in amount) return { ok: false, lines: [amount.error] };
    const done = this.engine.raise(amount);
    if (!done.length) return { ok: false, lines: [`no cap of ${this.o.nick} counts ${"usd" in amount ? "dollars" : "tokens"}: nothing raised`] };
    const what = "usd" in amount ? `$${amount.usd}` : `${amount.tokens.toLocaleString("en-US")} tokens`;
    this.o.logger.info(`budget raised by ${what} by ${by}`, { caps: done.map((s) => s.cap.id).join(", ") });
    this.afterChange(`budget raised by ${by}`);
    return { ok: true, lines: [`raised ${done.map((s) => s.cap.id).join(", ")} by ${what} for this period (by ${by})`, ...this.show()] };
  }

  /** The control socket's `budget` request (`culture budget`): `{action: show|raise|reset, amount?}`. */
  ipc(req: IpcRequest): IpcResult | null {
    if (req.type !== "budget") return null;
    const action = req.action ?? "show";
    if (action !== "show" && action !== "raise" && action !== "reset") return { ok: false, error: `field "action" must be show, raise or reset, got ${JSON.stringify(action)}` };
    if (action === "raise" && (typeof req.amount !== "string" || req.amount === "")) return { ok: false, error: 'missing field "amount" (e.g. "$5" or "200k tokens")' };
    const cmd: BudgetCommand = action === "raise" ? { verb: "raise", amount: req.amount as string } : { verb: action };
    const r = this.command(cmd, "local");
    return r.ok ? { ok: true, data: { lines: r.lines, budget: this.status() } } : { ok: false, error: r.lines.join("\n") };
  }

  /** Re-checks after the clock moved (the rollover timer; tests call it after moving an injected clock). */
  tick(): void {
    this.afterChange("budget period rolled over");
    this.arm();
  }

  /** The budget part of the status. */
  status(): BudgetStatus {
    const blocked = this.blocked(); // a period that ended since the last look frees the agent here too
    return {
      time_zone: this.tz,
      over_budget: blocked ? { cap: blocked.cap.id, why: waitingWhy(blocked), until: resetsText(blocked, this.tz) } : null,
      held: this.held.length,
      chain_tokens: this.o.config.budget?.chain_tokens ?? null,
      caps: this.engine.standings().map((s) => ({
        id: s.cap.id,
        scope: s.cap.scope,
        per: s.cap.per,
        percent: Math.round(s.percent * 10) / 10,
        tokens: s.tokens,
        tokens_limit: s.tokenLimit,
        usd: Math.round(s.usd * 1e6) / 1e6,
        usd_limit: s.usdLimit,
        cost_unknown_turns: s.unknownCost,
        hard_stop: s.cap.hardStop,
        period: s.period.key,
        resets_at: new Date(s.period.end).toISOString(),
      })),
    };
  }

  /** The description's words when over budget, or null. */
  describe(): string | null {
    const s = this.engine.active ? this.engine.agentBlocked() : null;
    return s ? `over budget: ${waitingWhy(s)}; resumes ${resetsText(s, this.tz)}` : null;
  }

  private show(): string[] {
    return showLines(this.o.nick, this.engine.standings(), this.tz, this.engine.agentBlocked());
  }

  private receipt(s: CapStanding): ReceiptState {
    return { state: "over_budget", why: waitingWhy(s), until: resetsText(s, this.tz) };
  }

  /** Counts what other agents (and our own journal) added since the last look. */
  private sync(): void {
    if (!this.o.persist || !this.started) return;
    for (const s of this.feed.poll()) this.count(s, false);
  }

  private onRecord(record: UsageRecord): void {
    this.inFlight.delete(record.turn);
    this.stopped.delete(record.turn);
    this.count(spendOfRecord(record), true);
  }

  private count(spend: Spend, live: boolean): void {
    const crossings = this.engine.record(spend);
    this.o.chain.noteSpend(spend.channel, spend.tokens, spend.at);
    if (!crossings.length) return;
    // A shared cap's crossing is alerted by the daemon whose turn crossed it (every daemon sees it).
    for (const c of crossings) if (spend.agent.toLowerCase() === this.o.nick.toLowerCase()) this.alertCrossing(c, live);
    this.save();
    if (crossings.some((c) => c.threshold >= 100)) this.blocked();
  }

  private alertCrossing(c: Crossing, tellAsker: boolean): void {
    this.o.alert(c.threshold >= 100 ? "budget_exceeded" : "budget_warning", crossingText(this.o.nick, c, this.tz));
    if (tellAsker && c.spend.nick) this.o.notice(c.spend.nick, askerCrossingText(this.o.nick, c, this.tz));
  }

  private async onMessage(msg: AgentMessage, origin: PromptOrigin | null): Promise<void> {
    if (!msg.usage || !origin || !this.engine.active) return;
    const f = this.inFlight.get(origin.id) ?? { tokens: 0, usd: 0 };
    f.tokens += msg.usage.inputTokens + msg.usage.outputTokens;
    f.usd += msg.usage.costUsd ?? 0;
    this.inFlight.set(origin.id, f);
    if (this.stopped.has(origin.id)) return;
    this.sync();
    const s = this.engine.inFlight(askerOf(origin), f.tokens, f.usd);
    if (!s) return;
    this.stopped.add(origin.id);
    this.o.logger.warn(`hard stop: the turn in flight took ${s.cap.id} past its cap; ending it`, { tokens: f.tokens, usd: f.usd });
    this.o.receipts.final(origin.id, { state: "failed", why: hardStopWhy(s), next: `my next turn waits until ${resetsText(s, this.tz)} or an operator raises the budget` });
    await this.o.interrupt();
  }

  /** After a raise, reset or rollover: held prompts whose cap freed go back to the queue, the state is re-derived. */
  private afterChange(reason: string): void {
    this.save();
    const still: QueuedPrompt[] = [];
    for (const p of this.held.splice(0)) {
      if (this.engine.check(askerOf(p.origin))) still.push(p);
      else this.o.queue.restore(p);
    }
    this.held.push(...still);
    this.blocked();
    this.o.changed(reason);
  }

  /** Tells the askers of every waiting prompt why it waits (once per prompt). */
  private tellWaiting(s: CapStanding): void {
    for (const p of this.o.queue.waiting()) if (p.origin.kind !== "system") this.o.receipts.tell(p.origin.id, this.receipt(s));
  }

  private save(): void {
    this.store?.save(this.engine.overrides());
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const next = this.engine.nextRollover();
    if (next === null) return;
    // setTimeout holds at most ~24.8 days; a month waits in steps of a day.
    const delay = Math.min(Math.max(0, next - this.now()) + 50, 86_400_000);
    this.timer = setTimeout(() => this.tick(), delay);
    this.timer.unref?.();
  }
}

function askerOf(origin: PromptOrigin): Asker {
  return { channel: origin.channel, account: origin.account ?? null };
}
