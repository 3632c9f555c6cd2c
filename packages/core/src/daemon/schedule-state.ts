/**
 * What the schedules remember across daemons (`<state dir>/schedules.json`, 0600): per
 * schedule the due time of the last run that was fired or skipped (so a run is never fired
 * twice, and a run missed while no daemon was running is found at the next start) and a
 * pause set with `culture schedule pause` (which outlives the daemon). Written atomically
 * (temp file, fsync, rename) before the run's prompt is queued: a crash between the two loses
 * that run rather than firing it twice.
 */
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { errorMessage } from "../errors.js";
import type { Logger } from "../logger.js";
import { ensurePrivateDir, tightenFile } from "../private-files.js";
import { replaceFileDurably } from "../state-file.js";

/** One schedule's remembered facts. */
export interface ScheduleMemory {
  /** Due time (epoch ms) of the last run fired or skipped; runs at or before it are done. */
  lastSlot: number | null;
  /** When that run was fired (epoch ms), null when it was skipped or none ran yet. */
  lastFiredAt: number | null;
  /** Set by `culture schedule pause|resume`; null: the config's `paused:`. */
  paused: boolean | null;
}

/** The state file of one agent's schedules. */
export class ScheduleState {
  private readonly entries = new Map<string, ScheduleMemory>();
  private failures = 0;

  /** Reads `path` (a missing file is an empty state; an unreadable one is logged and treated as empty). */
  constructor(
    private readonly path: string | null,
    private readonly logger: Logger,
  ) {
    if (!path) return;
    let text: string | null = null;
    try {
      text = readFileSync(path, "utf8");
      tightenFile(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") logger.warn(`reading the schedule state failed: ${errorMessage(err)}`, { path });
    }
    if (text === null) return;
    try {
      const data = JSON.parse(text) as { schedules?: Record<string, Partial<ScheduleMemory>> };
      for (const [name, m] of Object.entries(data.schedules ?? {})) {
        this.entries.set(name, {
          lastSlot: typeof m.lastSlot === "number" ? m.lastSlot : null,
          lastFiredAt: typeof m.lastFiredAt === "number" ? m.lastFiredAt : null,
          paused: typeof m.paused === "boolean" ? m.paused : null,
        });
      }
    } catch (err) {
      logger.warn(`the schedule state file is not valid JSON; starting from a clean state: ${errorMessage(err)}`, { path });
    }
  }

  /** True when the file knew this schedule (a new schedule starts from now, not from the past). */
  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** The facts about `name` (defaults when unknown). */
  get(name: string): ScheduleMemory {
    return this.entries.get(name) ?? { lastSlot: null, lastFiredAt: null, paused: null };
  }

  /** Changes `name`'s facts and writes the file durably before returning. */
  set(name: string, change: Partial<ScheduleMemory>): void {
    this.entries.set(name, { ...this.get(name), ...change });
    this.save();
  }

  /** Writes that failed (a full disk): counted and logged, never fatal. */
  get writeFailures(): number {
    return this.failures;
  }

  private save(): void {
    if (!this.path) return;
    try {
      ensurePrivateDir(dirname(this.path));
      replaceFileDurably(this.path, `${JSON.stringify({ version: 1, schedules: Object.fromEntries(this.entries) }, null, 2)}\n`);
    } catch (err) {
      this.failures++;
      this.logger.warn(`writing the schedule state failed: ${errorMessage(err)}`, { path: this.path });
    }
  }
}
