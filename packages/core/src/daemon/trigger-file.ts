/**
 * The trigger file (agent-kernel's `tick_trigger`): a program on the same machine writes a
 * reason into `<state dir>/tick_trigger` and the daemon turns it into a prompt for its agent,
 * then removes the file. The state folder is the owner's (0700), so whoever can write the file
 * could also talk to the daemon's control socket: no signature is needed.
 *
 * The file is taken by renaming it first (a writer that is still writing keeps its own file
 * descriptor; the next write creates a new file), then read and removed. The daemon polls
 * (every `pollMs`): fs.watch misses events on some filesystems, and a second is fast enough
 * for a wake-up.
 */
import { readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { errorMessage } from "../errors.js";
import type { Logger } from "../logger.js";

/** A file's content longer than this is cut (and the cut is logged). */
const MAX_BYTES = 16_384;

/** What the watcher needs. */
export interface TriggerFileOptions {
  path: string;
  pollMs: number;
  logger: Logger;
  /** Turns the file's content into a prompt; returns why it was refused, or null. */
  fire(content: string): string | null;
}

/** Polls for the trigger file. */
export class TriggerFile {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly o: TriggerFileOptions) {}

  /** Starts polling (and takes a file left from before at once). */
  start(): void {
    if (this.timer) return;
    this.check();
    this.timer = setInterval(() => this.check(), this.o.pollMs);
    this.timer.unref?.();
  }

  /** Stops polling. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Takes the file when it is there. */
  check(): void {
    const { path, logger } = this.o;
    try {
      statSync(path);
    } catch {
      return; // no trigger
    }
    const taking = `${path}.taking`;
    let text: string;
    try {
      renameSync(path, taking);
      text = readFileSync(taking, "utf8");
      rmSync(taking, { force: true });
    } catch (err) {
      logger.warn(`taking the trigger file failed: ${errorMessage(err)}`, { path });
      return;
    }
    if (Buffer.byteLength(text) > MAX_BYTES) {
      logger.warn(`the trigger file held ${Buffer.byteLength(text)} bytes; using the first ${MAX_BYTES}`, { path });
      text = Buffer.from(text).subarray(0, MAX_BYTES).toString("utf8");
    }
    const reason = text.replace(/\r\n?/g, "\n").trim() || "(the trigger file was empty)";
    const refused = this.o.fire(reason);
    if (refused) logger.warn(`the trigger file's prompt was refused: ${refused}`, { path });
    else logger.info("the trigger file queued a prompt", { bytes: Buffer.byteLength(text) });
  }
}

/** A sliding one-minute window of prompts, shared by the HTTP trigger and the file. */
export class TriggerRate {
  private readonly times: number[] = [];

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number,
  ) {}

  /** Counts one prompt when under the limit and returns 0; otherwise the seconds until one more is allowed. */
  take(): number {
    const now = this.now();
    while (this.times.length && this.times[0]! <= now - 60_000) this.times.shift();
    if (this.times.length >= this.perMinute) return Math.max(1, Math.ceil((this.times[0]! + 60_000 - now) / 1000));
    this.times.push(now);
    return 0;
  }
}
