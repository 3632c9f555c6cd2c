/**
 * The lifecycle every runner needs, once: idempotent stop, stop during start, one turn at a
 * time, message delivery that never throws into the agent's stream, and crash reporting that
 * leaves out the exits we asked for. A backend extends it and fills in how its agent starts
 * ({@link ManagedRunner.startAgent}), how it stops ({@link ManagedRunner.stopAgent}) and what a
 * turn is ({@link ManagedRunner.runTurn}).
 */
import type { AgentMessage } from "../agent-message.js";
import { AgentRunnerBase } from "../agent-runner.js";
import { errorMessage } from "../errors.js";
import type { Logger } from "../logger.js";

/** A runner whose lifecycle culture manages; the backend implements the protected hooks. */
export abstract class ManagedRunner extends AgentRunnerBase {
  private runningValue = false;
  private stopping: Promise<void> | null = null;
  private stopRequestedValue = false;
  private startingValue = false;
  private turns: Promise<void> = Promise.resolve();

  /** @param logger The runner's logger (crash and callback failures are logged here). */
  protected constructor(protected readonly logger: Logger) {
    super();
  }

  /** Starts the agent; see {@link ManagedRunner.startAgent}. Waits for a stop in progress first. */
  async start(initialPrompt?: string): Promise<void> {
    if (this.hasAgent() || this.startingValue) throw new Error(`${this.constructor.name}.start(): already started; stop() it first`);
    this.startingValue = true;
    try {
      await this.stopping;
      this.stopRequestedValue = false;
      this.turns = Promise.resolve();
      await this.startAgent(initialPrompt);
    } catch (err) {
      this.runningValue = false;
      throw err;
    } finally {
      this.startingValue = false;
    }
  }

  /**
   * Stops the agent (see {@link ManagedRunner.stopAgent}). Idempotent: concurrent calls share
   * one stop. Called while start() has no agent yet, it makes start() stop it as soon as it
   * has one. An exit caused by stop() is not reported to `onExit`.
   */
  async stop(): Promise<void> {
    if (this.stopping) return this.stopping;
    if (!this.hasAgent()) {
      if (this.startingValue) this.stopRequestedValue = true;
      return;
    }
    this.runningValue = false;
    this.stopRequestedValue = true;
    this.stopping = this.stopAgent().finally(() => {
      this.stopping = null;
    });
    return this.stopping;
  }

  /** Sends one user turn; turns never overlap, whatever the caller does. */
  async sendPrompt(text: string): Promise<void> {
    if (!this.runningValue || !this.hasAgent()) throw new Error(`${this.constructor.name}.sendPrompt(): the agent is not running`);
    await this.enqueueTurn(() => this.runTurn(text));
  }

  /** Whether the agent runs and accepts prompts. */
  isRunning(): boolean {
    return this.runningValue;
  }

  /** Whether stop() was called since the last start(): the coming exit is ours, not a crash. */
  protected get stopRequested(): boolean {
    return this.stopRequestedValue;
  }

  /** Marks the agent as accepting prompts (or not). */
  protected setRunning(running: boolean): void {
    this.runningValue = running;
  }

  /** Throws when stop() was called during start(); call it after each slow step of start. */
  protected throwIfStopRequested(): void {
    if (this.stopRequestedValue) throw new Error(`${this.constructor.name}: stop() was called during start()`);
  }

  /** Runs `turn` after every turn queued before it (a failed turn does not block the next). */
  protected enqueueTurn(turn: () => Promise<void>): Promise<void> {
    const run = this.turns.then(turn);
    this.turns = run.catch(() => undefined);
    return run;
  }

  /** Hands one message to the daemon; a failing `onMessage` is logged, never thrown. */
  protected async emit(message: AgentMessage): Promise<void> {
    try {
      await this.onMessage?.(message);
    } catch (err) {
      this.logger.error("onMessage failed", { error: errorMessage(err) });
    }
  }

  /**
   * Reports an exit nobody asked for: the runner is no longer running, and `onExit` hears the
   * code (128 + N for signal N). Exits after stop() are not reported. A failing `onExit` is logged.
   */
  protected async reportExit(code: number): Promise<void> {
    this.runningValue = false;
    if (this.stopRequestedValue) return;
    this.logger.warn("the agent exited", { code });
    try {
      await this.onExit?.(code);
    } catch (err) {
      this.logger.error("onExit failed", { error: errorMessage(err) });
    }
  }

  /** Whether the runner holds an agent (a process, a connection) that stop() must end. */
  protected abstract hasAgent(): boolean;
  /** Spawns the agent and opens its session; calls setRunning(true) once it accepts prompts. */
  protected abstract startAgent(initialPrompt?: string): Promise<void>;
  /** Ends the agent: gracefully, then by force. Called once per stop, with stopRequested set. */
  protected abstract stopAgent(): Promise<void>;
  /** Runs one user turn; resolves when the turn has ended and its messages were emitted. */
  protected abstract runTurn(text: string): Promise<void>;
}
