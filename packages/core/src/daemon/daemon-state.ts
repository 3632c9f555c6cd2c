/**
 * The daemon's state, derived from facts owned elsewhere (the lifecycle, the runner keeper,
 * the pause flag, the IRC link) by one pure function, so it can never disagree with them.
 * The daemon re-derives it after every change and logs each transition; the last transitions
 * are kept for `culture status`.
 *
 *   starting -> ready -> (reconnecting | restarting | paused | over_budget) -> ready ... -> stopping -> stopped
 *
 * `over_budget`: an agent or home budget cap is used up (budget/agent-budget.ts); it ends when
 * the period resets or an operator raises or resets the budget.
 *
 * Prompts are only ever fed to the agent in `ready` and `reconnecting` (the agent can work
 * while the IRC link is down; what it sends is queued by the transport). In every other state
 * they queue.
 */
import type { Logger } from "../logger.js";

/** The states of an agent's daemon. */
export type DaemonState = "starting" | "ready" | "reconnecting" | "restarting" | "paused" | "over_budget" | "stopping" | "stopped";

/** The state of the IRC link. */
export type IrcLinkState = "connecting" | "connected" | "reconnecting" | "closed";

/** What the daemon's state is derived from. */
export interface DaemonFacts {
  lifecycle: "starting" | "running" | "stopping" | "stopped";
  /** The runner keeper: a runner is started and may take prompts. */
  runnerReady: boolean;
  /** The runner keeper is between a crash and the next runner (restart delay, starting it). */
  restarting: boolean;
  /** Paused by an operator or an escalation, or the circuit is open / the agent cannot run. */
  paused: boolean;
  /** An agent or home budget cap is used up: no turn starts. Absent: false. */
  overBudget?: boolean;
  link: IrcLinkState;
}

/** The daemon's state for these facts. The most important fact wins. */
export function deriveState(f: DaemonFacts): DaemonState {
  if (f.lifecycle === "stopped") return "stopped";
  if (f.lifecycle === "stopping") return "stopping";
  if (f.lifecycle === "starting") return "starting";
  if (f.paused) return "paused";
  if (f.overBudget) return "over_budget";
  if (f.restarting || !f.runnerReady) return "restarting";
  if (f.link !== "connected") return "reconnecting";
  return "ready";
}

/** One logged transition. */
export interface StateTransition {
  state: DaemonState;
  /** Epoch seconds. */
  at: number;
  reason: string;
}

/**
 * One state change, as `hooks.stateChange` hands it to its taps (presence publishing, budgets,
 * `culture top`): from and to, why, when, and the facts the new state was derived from.
 */
export interface StateChange {
  from: DaemonState;
  to: DaemonState;
  reason: string;
  /** Epoch seconds. */
  at: number;
  facts: Readonly<DaemonFacts>;
}

/** How many transitions status shows. */
const HISTORY = 20;

/** Tracks the derived state and logs every transition. */
export class DaemonStateTracker {
  private current: DaemonState = "starting";
  private readonly log: StateTransition[];

  /** `onChange` hears every transition, after it was logged (the daemon calls `hooks.stateChange`). */
  constructor(
    private readonly logger: Logger,
    private readonly onChange: (change: StateChange) => void = () => undefined,
  ) {
    this.log = [{ state: "starting", at: Date.now() / 1000, reason: "daemon created" }];
  }

  /** The state now. */
  get state(): DaemonState {
    return this.current;
  }

  /** The last transitions, oldest first. */
  get history(): readonly StateTransition[] {
    return this.log;
  }

  /** Re-derives the state from `facts`; logs and records a transition when it changed. Returns the state. */
  update(facts: DaemonFacts, reason: string): DaemonState {
    const next = deriveState(facts);
    if (next === this.current) return next;
    const from = this.current;
    this.current = next;
    const at = Date.now() / 1000;
    this.log.push({ state: next, at, reason });
    if (this.log.length > HISTORY) this.log.splice(0, this.log.length - HISTORY);
    this.logger.info(`state ${from} -> ${next}`, { reason, irc: facts.link });
    this.onChange({ from, to: next, reason, at, facts: { ...facts } });
    return next;
  }
}
