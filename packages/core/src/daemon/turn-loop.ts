/**
 * The turn loop owns the prompt queue and the turn in flight: it feeds one prompt at a time to
 * the runner (only when the daemon says it may: the runner keeper is ready, nothing is paused
 * or stopping), correlates the agent's messages to the prompt that caused them, times out a
 * silent turn, and aborts. A turn is opened and closed in one try/finally: whatever throws
 * (a hook, the runner, the supervisor), the turn is closed, the next prompt is fed, and the
 * prompt's journal record is settled.
 */
import { messageText, type AgentMessage } from "../agent-message.js";
import type { AgentRunnerBase } from "../agent-runner.js";
import { errorMessage } from "../errors.js";
import type { PromptOrigin, TurnResult } from "../events.js";
import type { DaemonHooks } from "../hooks.js";
import type { Logger } from "../logger.js";
import type { PromptJournal } from "./prompt-journal.js";
import { newOrigin } from "./prompt-origin.js";
import type { PromptQueue, PushResult, QueuedPrompt } from "./prompt-queue.js";
import { heldState } from "./receipt-texts.js";
import type { Receipts } from "./receipts.js";
import type { RunnerKeeper } from "./runner-keeper.js";

/** The turn in flight. */
export interface TurnState {
  origin: PromptOrigin;
  prompt: string;
  messages: AgentMessage[];
  sentTo: Set<string>;
  startedAt: number;
  error: string | null;
}

/** What the turn loop tells the supervisor. */
export interface TurnObserver {
  noteTurnStart(task: string): void;
  noteTurnEnd(): void;
  observe(msg: AgentMessage): Promise<void>;
}

/** What the turn loop needs. */
export interface TurnLoopOptions {
  queue: PromptQueue;
  keeper: RunnerKeeper;
  hooks: DaemonHooks;
  logger: Logger;
  /** The journal, when prompts are journaled. */
  journal: () => PromptJournal | null;
  /** The supervisor once it exists. */
  supervisor: () => TurnObserver | null;
  /** True when prompts may be fed now (state ready or reconnecting). */
  mayRun(): boolean;
  /** Asked before each turn: true when something else took the prompt aside (its budget is used up). */
  hold?(prompt: QueuedPrompt): boolean;
  /** True while the daemon is stopping (turns ending now are not marked done). */
  stopping(): boolean;
  turnTimeoutSeconds: number;
  interruptGraceMs: number;
  /** Says a short line on IRC (never throws). */
  notice(target: string, text: string): void;
  /** The receipts of addressed lines (daemon/receipts.ts), when kept. */
  receipts?: Pick<Receipts, "ack" | "final" | "held" | "isOpen">;
  /** What happens after a failed turn, for the asker ("I am ready for the next request"...). */
  nextAfterFailure?(): string;
  /** Why the agent cannot run until a person acts, or null. */
  cannotRun?(): string | null;
  /** A turn ended with an error (the daemon alerts #alerts and the webhook). */
  turnFailed?(origin: PromptOrigin, error: string): void;
  /** A turn began (it is {@link TurnLoop.turn} now): presence says `thinking` before the agent's first event. */
  turnStarted?(): void;
}

/** Feeds prompts to the runner one turn at a time. */
export class TurnLoop {
  private current: TurnState | null = null;
  private pumping = false;
  private timer: NodeJS.Timeout | null = null;
  /** Permission requests waiting for a person: the turn timer does not run meanwhile. */
  private holds = 0;
  private turns = 0;
  private activation: number | null = null;
  private task: string | null = null;
  private taskOrigin: PromptOrigin | null = null;

  constructor(private readonly o: TurnLoopOptions) {}

  /** The turn in flight, or null. */
  get turn(): TurnState | null {
    return this.current;
  }

  /** Turns finished. */
  get turnCount(): number {
    return this.turns;
  }

  /** When the last turn began (epoch seconds), or null. */
  get lastActivation(): number | null {
    return this.activation;
  }

  /** What a person last asked (a mention's or DM's text), or null. */
  get lastTask(): string | null {
    return this.task;
  }

  /** Where what a person last asked came from (a mention's or DM's origin), or null. */
  get lastTaskOrigin(): PromptOrigin | null {
    return this.taskOrigin;
  }

  /** The loop's part of the daemon status. */
  statusFacts(): { turn: { origin: PromptOrigin; prompt: string } | null; turnCount: number; lastActivation: number | null } {
    const turn = this.current;
    return { turn: turn ? { origin: turn.origin, prompt: turn.prompt } : null, turnCount: this.turns, lastActivation: this.activation };
  }

  /** Queues a prompt (journaling it first when `journal` is set) and pumps. */
  enqueue(prompt: QueuedPrompt, journal: boolean): PushResult {
    const check = this.o.queue.check(prompt);
    if (!check.accepted) return check;
    const j = journal ? this.o.journal() : null;
    if (j) {
      j.add({ id: prompt.origin.id, at: Date.now(), klass: prompt.klass, origin: prompt.origin, text: prompt.text });
      prompt.journaled = true;
    }
    const result = this.o.queue.push(prompt);
    if (result.accepted && result.evicted) {
      this.settle(result.evicted);
      this.o.receipts?.final(result.evicted.origin.id, { state: "dropped", why: "my queue was full and a busier sender's newest request gave way" });
    }
    this.pump();
    return result;
  }

  /**
   * `/compact` or `/clear`: the runner's method when it has one, else the slash command as its
   * own turn (never relayed, never journaled).
   */
  async contextCommand(kind: "compact" | "clear"): Promise<{ delivered: "method" | "queued" }> {
    const runner = this.o.keeper.runner;
    const method = runner?.[kind];
    if (runner && method) {
      await method.call(runner);
      return { delivered: "method" };
    }
    this.enqueue({ origin: newOrigin("system", null, null, null, `/${kind}`), text: `/${kind}`, klass: "system" }, false);
    return { delivered: "queued" };
  }

  /** Feeds the next queued prompt to the runner when nothing is in flight and the daemon may run. */
  pump(): void {
    if (this.pumping || this.current || !this.o.mayRun()) return;
    let next = this.o.queue.shift();
    while (next && this.o.hold?.(next)) next = this.o.queue.shift(); // set aside (its budget is used up)
    if (!next) return;
    this.pumping = true;
    void this.runTurn(next)
      .catch((err) => this.o.logger.error(`turn failed: ${errorMessage(err)}`))
      .finally(() => {
        this.pumping = false;
        this.pump();
      });
  }

  /**
   * Interrupts the current turn and drops queued prompts; returns how many were dropped. Each
   * dropped prompt's asker (and the current turn's) gets the final state `dropped: <why>`.
   */
  async abort(why = "an operator aborted my work", setAside: QueuedPrompt[] = []): Promise<number> {
    const dropped = [...this.o.queue.clear(), ...setAside];
    for (const p of dropped) {
      this.settle(p);
      this.o.receipts?.final(p.origin.id, { state: "dropped", why: `${why} and cleared my queue` });
    }
    if (this.current) this.o.receipts?.final(this.current.origin.id, { state: "dropped", why: `${why} while I was working on it` });
    const runner = this.o.keeper.runner;
    if (this.current && runner?.interrupt) await runner.interrupt().catch((err) => this.o.logger.warn(`interrupt failed: ${errorMessage(err)}`));
    return dropped.length;
  }

  /** The agent sent to `target` during the current turn (relay `auto` uses this). */
  noteSentTo(target: string): void {
    this.current?.sentTo.add(target.toLowerCase());
  }

  /** A message from the runner. */
  async onAgentMessage(runner: AgentRunnerBase, msg: AgentMessage): Promise<void> {
    if (runner !== this.o.keeper.runner) return;
    const turn = this.current;
    if (turn) {
      turn.messages.push(msg);
      this.armTimer(turn);
    }
    const sup = this.o.supervisor();
    if (sup) void sup.observe(msg).catch((err) => this.o.logger.warn(`supervisor observe failed: ${errorMessage(err)}`));
    await this.o.hooks.agentMessage.promise(msg, turn?.origin ?? null);
  }

  /**
   * A permission request of the turn started waiting for a person: the turn timer stops, so a
   * slow operator does not make the turn "silent" and get it killed. {@link releaseTimer} restarts it.
   */
  holdTimer(): void {
    this.holds++;
    this.clearTimer();
  }

  /** A waiting request ended: the turn timer starts again, from zero, once nothing waits. */
  releaseTimer(): void {
    this.holds = Math.max(0, this.holds - 1);
    if (this.holds === 0 && this.current) this.armTimer(this.current);
  }

  /** Cancels the turn timer (the daemon is stopping). */
  stop(): void {
    this.clearTimer();
  }

  private async runTurn(next: QueuedPrompt): Promise<void> {
    let turn: TurnState | null = null;
    let requeued = false;
    let result: TurnResult | null = null;
    let done = false;
    try {
      const prompt = await this.o.hooks.beforePrompt.promise(next.text, next.origin);
      if (prompt === null || this.o.stopping()) return;
      let runner: AgentRunnerBase;
      try {
        runner = await this.o.keeper.ensureRunning();
      } catch (err) {
        // The prompt waits for the next runner; the keeper counts the failure and restarts.
        this.o.logger.warn(`could not start the agent for a prompt: ${errorMessage(err)}`);
        this.o.queue.unshift(next);
        requeued = true;
        await this.o.keeper.onStartFailure(err);
        const cannot = this.o.cannotRun?.() ?? null;
        if (cannot) this.o.receipts?.held(next.origin.id, heldState(cannot));
        return;
      }
      turn = { origin: next.origin, prompt, messages: [], sentTo: new Set(), startedAt: Date.now(), error: null };
      this.current = turn;
      this.o.turnStarted?.();
      this.o.receipts?.ack(next.origin.id, { state: "working" });
      this.activation = Date.now() / 1000;
      if (next.origin.kind === "mention" || next.origin.kind === "dm") {
        this.task = next.origin.text.slice(0, 200);
        this.taskOrigin = next.origin;
      }
      if (next.journaled) this.o.journal()?.start(next.origin.id);
      this.armTimer(turn);
      this.o.supervisor()?.noteTurnStart(this.task ?? prompt.slice(0, 200));
      try {
        await runner.sendPrompt(prompt);
      } catch (err) {
        turn.error ??= errorMessage(err);
        this.o.logger.warn(`turn ended with an error: ${turn.error}`);
        await this.o.keeper.onTurnError(err);
        // A turn that failed because the agent process exited already has its alert ("crashed"): one alert per fault.
        if (!this.o.stopping() && runner.isRunning()) this.o.turnFailed?.(turn.origin, turn.error);
      }
      const last = [...turn.messages].reverse().find((m) => messageText(m).trim() !== "");
      result = {
        origin: turn.origin,
        prompt,
        messages: turn.messages,
        finalText: last ? messageText(last) : "",
        sentTo: turn.sentTo,
        error: turn.error,
        durationMs: Date.now() - turn.startedAt,
      };
    } finally {
      if (turn) {
        this.clearTimer();
        if (this.current === turn) this.current = null;
        this.turns += 1;
        try {
          this.o.supervisor()?.noteTurnEnd();
        } catch (err) {
          this.o.logger.warn(`supervisor noteTurnEnd failed: ${errorMessage(err)}`);
        }
      }
      // A prompt whose turn was cut short by stopping is delivered again by the next daemon.
      if (!requeued && !this.o.stopping()) {
        this.settle(next);
        done = this.finalReceipt(next, turn);
      }
    }
    try {
      if (result) await this.o.hooks.turnEnd.promise(result);
    } finally {
      // After the relay said the reply: a "done" reaction must not overtake it.
      if (done && this.o.receipts?.isOpen(next.origin.id)) this.o.receipts.final(next.origin.id, { state: "done" });
    }
  }

  /**
   * The final receipt of a prompt whose turn ended (or that a `beforePrompt` tap held back);
   * true when the turn succeeded (its "done" follows the turnEnd taps, after the reply).
   */
  private finalReceipt(next: QueuedPrompt, turn: TurnState | null): boolean {
    const r = this.o.receipts;
    if (!r || !r.isOpen(next.origin.id)) return false; // already final (timed out, aborted, could not start)
    if (!turn) r.final(next.origin.id, { state: "dropped", why: "a plugin held it back" });
    else if (turn.error) r.final(next.origin.id, { state: "failed", why: firstLine(turn.error), next: this.o.nextAfterFailure?.() ?? "ask again" });
    else return true;
    return false;
  }

  /** Marks a prompt done in the journal (its turn ended, or it was dropped). */
  private settle(p: QueuedPrompt): void {
    if (p.journaled) this.o.journal()?.done(p.origin.id);
  }

  private armTimer(turn: TurnState): void {
    this.clearTimer();
    if (this.holds > 0) return;
    this.timer = setTimeout(() => void this.onTimeout(turn), this.o.turnTimeoutSeconds * 1000);
    this.timer.unref?.();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** A turn with no output for turn_timeout_seconds: interrupt (or restart), tell the origin, count a crash. */
  private async onTimeout(turn: TurnState): Promise<void> {
    if (this.current !== turn || this.o.stopping()) return;
    const secs = this.o.turnTimeoutSeconds;
    turn.error = `turn timed out after ${secs}s without output`;
    this.o.logger.warn(turn.error);
    const stuck = `Sorry, I got stuck on that (no output for ${secs}s) and stopped the attempt.`;
    if (this.o.receipts?.isOpen(turn.origin.id)) this.o.receipts.final(turn.origin.id, { state: "failed", why: turn.error, next: "I stopped the attempt" }, stuck);
    else if (turn.origin.replyTo) this.o.notice(turn.origin.replyTo, stuck);
    const runner = this.o.keeper.runner;
    let ended = false;
    if (runner?.interrupt) {
      const settled = new Promise<void>((resolve) => {
        const check = setInterval(() => {
          if (this.current !== turn) {
            clearInterval(check);
            resolve();
          }
        }, 20);
        setTimeout(() => {
          clearInterval(check);
          resolve();
        }, this.o.interruptGraceMs).unref?.();
      });
      await runner.interrupt().catch((err) => this.o.logger.warn(`interrupt failed: ${errorMessage(err)}`));
      await settled;
      ended = this.current !== turn;
    }
    await this.o.keeper.recordCrash(turn.error, !ended);
  }
}

/** The first line of an error, at most 200 characters: what fits in one IRC line. */
function firstLine(text: string): string {
  const line = text.split("\n").map((l) => l.trim()).find(Boolean) ?? text;
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
