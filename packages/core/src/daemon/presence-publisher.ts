/**
 * Publishes an agent's presence on IRC (docs/presence.md): the AWAY message (which the server
 * relays to clients with `away-notify` and shows in WHOIS and WHO everywhere on the network)
 * and the presence line, a NOTICE in the presence channel.
 *
 * Not a flood: a change is published at once when the last update is older than
 * `minIntervalMs`, else once when the interval is over, carrying the latest state (changes
 * in between are coalesced). With `quietStart`, the first update too waits out the interval
 * from the publisher's creation: a daemon's start (`starting`, then `idle` a moment later) is
 * announced only when it lasts. The line is posted again every `heartbeatMs` without a change
 * (so a watcher can tell a live agent from a wedged one), and when a watcher asks with
 * `culture-presence?` in the channel (at most once per interval too).
 */
import type { Logger } from "../logger.js";
import { errorMessage } from "../errors.js";
import { awayText, presenceKey, presenceLine, type Presence } from "./presence-state.js";

/** The query a watcher sends in the presence channel; every agent answers with its line. */
export const PRESENCE_QUERY = "culture-presence?";

/** Where presence goes. */
export interface PresenceSink {
  setAway(text: string | null): void;
  /** Posts the line in the presence channel (may throw when not joined). */
  post(line: string): void;
  /** The link is up (nothing is sent while it is down; a reconnect publishes again). */
  up(): boolean;
}

/** What the publisher needs. */
export interface PresencePublisherOptions {
  read(): Presence;
  sink: PresenceSink;
  minIntervalMs: number;
  heartbeatMs: number;
  /** Null: no presence channel (AWAY only). */
  channel: string | null;
  logger: Logger;
  clock?: { now(): number };
  /**
   * The first update waits `minIntervalMs` from now, as if one had just gone out (default: it
   * goes at once). For a daemon's start: a fresh IRC connection already shows the agent as not
   * away, so a start that is over by then sends no AWAY at all, and one that is not says
   * `starting` from then on. In a fleet of 50 starting at once, each daemon's AWAY pair went to
   * every other daemon in its channels (issue 30).
   */
  quietStart?: boolean;
}

/** Publishes presence, rate-limited. */
export class PresencePublisher {
  private lastKey: string | null = null;
  private lastAt = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private forceLine = false;
  private stopped = false;
  private sent = 0;
  private readonly clock: { now(): number };

  constructor(private readonly o: PresencePublisherOptions) {
    this.clock = o.clock ?? Date;
    if (o.quietStart) this.lastAt = this.clock.now();
  }

  /** Updates published so far (status, tests, the bench). */
  get updates(): number {
    return this.sent;
  }

  /** Starts the heartbeat. */
  start(): void {
    this.heartbeat = setInterval(() => this.poke(true), this.o.heartbeatMs);
    this.heartbeat.unref?.();
  }

  /**
   * Something may have changed: publish when the presence differs from what was published
   * (or `force`: the line again even if nothing changed — heartbeat, a watcher's query, a
   * reconnect), within the rate limit.
   */
  poke(force = false): void {
    if (this.stopped) return;
    if (force) this.forceLine = true;
    if (!this.forceLine && presenceKey(this.o.read()) === this.lastKey) return;
    if (this.timer) return; // an update is already due; it will carry the latest state
    const wait = this.lastAt + this.o.minIntervalMs - this.clock.now();
    if (wait <= 0) return this.publish();
    this.timer = setTimeout(() => {
      this.timer = null;
      this.publish();
    }, wait);
    this.timer.unref?.();
  }

  /** Publishes now, whatever the rate limit (the daemon is stopping: the last word). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.forceLine = true;
    this.publish();
  }

  /** Stops the timers. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.timer = this.heartbeat = null;
  }

  private publish(): void {
    if (!this.o.sink.up()) return; // a reconnect pokes with force
    const p = this.o.read();
    const key = presenceKey(p);
    const changed = key !== this.lastKey;
    if (!changed && !this.forceLine) return;
    this.lastKey = key;
    this.lastAt = this.clock.now();
    this.forceLine = false;
    this.sent++;
    try {
      this.o.sink.setAway(awayText(p));
      if (this.o.channel) this.o.sink.post(presenceLine(p));
    } catch (err) {
      this.o.logger.debug(`presence not published: ${errorMessage(err)}`);
    }
  }
}
