/**
 * The hung watchdog: a turn in flight with no agent event for `stall_seconds` is "stalled".
 * That is a fact for people, not a verdict: the watchdog posts one alert (#alerts and the
 * webhook), tells the supervisor, and marks presence `stalled`; the next agent event (or the
 * end of the turn) clears it. The turn timeout, not the watchdog, ends a turn that never
 * comes back. Time spent waiting for an operator's approval does not count.
 */

/** What the watchdog needs. */
export interface StallWatchdogOptions {
  stallSeconds: number;
  /** A turn is in flight now. */
  inTurn(): boolean;
  /** The agent waits for an operator (approvals): silence then is not a stall. */
  waitingForPerson(): boolean;
  /** The turn went silent for `silentMs` (once per silence). */
  stalled(silentMs: number): void;
  /** An event came after a stall (or the turn ended). */
  recovered(silentMs: number): void;
  clock?: { now(): number };
}

/** Watches the agent's events during turns. */
export class StallWatchdog {
  private timer: NodeJS.Timeout | null = null;
  private lastEventAt: number;
  private stalledAt: number | null = null;
  private readonly clock: { now(): number };

  constructor(private readonly o: StallWatchdogOptions) {
    this.clock = o.clock ?? Date;
    this.lastEventAt = this.clock.now();
  }

  /** True while the turn in flight is stalled. */
  get stalled(): boolean {
    return this.stalledAt !== null;
  }

  /** Milliseconds since the last agent event. */
  get silentMs(): number {
    return this.clock.now() - this.lastEventAt;
  }

  /** A turn is about to start, or the agent produced an event: the clock starts again. */
  event(): void {
    const silent = this.silentMs;
    this.lastEventAt = this.clock.now();
    if (this.stalledAt !== null) this.recover(silent);
    this.arm(this.o.stallSeconds * 1000);
  }

  /** The turn ended: nothing to watch until the next one. */
  turnEnded(): void {
    this.disarm();
    if (this.stalledAt !== null) this.recover(this.silentMs);
  }

  /** The daemon is stopping. */
  stop(): void {
    this.disarm();
  }

  private recover(silent: number): void {
    this.stalledAt = null;
    this.o.recovered(silent);
  }

  private arm(ms: number): void {
    this.disarm();
    this.timer = setTimeout(() => this.check(), Math.max(10, ms));
    this.timer.unref?.();
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private check(): void {
    this.timer = null;
    if (!this.o.inTurn() || this.stalledAt !== null) return;
    const silent = this.silentMs;
    const limit = this.o.stallSeconds * 1000;
    if (this.o.waitingForPerson()) {
      // Waiting for a person is not silence: start counting again once they answer.
      this.lastEventAt = this.clock.now();
      this.arm(limit);
      return;
    }
    if (silent < limit) return this.arm(limit - silent);
    this.stalledAt = this.clock.now();
    this.o.stalled(silent);
  }
}

/** The stall limit of an agent: its `stall_seconds`, else min(300, turn_timeout_seconds / 2). */
export function stallSecondsOf(agent: { stall_seconds?: number | null; turn_timeout_seconds: number }): number {
  return agent.stall_seconds ?? Math.min(300, agent.turn_timeout_seconds / 2);
}
