/**
 * The send-rate limit. IRC servers disconnect clients that send faster than they allow
 * ("Excess Flood"), so outgoing lines leave through a token bucket: `capacity` lines may go
 * back to back, then one per `intervalMs`. The clock is injectable so the arithmetic is tested
 * without waiting.
 */

/** Options of {@link TokenBucket}. */
export interface TokenBucketOptions {
  /** Lines that may be sent back to back (the burst). */
  capacity: number;
  /** One token comes back per this many ms. */
  intervalMs: number;
  /** The clock; default Date.now. */
  now?: () => number;
}

/** A token bucket that starts full. */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly capacity: number;
  private readonly intervalMs: number;
  private readonly now: () => number;

  constructor(options: TokenBucketOptions) {
    if (!(options.capacity >= 1)) throw new RangeError(`TokenBucket: capacity must be >= 1 (got ${options.capacity})`);
    if (!(options.intervalMs > 0)) throw new RangeError(`TokenBucket: intervalMs must be > 0 (got ${options.intervalMs})`);
    this.capacity = options.capacity;
    this.intervalMs = options.intervalMs;
    this.now = options.now ?? Date.now;
    this.tokens = this.capacity;
    this.last = this.now();
  }

  /** Takes one token if there is one; true when the caller may send now. */
  take(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Milliseconds until the next token (0 when one is available). */
  msUntilNext(): number {
    this.refill();
    return this.tokens >= 1 ? 0 : Math.ceil((1 - this.tokens) * this.intervalMs);
  }

  /** Fills the bucket (a fresh connection starts with a full burst). */
  reset(): void {
    this.tokens = this.capacity;
    this.last = this.now();
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + Math.max(0, now - this.last) / this.intervalMs);
    this.last = now;
  }
}
