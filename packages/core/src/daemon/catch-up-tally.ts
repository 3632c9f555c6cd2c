/**
 * What the lines the IRC transport caught up (after a reconnect, or after the daemon's own
 * restart) became: how many turned into prompts, and how many mentions were older than
 * `catch_up.max_age_seconds` and stayed in the buffer only. The rule lives here, once, so the
 * daemon's message path asks one question; the counts feed `irc.catch_up` in the status.
 */
import type { IrcMessageEvent } from "../events.js";
import type { CatchUpSupport, RestartCatchUp } from "../irc/catch-up.js";

/** `irc.catch_up` in the daemon's status. */
export interface CatchUpStatus {
  /** How the server lets the transport catch up: `chathistory`, `join-replay` or `none`. */
  support: CatchUpSupport;
  /** `catch_up.max_age_seconds`: older caught-up mentions are buffered, not prompted. */
  max_age_seconds: number;
  /** Caught-up mentions and DMs that became prompts (reconnects and restart together). */
  prompted: number;
  /** Caught-up mentions older than the maximum age: in the buffer, not prompted. */
  too_old: number;
  /** Catch-up from a previous daemon's marks: null when none were left (a first start). */
  after_restart: RestartCatchUp | null;
}

/** The counts, and the maximum age of a caught-up mention that may become a prompt. */
export class CatchUpTally {
  private promptedCount = 0;
  private tooOldCount = 0;

  /** `maxAgeMs`: `catch_up.max_age_seconds` in ms. */
  constructor(private readonly maxAgeMs: number) {}

  /** True (and counted) when `ev` was caught up and said longer ago than the maximum age. */
  tooOld(ev: IrcMessageEvent, now = Date.now()): boolean {
    if (!ev.replayed || now - ev.time <= this.maxAgeMs) return false;
    this.tooOldCount++;
    return true;
  }

  /** A caught-up line became a prompt. */
  prompted(): void {
    this.promptedCount++;
  }

  /** The status field, with what the transport knows. */
  status(support: CatchUpSupport, afterRestart: RestartCatchUp | null): CatchUpStatus {
    return {
      support,
      max_age_seconds: this.maxAgeMs / 1000,
      prompted: this.promptedCount,
      too_old: this.tooOldCount,
      after_restart: afterRestart,
    };
  }
}
