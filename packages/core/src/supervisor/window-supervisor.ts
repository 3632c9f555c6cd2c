/**
 * The default supervisor (DESIGN.md section 7). It keeps a rolling window of the agent's
 * last `window_size` messages and, every `eval_interval` messages, asks its evaluator for one
 * verdict — beside the agent, never inside its turn: `observe()` only records and schedules.
 * Verdicts climb a ladder: first whisper, stronger whisper, then escalation to humans, after
 * which evaluation pauses until an operator resumes the agent.
 *
 * Deterministic signals (the same tool call 3+ times, a silent turn) are measured locally on
 * every evaluation. With an evaluator they are evidence in its prompt; without one they are
 * the verdict. The advisory check-in ("you haven't read your channels in N minutes") is a
 * whisper of its own that never climbs the ladder.
 *
 * Nothing here is fatal: an evaluator that crashes, hangs or answers nonsense is logged and
 * counted, and the agent carries on.
 */
import type { AgentMessage } from "../agent-message.js";
import { supervisorSchema, type SupervisorConfig } from "../config/schema.js";
import { errorMessage, evaluatorTimedOut } from "../errors.js";
import type { SupervisorStatus } from "../events.js";
import type { Logger } from "../logger.js";
import { SupervisorBase, type Evaluator, type WhisperAction } from "../supervisor-base.js";
import { parseVerdict, type Verdict } from "../verdict.js";
import { buildEvaluationPrompt, formatDuration, renderEvidence } from "./evaluation-prompt.js";
import { findRepeatedToolCalls, type ObservedMessage, type SupervisorEvidence } from "./evidence.js";
import { SUPERVISOR_SYSTEM_PROMPT } from "./system-prompt.js";

/** Options of {@link WindowSupervisor}. */
export interface WindowSupervisorOptions {
  /** The supervised agent's nick (named in the prompt). */
  nick: string;
  /** The `supervisor:` section; null runs on the deterministic signals alone, with the schema's defaults. */
  config: SupervisorConfig | null;
  /** Asks the LLM; null: the deterministic signals are the verdict. The supervisor closes it on `stop()`. */
  evaluator: Evaluator | null;
  logger: Logger;
  /** Shown in `status().evaluator` (e.g. "claude", "command"). Default: "custom" with an evaluator, null without. */
  evaluatorName?: string | null;
  /** Milliseconds since the epoch; injectable so tests can move time. Default `Date`. */
  clock?: { now(): number };
  /** How often the stall and check-in timer runs. Default 30000. */
  signalCheckIntervalMs?: number;
}

/** After an evaluation is aborted, how long to wait for the evaluator to let go (reap its process). */
const ABORT_GRACE_MS = 5000;

const DEFAULTS: SupervisorConfig = supervisorSchema.parse({});

/** The default supervisor: a rolling window, an evaluator, deterministic signals and the escalation ladder. */
export class WindowSupervisor extends SupervisorBase {
  private readonly nick: string;
  private readonly settings: SupervisorConfig;
  private readonly evaluator: Evaluator | null;
  private readonly evaluatorName: string | null;
  private readonly logger: Logger;
  private readonly clock: { now(): number };
  private readonly checkIntervalMs: number;

  private window: ObservedMessage[] = [];
  private seq = 0;
  /** Turns started so far: observed messages carry it, so repeats are counted per turn. */
  private turns = 0;
  /** Messages observed since the last interval-triggered evaluation was scheduled. */
  private sinceScheduled = 0;
  /** The last `seq` an evaluation has seen (calls after it are "recent"). */
  private evaluatedSeq = 0;

  /** Whispers sent for the issue being watched; `escalation_threshold` once escalated. */
  private ladder = 0;
  private escalatedFlag = false;
  private evaluations = 0;
  private failures = 0;
  private lastVerdict: string | null = null;

  private running: Promise<void> | null = null;
  private pending = false;
  private controller: AbortController | null = null;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;

  private turnInFlight = false;
  private task: string | null = null;
  private lastOutputAt: number;
  /** Permission requests waiting for a person: silence then is not a stall. */
  private permissionWaits = 0;
  /** Stall periods (multiples of stall_seconds) already acted on in the current silence. */
  private stallPeriodsReported = 0;

  private lastReadAt: number;
  /** Time spent in turns since the last channel read. */
  private unreadWorkMs = 0;
  private accountedAt: number;
  private checkinSent = false;

  constructor(options: WindowSupervisorOptions) {
    super();
    this.nick = options.nick;
    this.settings = options.config ?? DEFAULTS;
    this.evaluator = options.evaluator;
    this.evaluatorName = options.evaluatorName !== undefined ? options.evaluatorName : options.evaluator ? "custom" : null;
    this.logger = options.logger;
    this.clock = options.clock ?? Date;
    this.checkIntervalMs = options.signalCheckIntervalMs ?? 30_000;
    const now = this.clock.now();
    this.lastOutputAt = now;
    this.lastReadAt = now;
    this.accountedAt = now;
  }

  /** Starts the stall / check-in timer. */
  async start(): Promise<void> {
    this.stopped = false;
    const now = this.clock.now();
    this.lastReadAt = now;
    this.accountedAt = now;
    if (this.timer) clearInterval(this.timer);
    this.timer = setInterval(() => void this.checkSignals(), this.checkIntervalMs);
    this.timer.unref();
    this.logger.info("supervisor started", {
      evaluator: this.evaluatorName ?? "none (deterministic signals only)",
      window_size: this.settings.window_size,
      eval_interval: this.settings.eval_interval,
      escalation_threshold: this.settings.escalation_threshold,
    });
  }

  /** Cancels the timer, aborts a running evaluation and closes the evaluator. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.pending = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.controller?.abort(new Error("the supervisor is stopping"));
    await this.running?.catch(() => undefined);
    try {
      await this.evaluator?.close?.();
    } catch (err) {
      this.logger.warn(`closing the evaluator failed: ${errorMessage(err)}`);
    }
  }

  /**
   * Adds one agent message to the window. Every `eval_interval` messages an evaluation is
   * scheduled in the background; this never waits for it.
   */
  async observe(turn: AgentMessage): Promise<void> {
    const now = this.clock.now();
    this.window.push({ seq: ++this.seq, at: now, turn: this.turns, message: turn });
    if (this.window.length > this.settings.window_size) this.window.splice(0, this.window.length - this.settings.window_size);
    this.lastOutputAt = now;
    this.stallPeriodsReported = 0;
    if (++this.sinceScheduled >= this.settings.eval_interval) {
      this.sinceScheduled = 0;
      void this.schedule();
    }
  }

  /** A turn started (a prompt was sent); `task` is what the agent was asked. */
  noteTurnStart(task: string): void {
    const now = this.clock.now();
    this.accountWork(now);
    this.turnInFlight = true;
    this.turns++;
    this.task = task.replace(/\s+/g, " ").trim().slice(0, 500);
    this.lastOutputAt = now;
    this.stallPeriodsReported = 0;
  }

  /**
   * A permission request started (true) or stopped (false) waiting for an operator. While one
   * waits the silence is the operator's, not the agent's: no STALLING; after, the silence
   * clock starts again.
   */
  notePermissionWait(waiting: boolean): void {
    this.permissionWaits = Math.max(0, this.permissionWaits + (waiting ? 1 : -1));
    if (this.permissionWaits === 0) {
      this.lastOutputAt = this.clock.now();
      this.stallPeriodsReported = 0;
    }
  }

  /** The turn in flight ended. */
  noteTurnEnd(): void {
    this.accountWork(this.clock.now());
    this.turnInFlight = false;
  }

  /** The agent read its channels (`irc_read`): the check-in clock starts again. */
  noteChannelRead(): void {
    const now = this.clock.now();
    this.lastReadAt = now;
    this.accountedAt = now;
    this.unreadWorkMs = 0;
    this.checkinSent = false;
  }

  /** An operator resumed the agent: the ladder starts again from 0 on a fresh window, and evaluation is re-enabled. */
  resume(): void {
    if (this.escalatedFlag || this.ladder > 0) this.logger.info("resumed by an operator: ladder reset");
    this.escalatedFlag = false;
    this.ladder = 0;
    this.window = [];
    this.evaluatedSeq = this.seq;
    this.sinceScheduled = 0;
  }

  /** True after an escalation, until {@link resume}. */
  get escalated(): boolean {
    return this.escalatedFlag;
  }

  /** The current (or last) task text, or null before the first turn. */
  get currentTask(): string | null {
    return this.task;
  }

  /**
   * The supervisor's part of the daemon status. `ladder_step` is 0 while nothing is wrong,
   * the number of whispers sent for the current issue, and `escalation_threshold` once
   * escalated. `last_verdict` is the last verdict's action (e.g. "CORRECTION").
   */
  status(): SupervisorStatus {
    return {
      evaluator: this.evaluatorName,
      last_verdict: this.lastVerdict,
      ladder_step: this.ladder,
      evaluations: this.evaluations,
      evaluation_failures: this.failures,
    };
  }

  /**
   * Runs one evaluation now and waits for it (when one is already running, waits for that
   * one and then runs this one). Does nothing once escalated or stopped.
   */
  evaluateNow(): Promise<void> {
    return this.schedule();
  }

  /**
   * What the timer does every `signalCheckIntervalMs`: sends the advisory check-in when it is
   * due, and when the turn in flight has been silent for another `stall_seconds`, evaluates
   * (STALLING). Resolves when whatever it started has finished. Public for the daemon and tests.
   */
  async checkSignals(): Promise<void> {
    if (this.stopped || this.escalatedFlag) return;
    const now = this.clock.now();
    this.accountWork(now);
    const work: Promise<void>[] = [];
    const checkinMs = this.settings.checkin_minutes * 60_000;
    if (this.turnInFlight && !this.checkinSent && this.unreadWorkMs >= checkinMs) {
      this.checkinSent = true;
      const minutes = Math.floor((now - this.lastReadAt) / 60_000);
      this.logger.info("advisory check-in", { minutes_since_read: minutes });
      work.push(
        this.whisper(
          `You haven't checked your channels in ${minutes} minutes. ` +
            `Consider doing a culture channel read <channel> to see if there's relevant input.`,
          "CORRECTION",
        ),
      );
    }
    if (this.turnInFlight && this.permissionWaits === 0) {
      const periods = Math.floor((now - this.lastOutputAt) / (this.settings.stall_seconds * 1000));
      if (periods > this.stallPeriodsReported) {
        this.stallPeriodsReported = periods;
        this.logger.info("no agent output during the turn: evaluating (STALLING)", { silent: formatDuration(now - this.lastOutputAt) });
        work.push(this.schedule());
      }
    }
    await Promise.all(work);
  }

  // ------------------------------------------------------------------ evaluation

  /** Runs the evaluation loop, or marks another evaluation due when one is running. */
  private schedule(): Promise<void> {
    if (this.stopped || this.escalatedFlag) return Promise.resolve();
    if (this.running) {
      this.pending = true;
      return this.running;
    }
    const loop = (async () => {
      try {
        do {
          this.pending = false;
          await this.evaluateOnce();
        } while (this.pending && !this.stopped && !this.escalatedFlag);
      } finally {
        this.running = null;
        this.pending = false;
      }
    })();
    this.running = loop;
    return loop;
  }

  private async evaluateOnce(): Promise<void> {
    try {
      if (this.escalatedFlag) return;
      const now = this.clock.now();
      const evidence = this.collectEvidence(now);
      this.evaluatedSeq = this.seq;
      const verdict = this.evaluator ? await this.askEvaluator(evidence) : this.deterministicVerdict(evidence);
      if (!verdict || this.stopped || this.escalatedFlag) return;
      await this.apply(verdict);
    } catch (err) {
      // Not expected (every known failure is handled above); never let it reach the agent.
      this.failures++;
      this.logger.error(`supervisor evaluation crashed: ${errorMessage(err)}`);
    }
  }

  private collectEvidence(now: number): SupervisorEvidence {
    const silent = now - this.lastOutputAt;
    return {
      repeated: findRepeatedToolCalls(this.window, this.evaluatedSeq),
      stalledMs: this.turnInFlight && this.permissionWaits === 0 && silent >= this.settings.stall_seconds * 1000 ? silent : null,
      sinceChannelReadMs: now - this.lastReadAt,
    };
  }

  /** Asks the evaluator; null when it failed or timed out (logged and counted). */
  private async askEvaluator(evidence: SupervisorEvidence): Promise<(Verdict & { reason?: string }) | null> {
    const evaluator = this.evaluator!;
    const prompt = buildEvaluationPrompt({
      nick: this.nick,
      task: this.task,
      turnInFlight: this.turnInFlight,
      window: this.window,
      evidence,
      stallSeconds: this.settings.stall_seconds,
    });
    const controller = new AbortController();
    this.controller = controller;
    const seconds = this.settings.timeout_seconds;
    const timeout = setTimeout(() => controller.abort(evaluatorTimedOut(seconds)), seconds * 1000);
    try {
      const text = await settleOrAbort(
        evaluator.evaluate({ systemPrompt: this.settings.prompt_override ?? SUPERVISOR_SYSTEM_PROMPT, prompt, signal: controller.signal }),
        controller.signal,
      );
      this.evaluations++;
      const verdict = parseVerdict(String(text));
      if (verdict.unparsed) {
        this.logger.warn("the evaluator's answer is not a verdict; read as OK", { answer: String(text).slice(0, 300) });
      } else {
        this.logger.debug("verdict", { action: verdict.action, message: verdict.message });
      }
      return verdict;
    } catch (err) {
      if (this.stopped) return null;
      this.failures++;
      this.logger.warn(`evaluation failed (the agent carries on): ${errorMessage(err)}`, { failures: this.failures });
      return null;
    } finally {
      clearTimeout(timeout);
      if (this.controller === controller) this.controller = null;
    }
  }

  /** Without an evaluator: a SPIRALING or STALLING signal is a CORRECTION, anything else OK. */
  private deterministicVerdict(evidence: SupervisorEvidence): Verdict & { reason?: string } {
    this.evaluations++;
    const spiral = evidence.repeated.find((r) => r.recent > 0);
    if (spiral) {
      return {
        action: "CORRECTION",
        message:
          `You've made the same ${spiral.name} call ${spiral.count} times (${clip(spiral.input, 120)}) without a different result. ` +
          `Stop retrying it: try a different approach, or ask for help in your channel (culture channel ask).`,
        reason: `Retried the same ${spiral.name} call ${spiral.count} times`,
      };
    }
    if (evidence.stalledMs !== null) {
      const silent = formatDuration(evidence.stalledMs);
      return {
        action: "CORRECTION",
        message:
          `No output for ${silent}${this.task ? ` on task "${clip(this.task, 80)}"` : ""}. ` +
          `If you are blocked, say so in your channel (culture channel send) or try a different approach.`,
        reason: `No output for ${silent}`,
      };
    }
    return { action: "OK", message: "" };
  }

  /** Moves the ladder for one verdict. */
  private async apply(verdict: Verdict & { reason?: string }): Promise<void> {
    this.lastVerdict = verdict.action;
    if (verdict.action === "OK") {
      if (this.ladder > 0) this.logger.info("verdict OK: ladder reset", { was: this.ladder });
      this.ladder = 0;
      return;
    }
    const threshold = this.settings.escalation_threshold;
    const message = verdict.message || DEFAULT_MESSAGES[verdict.action];
    // Never on a first observation: at least two whispers before humans are alerted. An
    // ESCALATION verdict may cut a longer ladder (threshold > 3) short after two whispers.
    if (this.ladder >= threshold - 1 || (verdict.action === "ESCALATION" && this.ladder >= 2)) {
      const reason = verdict.reason ?? message;
      this.escalatedFlag = true;
      this.pending = false;
      this.ladder = threshold;
      this.logger.warn("escalating to humans; evaluation paused until resume", { reason, evidence: renderEvidence(this.collectEvidence(this.clock.now()), this.settings.stall_seconds) });
      try {
        await this.onEscalation?.(reason);
      } catch (err) {
        this.logger.error(`delivering the escalation failed: ${errorMessage(err)}`);
      }
      return;
    }
    const action: WhisperAction = verdict.action === "THINK_DEEPER" ? "THINK_DEEPER" : "CORRECTION";
    const step = this.ladder;
    this.ladder++;
    const text = step === 0 ? message : strongerWording(step, message, step === threshold - 2);
    this.logger.info("whisper", { action, step: this.ladder, verdict: verdict.action });
    await this.whisper(text, action);
  }

  private async whisper(message: string, action: WhisperAction): Promise<void> {
    try {
      await this.onWhisper?.(message, action);
    } catch (err) {
      this.logger.error(`delivering a whisper failed: ${errorMessage(err)}`);
    }
  }

  /** Adds the time since the last accounting to the unread-work clock, when a turn is in flight. */
  private accountWork(now: number): void {
    if (this.turnInFlight) this.unreadWorkMs += Math.max(0, now - this.accountedAt);
    this.accountedAt = now;
  }
}

const DEFAULT_MESSAGES: Record<Exclude<Verdict["action"], "OK">, string> = {
  CORRECTION: "Your recent work does not seem to be making progress. Step back and reconsider your approach.",
  THINK_DEEPER: "This decision deserves extended thinking before you continue.",
  ESCALATION: "Still no progress. Step back, reconsider your approach, or ask for help in your channel.",
};

const ORDINALS = ["First", "Second", "Third", "Fourth", "Fifth", "Sixth"];

/** The wording of the second and later whispers for the same issue. */
function strongerWording(step: number, message: string, last: boolean): string {
  const ordinal = ORDINALS[step];
  const lead = ordinal ? `${ordinal} warning:` : `Warning ${step + 1}:`;
  const tail = last ? "If this does not change, humans will be alerted." : "The problem persists.";
  return `${lead} ${message.replace(/\s+$/, "")}${/[.!?]$/.test(message.trim()) ? "" : "."} ${tail}`;
}

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/**
 * Waits for `promise`, or rejects with the signal's reason once it is aborted — after giving
 * the evaluator a short grace to settle, so a well-behaved one has reaped its process and two
 * evaluations never overlap.
 */
async function settleOrAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  const settled = promise.then(
    () => undefined,
    () => undefined,
  );
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } catch (err) {
    if (!signal.aborted) throw err;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, ABORT_GRACE_MS).unref()))]);
    clearTimeout(timer);
    throw signal.reason;
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}
