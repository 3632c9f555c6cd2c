/**
 * Per-client command throttling. Each command costs penalty points; a client holds up to
 * `burst` points, refilled at `perSecond`. A command that finds too few points waits in the
 * client's own queue (the "fake lag" of classic ircds), so a flooder slows down only itself:
 * other clients' commands are handled as they arrive. A queue that overflows means sustained
 * abuse, and the caller disconnects the client.
 */
import type { FloodOptions } from "./server-options.js";

/** A token bucket with a FIFO of waiting items. */
export class FloodGate<T> {
  private points: number;
  private last: number;
  private readonly queue: { item: T; cost: number }[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly opts: Required<FloodOptions>,
    /** Runs an item once it may run (immediately or after waiting). */
    private readonly run: (item: T) => void,
    /** Called once when the queue overflows; the gate stops accepting items. */
    private readonly onOverflow: () => void,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.points = opts.burst;
    this.last = this.now();
  }

  /** Items waiting. */
  get queued(): number {
    return this.queue.length;
  }

  /** Runs `item` now if the client has the points and nothing is waiting, else queues it. */
  submit(item: T, cost: number): void {
    if (this.queue.length === 0 && this.take(cost)) {
      this.run(item);
      return;
    }
    if (this.queue.length >= this.opts.maxQueued) {
      this.close();
      this.onOverflow();
      return;
    }
    this.queue.push({ item, cost });
    this.schedule();
  }

  /** Drops everything waiting and stops the timer (the client is gone). */
  close(): void {
    this.queue.length = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private take(cost: number): boolean {
    this.refill();
    // A command dearer than the whole bucket still runs once the bucket is full.
    const need = Math.min(cost, this.opts.burst);
    if (this.points < need) return false;
    this.points -= need;
    return true;
  }

  private refill(): void {
    const t = this.now();
    this.points = Math.min(this.opts.burst, this.points + ((t - this.last) / 1000) * this.opts.perSecond);
    this.last = t;
  }

  private schedule(): void {
    if (this.timer || this.queue.length === 0) return;
    this.refill();
    const need = Math.min(this.queue[0]!.cost, this.opts.burst);
    const waitMs = Math.max(1, Math.ceil(((need - this.points) / this.opts.perSecond) * 1000));
    this.timer = setTimeout(() => {
      this.timer = null;
      this.drain();
    }, waitMs);
  }

  private drain(): void {
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      if (!this.take(head.cost)) break;
      this.queue.shift();
      this.run(head.item);
    }
    this.schedule();
  }
}
