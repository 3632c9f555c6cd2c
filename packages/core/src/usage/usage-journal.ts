/**
 * The durable usage journal of one agent: one JSON line per finished turn
 * (`<state dir>/usage.jsonl`, mode 0600), what budgets rebuild their running totals from and
 * what `culture usage` reads.
 *
 * Durability: each record is one `write(2)` on an O_APPEND descriptor, done before the turn's
 * `turnUsage` hook fires. Once that call has returned the line is in the kernel, so a kill -9
 * of the daemon loses nothing. The data is then fdatasync'd in the background (at most one
 * sync in flight, the next coalescing every line written meanwhile), so a power cut loses at
 * most the last moment's lines and the turn never waits for the disk. `fsync: "always"` syncs
 * before `append` returns (the benchmark compares both).
 *
 * Torn lines: a daemon killed in the middle of a `write(2)` (or a power cut) can leave a
 * partial last line. Opening the journal reports it (a warning naming its length), skips it
 * and cuts the file back to the last whole line, so the next record starts on a line of its
 * own; a line in the middle that is not a record is reported and skipped, the rest is read.
 *
 * Compaction: turns older than `compactAfterDays` whole UTC days are summed into per-day
 * rollups (`{"type":"day"}`, one per day, agent, channel, nick, account and model) — totals
 * stay equal, the file stops growing with the fleet's age. It runs when the journal is opened
 * and when the oldest single turn falls out of the window (about once a day), written to a temp
 * file, fsync'd and renamed over the journal. The default window (35 days) keeps every turn of
 * the current month (in any time zone) one by one, so monthly budgets stay exact.
 */
import { closeSync, fsyncSync, ftruncateSync, openSync, readFileSync, writeSync, constants as fsConstants } from "node:fs";
import { BackgroundSync } from "../background-sync.js";
import { tightenFile } from "../private-files.js";
import { parseJsonObject, replaceFileDurably } from "../state-file.js";
import type { Logger } from "../logger.js";
import { errorMessage } from "../errors.js";
import { addTokens, emptyTokens, type UsageEntry, type UsageRecord, type UsageRollup, type UsageTokens } from "./usage-record.js";

const DAY_MS = 86_400_000;

/** When a record is flushed to the disk (see the module comment). */
export type UsageFsync = "background" | "always" | "never";

/** Options of {@link UsageJournal.open}. */
export interface UsageJournalOptions {
  path: string;
  logger: Logger;
  /** Turns older than this many whole UTC days become per-day rollups. Default 35. */
  compactAfterDays?: number;
  /** Default `background`. */
  fsync?: UsageFsync;
  /** The clock (tests). */
  now?: () => number;
}

/** What reading a journal found. */
export interface UsageJournalContents {
  /** Its records and rollups, in file order (rollups first after a compaction). */
  entries: UsageEntry[];
  /** Lines that were not records, with why (a torn last line is `torn`). */
  skipped: Array<{ line: number; reason: "torn" | "not a usage record"; text: string }>;
  /** Bytes of the whole lines (where a torn tail starts). */
  wholeBytes: number;
}

/** The usage journal file of one agent. */
export class UsageJournal {
  private fd: number;
  private oldestTurnAt: number | null;
  /** The cutoff of the last compaction: one per cutoff (a day), whatever the records' clocks say. */
  private compactedFor: number | null = null;
  private failures = 0;
  private readonly syncs = new BackgroundSync({
    fd: () => this.fd,
    failed: (err) => {
      this.failures++;
      this.logger.warn(`syncing the usage journal failed: ${errorMessage(err)}`, { path: this.path });
    },
  });
  private readonly compactAfterDays: number;
  private readonly fsyncMode: UsageFsync;
  private readonly now: () => number;

  private constructor(
    readonly path: string,
    private readonly logger: Logger,
    opts: UsageJournalOptions,
    fd: number,
    oldestTurnAt: number | null,
  ) {
    this.fd = fd;
    this.oldestTurnAt = oldestTurnAt;
    this.compactAfterDays = opts.compactAfterDays ?? 35;
    this.fsyncMode = opts.fsync ?? "background";
    this.now = opts.now ?? Date.now;
  }

  /**
   * Opens (creating, 0600) the journal: reads it, reports and cuts off a torn last line,
   * compacts what is old enough, and returns what it holds (for totals at start).
   */
  static open(opts: UsageJournalOptions): { journal: UsageJournal; contents: UsageJournalContents } {
    const { path, logger } = opts;
    const contents = readUsageJournal(path, logger);
    const fd = openSync(path, fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT, 0o600);
    tightenFile(path);
    if (contents.skipped.some((s) => s.reason === "torn")) {
      try {
        ftruncateSync(fd, contents.wholeBytes);
        fsyncSync(fd);
      } catch (err) {
        logger.warn(`usage journal: could not cut off the torn last line: ${errorMessage(err)}`, { path });
      }
    }
    const journal = new UsageJournal(path, logger, opts, fd, oldestTurn(contents.entries));
    if (journal.due()) contents.entries = journal.compact(contents.entries);
    return { journal, contents };
  }

  /** Records that failed to be written (a full disk): counted and logged, never fatal. */
  get writeFailures(): number {
    return this.failures;
  }

  /** Appends one turn's record (one write; see the module comment for when it is synced). */
  append(record: UsageRecord): void {
    const line = JSON.stringify(record) + "\n";
    const fd = this.fd >= 0 ? this.fd : this.reopenForOne();
    if (fd < 0) return;
    try {
      writeSync(fd, line);
      if (this.fsyncMode === "always") fsyncSync(fd);
    } catch (err) {
      this.failures++;
      this.logger.warn(`writing the usage journal failed: ${errorMessage(err)}`, { path: this.path, turn: record.turn });
    } finally {
      if (fd !== this.fd) closeQuietly(fd);
    }
    if (fd !== this.fd) return;
    this.oldestTurnAt ??= record.at;
    if (this.fsyncMode === "background") this.syncs.request();
    if (this.due()) this.compact();
  }

  /**
   * Rolls turns older than the window into per-day rollups (atomically: temp file, fsync,
   * rename). Returns the entries the file holds afterwards. `entries` saves reading the file
   * again when the caller has just read it.
   */
  compact(entries?: UsageEntry[]): UsageEntry[] {
    const before = entries ?? readUsageJournal(this.path, this.logger).entries;
    const cutoff = this.cutoff();
    this.compactedFor = cutoff;
    const after = rollUp(before, cutoff);
    try {
      replaceFileDurably(this.path, after.map((e) => JSON.stringify(e) + "\n").join(""));
      if (this.fd >= 0) {
        closeQuietly(this.fd);
        this.syncs.fileChanged();
        this.fd = openSync(this.path, fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT, 0o600);
      }
      this.oldestTurnAt = oldestTurn(after);
      this.logger.info("usage journal compacted", { path: this.path, before: before.length, after: after.length });
      return after;
    } catch (err) {
      this.failures++;
      // Not again on every append: the next try is with the next day's cutoff.
      this.logger.warn(`compacting the usage journal failed: ${errorMessage(err)}`, { path: this.path });
      return before;
    }
  }

  /** Syncs what was written and closes the file. Appends after this open, write and close the file each time. */
  close(): void {
    if (this.fd < 0) return;
    try {
      if (this.fsyncMode !== "never") fsyncSync(this.fd);
    } catch {
      /* best effort */
    }
    closeQuietly(this.fd);
    this.fd = -1;
    this.syncs.fileChanged();
  }

  /** The start of the oldest UTC day still kept turn by turn. */
  private cutoff(): number {
    const today = Math.floor(this.now() / DAY_MS) * DAY_MS;
    return today - this.compactAfterDays * DAY_MS;
  }

  /** A turn older than the window is kept one by one, and this cutoff has not been compacted for yet. */
  private due(): boolean {
    const cutoff = this.cutoff();
    return this.oldestTurnAt !== null && this.oldestTurnAt < cutoff && this.compactedFor !== cutoff;
  }

  private reopenForOne(): number {
    try {
      return openSync(this.path, fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT, 0o600);
    } catch (err) {
      this.failures++;
      this.logger.warn(`opening the usage journal failed: ${errorMessage(err)}`, { path: this.path });
      return -1;
    }
  }
}

/**
 * Reads a usage journal (a missing file is an empty one). Never throws for bad lines: they are
 * reported in `skipped` (and with a warning when a logger is given).
 */
export function readUsageJournal(path: string, logger?: Logger): UsageJournalContents {
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  return parseUsageJournal(text, logger);
}

/** Parses a usage journal's text (see {@link readUsageJournal}). */
export function parseUsageJournal(text: string, logger?: Logger): UsageJournalContents {
  const entries: UsageEntry[] = [];
  const skipped: UsageJournalContents["skipped"] = [];
  const end = text.lastIndexOf("\n") + 1;
  const wholeBytes = Buffer.byteLength(text.slice(0, end));
  const lines = text.slice(0, end).split("\n");
  lines.pop(); // the empty string after the last newline
  lines.forEach((line, i) => {
    if (line === "") return;
    const entry = toEntry(parseJsonObject(line));
    if (entry) entries.push(entry);
    else {
      skipped.push({ line: i + 1, reason: "not a usage record", text: line.slice(0, 120) });
      logger?.warn(`usage journal: skipped line ${i + 1}, which is not a usage record`, { line: line.slice(0, 120) });
    }
  });
  if (end < text.length) {
    const tail = text.slice(end);
    skipped.push({ line: lines.length + 1, reason: "torn", text: tail.slice(0, 120) });
    logger?.warn(`usage journal: skipped a torn last line (${Buffer.byteLength(tail)} bytes; the daemon was killed while writing it)`, { line: tail.slice(0, 120) });
  }
  return { entries, skipped, wholeBytes };
}

/** Turns before `cutoff` summed into per-day rollups (merged with rollups already there); later turns kept as they are. */
export function rollUp(entries: readonly UsageEntry[], cutoff: number): UsageEntry[] {
  const days = new Map<string, UsageRollup>();
  const kept: UsageEntry[] = [];
  for (const e of entries) {
    if (e.type === "turn" && e.at >= cutoff) {
      kept.push(e);
      continue;
    }
    const day = e.type === "day" ? e.day : new Date(e.at).toISOString().slice(0, 10);
    const key = JSON.stringify([day, e.agent, e.channel, e.nick, e.account, e.model]);
    let r = days.get(key);
    if (!r) {
      r = { v: 1, type: "day", day, at: Date.parse(`${day}T00:00:00Z`), agent: e.agent, channel: e.channel, nick: e.nick, account: e.account, model: e.model, turns: 0, tokens: emptyTokens(), costUsd: 0, costUnknownTurns: 0 };
      days.set(key, r);
    }
    addTokens(r.tokens, e.tokens);
    if (e.type === "day") {
      r.turns += e.turns;
      r.costUsd += e.costUsd;
      r.costUnknownTurns += e.costUnknownTurns;
    } else {
      r.turns += 1;
      if (e.costUsd === null) r.costUnknownTurns += 1;
      else r.costUsd += e.costUsd;
    }
  }
  const rollups = [...days.values()].sort((a, b) => a.at - b.at);
  return [...rollups, ...kept];
}

function oldestTurn(entries: readonly UsageEntry[]): number | null {
  let oldest: number | null = null;
  for (const e of entries) if (e.type === "turn" && (oldest === null || e.at < oldest)) oldest = e.at;
  return oldest;
}

function toEntry(rec: Record<string, unknown> | null): UsageEntry | null {
  if (!rec || rec.v !== 1 || typeof rec.agent !== "string" || typeof rec.at !== "number" || !isTokens(rec.tokens)) return null;
  if (rec.type === "turn" && typeof rec.turn === "string") return rec as unknown as UsageRecord;
  if (rec.type === "day" && typeof rec.day === "string" && typeof rec.turns === "number") return rec as unknown as UsageRollup;
  return null;
}

function isTokens(v: unknown): v is UsageTokens {
  if (typeof v !== "object" || v === null) return false;
  const t = v as Record<string, unknown>;
  return ["input", "output", "cacheRead", "cacheWrite", "reasoning"].every((k) => typeof t[k] === "number");
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    /* already closed */
  }
}
