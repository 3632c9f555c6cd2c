/**
 * Catch-up after a reconnect: what was said in a channel while the connection was down is
 * fetched again and handed to the same message path as live lines, once.
 *
 * - Servers with IRCv3 `draft/chathistory` (culture's embedded server, Ergo, ...): after each
 *   rejoin we ask `CHATHISTORY AFTER <channel> timestamp=<last seen - 1 s> <limit>` (a timestamp,
 *   not a msgid: a restarted server may not know the old msgid).
 * - InspIRCd with `chanhistory` (channel mode `+H`): the server replays recent lines in a
 *   `chathistory` batch right after every JOIN; on a rejoin that replay is the catch-up.
 * - Others (ngIRCd): nothing can be fetched; {@link CatchUp.support} says `none`.
 *
 * The rules (DESIGN.md / docs/irc-transport.md "Catch-up"):
 * 1. History that arrives at the FIRST join of a channel (in this transport's life) is never
 *    treated as new: it was said before the agent was there.
 * 2. On a rejoin, a history line counts when its server-time is not older than the last line
 *    seen in that channel minus one second (InspIRCd's replay times are cut to whole seconds)
 *    and it was not emitted before (deduplicated by msgid, or server-time + sender + text).
 * 3. DMs are not fetched: neither the embedded server nor InspIRCd keeps private messages.
 * 4. After a restart of the daemon, the first join of a channel for which the previous daemon
 *    left a mark (channel-marks.ts: the server-time of the last line it saw) is a rejoin from
 *    that mark, not a first join: what was said while the daemon was not running is caught up.
 * Replayed lines carry `replayed: true` and their original server-time.
 */
import type { Logger } from "../logger.js";

/** How a server lets culture catch up after a reconnect. */
export type CatchUpSupport = "chathistory" | "join-replay" | "none";

/** Options of {@link CatchUp}. */
export interface CatchUpOptions {
  /** Sends a control line to the server. */
  send(line: string): void;
  logger: Logger;
  /** Most lines asked for per channel; default 200. */
  limit?: number;
  /**
   * Server-time (ms) of the last line a previous daemon saw, by channel key: the first join of
   * such a channel catches up from there (rule 4).
   */
  restartMarks?: ReadonlyMap<string, number>;
}

/** What catch-up after the daemon's restart did (rule 4), for the status. */
export interface RestartCatchUp {
  /** Channels whose first join caught up from a previous daemon's mark. */
  channels: number;
  /** Lines caught up in them. */
  lines: number;
}

/** Allowance for servers whose history times are cut to whole seconds. */
const TIME_SLACK_MS = 1_000;

/** Per-channel catch-up state, keyed by the channel name folded by the server's casemapping. */
export class CatchUp {
  /** How this server lets us catch up (set once ISUPPORT and CAP are known). */
  support: CatchUpSupport = "none";
  /** Server-time (ms) of the newest line seen per channel, or of our join. */
  private readonly lastSeen = new Map<string, number>();
  /** Channels whose first join's history replay must be ignored. */
  private readonly firstJoin = new Set<string>();
  /**
   * Channels rejoined after a reconnect, with the newest server-time seen before the rejoin:
   * their history from then on counts (live lines after the rejoin do not move this point).
   */
  private readonly catchingUp = new Map<string, number>();
  private readonly limit: number;
  /** Marks of a previous daemon not used yet (each is used once, at the channel's first join). */
  private readonly restartMarks: Map<string, number>;
  /** Channels catching up from a previous daemon's mark. */
  private readonly afterRestart = new Set<string>();
  private readonly restart: RestartCatchUp = { channels: 0, lines: 0 };

  constructor(private readonly opts: CatchUpOptions) {
    this.limit = opts.limit ?? 200;
    this.restartMarks = new Map(opts.restartMarks ?? []);
  }

  /** What catch-up after the daemon's restart did so far. */
  get afterRestartCounts(): RestartCatchUp {
    return { ...this.restart };
  }

  /**
   * Decides the support from what the server offers: the `draft/chathistory` capability (or
   * the CHATHISTORY ISUPPORT token), else a channel mode `H` (InspIRCd's chanhistory), else none.
   */
  detect(hasChathistory: boolean, chanmodes: readonly string[]): CatchUpSupport {
    const modes = chanmodes.join("");
    this.support = hasChathistory ? "chathistory" : modes.includes("H") ? "join-replay" : "none";
    return this.support;
  }

  /** We joined `key` (`name` as the server spells it) at server-time `timeMs`. */
  onJoin(key: string, name: string, timeMs: number): void {
    let since = this.lastSeen.get(key);
    const mark = this.restartMarks.get(key);
    this.restartMarks.delete(key);
    if (since === undefined && mark !== undefined) {
      // Rule 4: the previous daemon saw this channel up to `mark`.
      since = mark;
      this.lastSeen.set(key, mark);
      this.afterRestart.add(key);
      this.restart.channels++;
      this.opts.logger.info("catching up on what was said while the daemon was not running", { channel: name, since: new Date(mark).toISOString() });
    }
    if (since === undefined) {
      // First join: what the server replays now was said before we were here.
      this.firstJoin.add(key);
      this.lastSeen.set(key, timeMs);
      return;
    }
    this.catchingUp.set(key, since);
    if (this.support === "chathistory") {
      const from = new Date(Math.max(0, since - TIME_SLACK_MS)).toISOString();
      this.opts.logger.info("catching up on the channel", { channel: name, since: new Date(since).toISOString() });
      this.opts.send(`CHATHISTORY AFTER ${name} timestamp=${from} ${this.limit}`);
    } else if (this.support === "join-replay") {
      this.opts.logger.info("catching up from the join replay", { channel: name, since: new Date(since).toISOString() });
    } else {
      this.opts.logger.warn("rejoined a channel; this server keeps no history, so lines said while disconnected are lost", { channel: name });
    }
  }

  /** True when a history line for `key` with server-time `timeMs` may be emitted (if not seen before). */
  acceptReplay(key: string, timeMs: number): boolean {
    const since = this.catchingUp.get(key);
    if (this.firstJoin.has(key) || since === undefined) return false;
    return timeMs >= since - TIME_SLACK_MS;
  }

  /** A line in `key` was emitted (live or caught up): it is the newest seen when it is later. */
  noteSeen(key: string, timeMs: number): void {
    const since = this.lastSeen.get(key);
    if (since === undefined || timeMs > since) this.lastSeen.set(key, timeMs);
  }

  /** A replayed line in `key` was accepted and emitted. */
  caughtUp(key: string): void {
    if (this.afterRestart.has(key)) this.restart.lines++;
  }

  /** A history batch for `key` ended: the first join's replay is over. */
  onHistoryEnd(key: string): void {
    this.firstJoin.delete(key);
  }

  /** We left `key` for good (PART/KICK): a later join is a first join again. */
  forget(key: string): void {
    this.lastSeen.delete(key);
    this.firstJoin.delete(key);
    this.catchingUp.delete(key);
    this.afterRestart.delete(key);
  }

  /** The connection is gone: replays in flight no longer belong to a join. */
  onDisconnect(): void {
    this.firstJoin.clear();
    this.catchingUp.clear();
    this.afterRestart.clear();
  }
}
