/**
 * The facts of the daemon's state that the daemon itself owns — its lifecycle, the operator's
 * pause (and who or what paused it), the IRC link — gathered with the runner keeper's facts in
 * one place ({@link RunState.facts}), so the derived state (daemon-state.ts) and every
 * `hooks.stateChange` tap see the same picture. A new fact (like the over-budget hold) is one
 * field here and one line in `deriveState`.
 *
 * Every change goes through {@link RunState.changed}: the state is re-derived (logged, the hook
 * called) and the turn loop is pumped, so a prompt waits exactly as long as the facts say.
 */
import type { Logger } from "../logger.js";
import { DaemonStateTracker, type DaemonFacts, type DaemonState, type IrcLinkState, type StateChange, type StateTransition } from "./daemon-state.js";
import type { RunnerKeeper } from "./runner-keeper.js";

/** The daemon's lifecycle. */
export type Lifecycle = DaemonFacts["lifecycle"];

/** The IRC link as status shows it. */
export interface LinkFacts {
  state: IrcLinkState;
  /** Epoch seconds of the last change. */
  since: number;
  disconnects: number;
  lastError: string | null;
}

/** What {@link RunState} needs. */
export interface RunStateOptions {
  logger: Logger;
  keeper: Pick<RunnerKeeper, "ready" | "restarting" | "circuitOpen" | "fatal">;
  /** Feeds what waits (the turn loop's pump), after every change. */
  pump(): void;
  /** Hears every state transition (the daemon calls `hooks.stateChange`). */
  onChange(change: StateChange): void;
  /** True while a budget cap holds every turn back (budget/agent-budget.ts). Absent: never. */
  overBudget?(): boolean;
}

/** The daemon's own state facts, and the state derived from them. */
export class RunState {
  private life: Lifecycle = "starting";
  private pausedFlag = false;
  private by: string | null = null;
  private linkFacts: LinkFacts = { state: "connecting", since: Date.now() / 1000, disconnects: 0, lastError: null };
  private readonly tracker: DaemonStateTracker;

  constructor(private readonly o: RunStateOptions) {
    this.tracker = new DaemonStateTracker(o.logger, o.onChange);
  }

  /** The derived state now. */
  get state(): DaemonState {
    return this.tracker.state;
  }

  /** The last transitions, oldest first. */
  get history(): readonly StateTransition[] {
    return this.tracker.history;
  }

  get lifecycle(): Lifecycle {
    return this.life;
  }

  /** Paused by an operator or the supervisor (not the circuit: that is the keeper's). */
  get paused(): boolean {
    return this.pausedFlag;
  }

  /** Who or what paused the agent, for receipts, or null when it is not paused. */
  get pausedBy(): string | null {
    return this.pausedFlag ? (this.by ?? "by an operator") : null;
  }

  get link(): Readonly<LinkFacts> {
    return this.linkFacts;
  }

  /** A budget cap holds every turn back. */
  get overBudget(): boolean {
    return this.o.overBudget?.() ?? false;
  }

  /** True from stop() on. */
  get stopping(): boolean {
    return this.life === "stopping" || this.life === "stopped";
  }

  /** Prompts may be fed: the runner is ready and nothing holds them back. */
  mayRun(): boolean {
    return this.life === "running" && this.o.keeper.ready && !this.pausedFlag && !this.overBudget;
  }

  /** The facts the state is derived from, now. */
  facts(): DaemonFacts {
    const k = this.o.keeper;
    return {
      lifecycle: this.life,
      runnerReady: k.ready,
      restarting: k.restarting,
      paused: this.pausedFlag || k.circuitOpen || k.fatal !== null,
      overBudget: this.overBudget,
      link: this.linkFacts.state,
    };
  }

  /** Something the state depends on changed: re-derive it (logged, hooked) and feed what waits. */
  changed(reason: string): void {
    this.tracker.update(this.facts(), reason);
    this.o.pump();
  }

  setLifecycle(life: Lifecycle, reason: string): void {
    this.life = life;
    this.changed(reason);
  }

  /** Pauses (`by` says who or what, for receipts) or lifts the pause. */
  setPaused(paused: boolean, by: string | null, reason: string): void {
    this.pausedFlag = paused;
    this.by = paused ? by : null;
    this.changed(reason);
  }

  setLink(state: IrcLinkState, reason: string, error: string | null = null): void {
    const disconnects = this.linkFacts.disconnects + (state === "reconnecting" && this.linkFacts.state !== "reconnecting" ? 1 : 0);
    this.linkFacts = { state, since: Date.now() / 1000, disconnects, lastError: error };
    this.changed(reason);
  }
}
