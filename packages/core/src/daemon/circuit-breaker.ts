/**
 * Counts crashes in a sliding window: `maxCrashes` within `windowMs` opens the circuit (no
 * more automatic restarts) until an operator closes it.
 */
export class CircuitBreaker {
  private crashes: number[] = [];
  private isOpen = false;

  constructor(
    private readonly maxCrashes: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records a crash; returns true when this crash opened the circuit. */
  record(): boolean {
    const t = this.now();
    this.crashes = this.crashes.filter((c) => t - c < this.windowMs);
    this.crashes.push(t);
    if (!this.isOpen && this.crashes.length >= this.maxCrashes) {
      this.isOpen = true;
      return true;
    }
    return false;
  }

  /** Opens the circuit now (an error that restarting cannot fix). */
  trip(): void {
    this.isOpen = true;
  }

  /** Whether automatic restarts are stopped. */
  get open(): boolean {
    return this.isOpen;
  }

  /** Crashes within the window. */
  get recentCrashes(): number {
    const t = this.now();
    return this.crashes.filter((c) => t - c < this.windowMs).length;
  }

  /** Closes the circuit and forgets past crashes (operator resume). */
  reset(): void {
    this.isOpen = false;
    this.crashes = [];
  }
}
