/**
 * The runner keeper owns the agent's runner: it starts it, restarts it after a crash (after
 * `restart.delay_seconds`, with a resume prompt), opens the circuit after `max_crashes` within
 * `window_seconds`, and stops restarting for errors a restart cannot fix (not logged in, the
 * command is missing) until an operator resumes. It never feeds prompts: it tells the turn
 * loop when a runner is ready (through `changed`).
 */
import type { AgentMessage } from "../agent-message.js";
import type { AgentRunnerBase } from "../agent-runner.js";
import { completeText, errorText, spiralingText } from "../alerts/alert-texts.js";
import type { AlertEvent } from "../config/schema.js";
import { failureOf, failureReasonText, type AgentFailureReason } from "../agent-failure.js";
import { errorMessage, isCultureError } from "../errors.js";
import type { DaemonHooks } from "../hooks.js";
import type { Logger } from "../logger.js";
import { CircuitBreaker } from "./circuit-breaker.js";

/** What the keeper needs from the daemon. */
export interface RunnerKeeperOptions {
  nick: string;
  restart: { delay_seconds: number; max_crashes: number; window_seconds: number };
  logger: Logger;
  hooks: DaemonHooks;
  /** Makes a runner (not started); `previousSessionId` when it replaces one. */
  createRunner(previousSessionId: string | null): AgentRunnerBase | Promise<AgentRunnerBase>;
  /** Every message of the current runner. */
  onMessage(runner: AgentRunnerBase, msg: AgentMessage): Promise<void>;
  /** Fires an alert (never throws). */
  alert(event: AlertEvent, text: string, extra?: { ircContent?: string }): void;
  /** What the agent was last asked, for alert and resume texts. */
  lastTask(): string | null;
  /** A replacement runner is up: queue its resume prompt (the first thing it is told). */
  queueResume(reason: string): void;
  /** Something the daemon's state depends on changed (re-derive the state, pump). */
  changed(reason: string): void;
  /** Runs a runner's start (the daemon records the agent processes it spawns). Default: as is. */
  scope?<T>(start: () => Promise<T>): Promise<T>;
}

/** Keeps one runner alive. */
export class RunnerKeeper {
  private current: AgentRunnerBase | null = null;
  private readonly breaker: CircuitBreaker;
  private restartTimer: NodeJS.Timeout | null = null;
  /** Between a crash and the next runner (delay, then start). */
  private restartingFlag = false;
  /** A start() of some runner is in progress. */
  private startingFlag = false;
  private everStarted = false;
  private stopping = false;
  private fatalMessage: string | null = null;
  /** The classified reason of the fatal error (agent-failure.ts), when it had one. */
  private fatalReason: AgentFailureReason | null = null;
  private crashCount = 0;

  constructor(private readonly o: RunnerKeeperOptions) {
    this.breaker = new CircuitBreaker(o.restart.max_crashes, o.restart.window_seconds * 1000);
  }

  /** The runner (running or not), or null before the first start. */
  get runner(): AgentRunnerBase | null {
    return this.current;
  }

  /** True when prompts may be fed: a runner was started and no restart, open circuit or fatal error stands in the way. */
  get ready(): boolean {
    return this.everStarted && !this.stopping && !this.startingFlag && !this.restartingFlag && !this.breaker.open && this.fatalMessage === null;
  }

  /** Between a crash and the next runner. */
  get restarting(): boolean {
    return this.restartingFlag || (this.everStarted && this.startingFlag);
  }

  /** The circuit is open (no automatic restarts) until an operator resumes. */
  get circuitOpen(): boolean {
    return this.breaker.open;
  }

  /** Why the agent cannot run until a human acts, or null. */
  get fatal(): string | null {
    return this.fatalMessage;
  }

  /** Crashes counted since the daemon started. */
  get crashes(): number {
    return this.crashCount;
  }

  /** The keeper's part of the daemon status. */
  statusFacts(): { runnerRunning: boolean; sessionId: string | null; circuitOpen: boolean; crashes: number; fatal: string | null; fatalReason: AgentFailureReason | null } {
    return { runnerRunning: this.current?.isRunning() ?? false, sessionId: this.current?.sessionId ?? null, circuitOpen: this.breaker.open, crashes: this.crashCount, fatal: this.fatalMessage, fatalReason: this.fatalReason };
  }

  /** Starts the first runner. Rejects when it cannot start (the daemon then fails to start). */
  async start(): Promise<void> {
    await this.startRunner(null, null);
  }

  /**
   * The backend's preflight found the agent cannot run (not signed in): no runner is started;
   * the agent "cannot run" (one alert with the fix) until an operator's resume starts one.
   */
  async cannotRun(err: unknown): Promise<void> {
    await this.onFatal(err);
  }

  /**
   * The running runner; a runner that exited cleanly is started again on demand. Throws when
   * that start fails (the turn loop puts its prompt back and the keeper schedules a restart).
   */
  async ensureRunning(): Promise<AgentRunnerBase> {
    const runner = this.current;
    if (runner && runner.isRunning()) return runner;
    await this.startRunner(null, runner?.sessionId ?? null);
    return this.current!;
  }

  /** A runner could not be started for a turn: fatal, or counted as a crash. */
  async onStartFailure(err: unknown): Promise<void> {
    if (isFatalAgentError(err)) await this.onFatal(err);
    else await this.recordCrash(`start failed: ${errorMessage(err)}`, true);
  }

  /** A turn failed with an error restarting cannot fix. */
  async onTurnError(err: unknown): Promise<void> {
    if (isFatalAgentError(err)) await this.onFatal(err);
  }

  /** Counts a crash; restarts the runner after the delay unless the circuit opened. */
  async recordCrash(reason: string, restartRunner: boolean): Promise<void> {
    if (this.fatalMessage || this.stopping) return;
    this.crashCount++;
    const opened = this.breaker.record();
    if (opened) {
      const { max_crashes, window_seconds } = this.o.restart;
      this.o.logger.error(`circuit open: ${max_crashes} crashes within ${window_seconds}s; not restarting`);
      this.o.alert(
        "agent_spiraling",
        spiralingText(this.o.nick, this.o.lastTask() ?? "its session", `Crashed ${max_crashes} times within ${window_seconds}s (last: ${reason}); restarts stopped. Reply @${this.o.nick} resume to restart`),
      );
      this.o.changed("circuit open");
      if (restartRunner) await this.current?.stop().catch(() => undefined);
      return;
    }
    if (restartRunner) this.scheduleRestart(reason);
  }

  /** Operator resume: closes an open circuit and starts a fresh runner. */
  async resume(): Promise<void> {
    if (!this.breaker.open) return;
    this.breaker.reset();
    this.fatalMessage = null;
    this.fatalReason = null;
    if (this.current?.isRunning() || this.restartingFlag) {
      this.o.changed("circuit closed by an operator");
      return;
    }
    // Prompts keep waiting until the fresh runner is up (never a second runner on demand).
    this.restartingFlag = true;
    this.o.changed("circuit closed by an operator; restarting the agent");
    try {
      await this.current?.stop().catch(() => undefined);
      await this.startRunner("an operator restarted it", this.current?.sessionId ?? null);
    } catch (err) {
      this.restartingFlag = false;
      await this.onStartFailure(err);
    } finally {
      this.restartingFlag = this.restartTimer !== null;
      this.o.changed("resume finished");
    }
  }

  /** Stops the runner and cancels a pending restart; nothing is started afterwards. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    await this.current?.stop();
  }

  private async startRunner(resumeReason: string | null, previousSessionId: string | null): Promise<void> {
    if (this.stopping) return;
    const runner = await this.o.createRunner(previousSessionId);
    if (this.stopping) return; // stopped while the runner's parts loaded (agent-factory.ts)
    runner.onMessage = (msg) => this.o.onMessage(runner, msg);
    runner.onExit = (code) => this.onExit(runner, code);
    this.current = runner;
    this.startingFlag = true;
    this.o.changed(resumeReason ? "restarting the agent" : "starting the agent");
    try {
      await (this.o.scope ? this.o.scope(() => runner.start()) : runner.start());
    } finally {
      this.startingFlag = false;
    }
    if (this.stopping) {
      await runner.stop().catch(() => undefined);
      return;
    }
    this.everStarted = true;
    this.o.logger.info("agent runner started", { session: runner.sessionId ?? null, resume: resumeReason ?? undefined });
    if (resumeReason) this.o.queueResume(resumeReason);
    this.o.changed(resumeReason ? "the agent restarted" : "the agent started");
  }

  private async onExit(runner: AgentRunnerBase, code: number): Promise<void> {
    if (runner !== this.current || this.stopping || this.fatalMessage) return;
    await this.o.hooks.agentExit.promise(code);
    if (code === 0) {
      this.o.logger.info("the agent exited cleanly; it starts again on the next prompt");
      this.o.alert("agent_complete", completeText(this.o.nick, this.o.lastTask() ?? "its session"));
      return;
    }
    this.o.logger.warn(`the agent exited with code ${code}`);
    this.o.alert("agent_error", errorText(this.o.nick, code));
    await this.recordCrash(`process exited with code ${code}`, true);
  }

  private scheduleRestart(reason: string): void {
    if (this.stopping || this.restartTimer) return;
    this.restartingFlag = true;
    this.o.changed(`restarting: ${reason}`);
    const old = this.current;
    const previous = old?.sessionId ?? null;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      void (async () => {
        try {
          await old?.stop().catch(() => undefined);
          if (this.stopping) return;
          this.o.logger.info("restarting the agent", { reason });
          await this.startRunner(reason, previous);
        } catch (err) {
          this.o.logger.error(`restart failed: ${errorMessage(err)}`);
          this.restartingFlag = false;
          await this.onStartFailure(err);
        } finally {
          this.restartingFlag = this.restartTimer !== null;
          this.o.changed("restart finished");
        }
      })();
    }, this.o.restart.delay_seconds * 1000);
  }

  /**
   * The agent cannot run until a human acts (not logged in, command missing): one alert with
   * the fix, no restart loop. An operator's resume tries again.
   */
  private async onFatal(err: unknown): Promise<void> {
    if (this.fatalMessage) return;
    const message = errorMessage(err);
    const failure = failureOf(err);
    this.fatalMessage = message;
    this.fatalReason = failure?.reason ?? null;
    this.breaker.trip();
    this.o.logger.error(`the agent cannot run: ${message}`, failure ? { reason: failure.reason } : undefined);
    this.o.changed("the agent cannot run");
    // A model-API failure leaves the agent itself healthy: it is paused, not stopped, so its
    // session (and context) is still there after the fix and a resume.
    if (!failure || failure.reason === "auth") await this.current?.stop().catch(() => undefined);
    const why = failure && failure.reason !== "auth" ? `paused (${failureReasonText(failure.reason)}): ` : "cannot run its agent: ";
    const text = `[ERROR] ${this.o.nick} ${why}${message}`;
    // One IRC line (the webhook gets the full text): the fix is on the message's last lines.
    const oneLine = text.split("\n").map((l) => l.trim()).filter(Boolean).join(" | ");
    this.o.alert("agent_error", text, { ircContent: oneLine });
  }
}

/** Errors that restarting cannot fix: a human has to act first. */
export function isFatalAgentError(err: unknown): boolean {
  return (
    isCultureError(err, "E_AGENT_AUTH") ||
    isCultureError(err, "E_AGENT_COMMAND_NOT_FOUND") ||
    isCultureError(err, "E_AGENT_START_REFUSED") ||
    failureOf(err)?.class === "fatal"
  );
}
