/**
 * The activity mirror's rate limit: a token bucket (`burst` lines back to back, then one per
 * `interval_seconds`) in front of the mirror channel, so a busy agent cannot flood it or use
 * up the connection's own send budget that its replies need. Nothing is dropped silently:
 *
 * - a tool line that finds no token is counted, and the calls not shown go out later as one
 *   line, `[tool] ... N more tool calls (over the mirror's rate limit)`;
 * - a turn summary waits its turn (in order, behind the count of tool calls before it); past
 *   {@link MIRROR_BACKLOG} waiting summaries, the oldest are counted into `[turn] ... N more turns`.
 *
 * While anything waits, new lines queue behind it, so the channel reads in order.
 */
import { TokenBucket } from "../irc/token-bucket.js";
import { moreToolsLine, moreTurnsLine } from "./mirror-texts.js";

/** Turn summaries that may wait for a token before the oldest are only counted. */
export const MIRROR_BACKLOG = 20;

type Waiting = { kind: "tools"; calls: Set<string> } | { kind: "turns"; n: number } | { kind: "line"; text: string };

/** Options of {@link MirrorOutbox}. */
export interface MirrorOutboxOptions {
  burst: number;
  intervalMs: number;
  /** Sends one line (never throws). */
  send(line: string): void;
  now?: () => number;
}

/** The rate-limited way out to the mirror channel. */
export class MirrorOutbox {
  private readonly bucket: TokenBucket;
  private readonly waiting: Waiting[] = [];
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly o: MirrorOutboxOptions) {
    this.bucket = new TokenBucket({ capacity: o.burst, intervalMs: o.intervalMs, now: o.now });
  }

  /** A tool call's line; `callId` counts the call once however many of its lines are held back. */
  tool(callId: string, line: string): void {
    if (this.sendNow(line)) return;
    const last = this.waiting.at(-1);
    if (last?.kind === "tools") last.calls.add(callId);
    else this.waiting.push({ kind: "tools", calls: new Set([callId]) });
    this.arm();
  }

  /** A turn summary: sent now, or queued in order. */
  turn(line: string): void {
    if (this.sendNow(line)) return;
    this.waiting.push({ kind: "line", text: line });
    // Too many summaries waiting: the oldest become a count (kept at the head, in order).
    while (this.waiting.filter((w) => w.kind === "line").length > MIRROR_BACKLOG) {
      const i = this.waiting.findIndex((w) => w.kind === "line");
      const before = this.waiting[i - 1];
      if (before?.kind === "turns") {
        before.n++;
        this.waiting.splice(i, 1);
      } else this.waiting[i] = { kind: "turns", n: 1 };
    }
    this.arm();
  }

  /** Lines or counts waiting for a token. */
  get backlog(): number {
    return this.waiting.length;
  }

  /** Stops the timer; what waits is not sent. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Sends what waits while there are tokens. */
  flush(): void {
    this.timer = null;
    while (this.waiting.length > 0 && this.bucket.take()) {
      const w = this.waiting.shift()!;
      this.o.send(w.kind === "tools" ? moreToolsLine(w.calls.size) : w.kind === "turns" ? moreTurnsLine(w.n) : w.text);
    }
    this.arm();
  }

  private sendNow(line: string): boolean {
    if (this.stopped) return true; // after stop: nothing more goes out
    if (this.waiting.length > 0 || !this.bucket.take()) return false;
    this.o.send(line);
    return true;
  }

  private arm(): void {
    if (this.timer || this.stopped || this.waiting.length === 0) return;
    this.timer = setTimeout(() => this.flush(), Math.max(1, this.bucket.msUntilNext()));
    this.timer.unref?.();
  }
}
