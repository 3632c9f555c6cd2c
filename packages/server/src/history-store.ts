/**
 * Channel history for `draft/chathistory`: a bounded ring per channel, in memory, persisted
 * write-behind to one JSON-lines file per channel under `<stateDir>/history/`. A flush writes
 * the whole ring to a temporary file and renames it over the old one, so a crash leaves either
 * the old or the new file, never half of one. Files are loaded on start, so a restarted
 * server still answers CHATHISTORY for what was said before.
 */
import { open, readdir, readFile, rename, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ircLower } from "./casemapping.js";
import { ensurePrivateDir, tightenFile } from "./private-files.js";
import type { ServerLogger } from "./server-options.js";

/** One stored message. */
export interface HistoryEntry {
  msgid: string;
  /** Epoch milliseconds, never decreasing within a channel. */
  time: number;
  command: "PRIVMSG" | "NOTICE";
  /** `nick!user@host` of the sender. */
  source: string;
  /** The sender's account, when logged in. */
  account: string | null;
  /** The channel as it was named. */
  target: string;
  text: string;
  /** Client-only tags (`+name`) the sender attached, or null. */
  clientTags: Record<string, string> | null;
}

/** A CHATHISTORY message reference. */
export type HistoryRef = { kind: "msgid"; msgid: string } | { kind: "timestamp"; time: number };

/** Options of {@link HistoryStore}. */
export interface HistoryStoreOptions {
  /** Entries kept per channel; 0 stores nothing. */
  size: number;
  /** The state dir (files go in `<dir>/history`), or null for memory only. */
  dir: string | null;
  /** Write-behind delay, ms. */
  flushDelayMs: number;
  logger: ServerLogger;
}

/** Per-channel message rings with optional persistence. */
export class HistoryStore {
  private readonly rings = new Map<string, Ring>();
  private readonly dirty = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly historyDir: string | null;

  constructor(private readonly opts: HistoryStoreOptions) {
    this.historyDir = opts.dir === null ? null : join(opts.dir, "history");
  }

  /** Creates the state dir and loads every channel file in it. */
  async load(): Promise<void> {
    if (this.historyDir === null || this.opts.size === 0) return;
    // The state dir and history hold every channel line: 0700, files 0600 (older ones tightened).
    ensurePrivateDir(dirname(this.historyDir));
    ensurePrivateDir(this.historyDir);
    for (const file of await readdir(this.historyDir)) {
      const path = join(this.historyDir, file);
      tightenFile(path);
      if (file.endsWith(".tmp")) {
        // Left by a crash mid-flush; the real file is intact.
        await unlink(path).catch(() => {});
        continue;
      }
      if (!file.endsWith(".jsonl")) continue;
      const ring = new Ring(this.opts.size);
      let bad = 0;
      for (const line of (await readFile(path, "utf8")).split("\n")) {
        if (line.trim().length === 0) continue;
        const entry = parseEntry(line);
        if (entry) ring.push(entry);
        else bad++;
      }
      if (bad > 0) this.opts.logger.warn("skipped unreadable history lines", { file: path, lines: bad });
      const last = ring.at(ring.length - 1);
      if (last) this.rings.set(ircLower(last.target), ring);
    }
  }

  /** Stores a channel message (its `time` is raised if the clock went backwards) and schedules a flush. */
  append(entry: HistoryEntry): HistoryEntry {
    if (this.opts.size === 0) return entry;
    const key = ircLower(entry.target);
    let ring = this.rings.get(key);
    if (!ring) {
      ring = new Ring(this.opts.size);
      this.rings.set(key, ring);
    }
    const last = ring.at(ring.length - 1);
    if (last && entry.time < last.time) entry.time = last.time;
    ring.push(entry);
    if (this.historyDir !== null && !this.closed) {
      this.dirty.add(key);
      if (!this.timer) {
        this.timer = setTimeout(() => {
          this.timer = null;
          void this.flush();
        }, this.opts.flushDelayMs);
        this.timer.unref();
      }
    }
    return entry;
  }

  /** The most recent `limit` messages, only those after `after` when given; oldest first. */
  latest(target: string, after: HistoryRef | null, limit: number): HistoryEntry[] {
    const ring = this.rings.get(ircLower(target));
    if (!ring) return [];
    const lo = after ? ring.indexAfter(after) : 0;
    if (lo < 0) return [];
    return ring.slice(Math.max(lo, ring.length - limit), ring.length);
  }

  /** The `limit` messages just before `ref`, oldest first. */
  before(target: string, ref: HistoryRef, limit: number): HistoryEntry[] {
    const ring = this.rings.get(ircLower(target));
    if (!ring) return [];
    const hi = ring.indexBefore(ref);
    if (hi < 0) return [];
    return ring.slice(Math.max(0, hi - limit), hi);
  }

  /** The `limit` messages just after `ref`, oldest first. */
  after(target: string, ref: HistoryRef, limit: number): HistoryEntry[] {
    const ring = this.rings.get(ircLower(target));
    if (!ring) return [];
    const lo = ring.indexAfter(ref);
    if (lo < 0) return [];
    return ring.slice(lo, Math.min(ring.length, lo + limit));
  }

  /** Up to `limit` messages around `ref` (half before it, the rest from it on), oldest first. */
  around(target: string, ref: HistoryRef, limit: number): HistoryEntry[] {
    const ring = this.rings.get(ircLower(target));
    if (!ring) return [];
    const center = ring.indexBefore(ref);
    if (center < 0) return [];
    const lo = Math.max(0, center - Math.floor(limit / 2));
    return ring.slice(lo, Math.min(ring.length, lo + limit));
  }

  /** Up to `limit` messages strictly between two references, nearest the first one; oldest first. */
  between(target: string, from: HistoryRef, to: HistoryRef, limit: number): HistoryEntry[] {
    const ring = this.rings.get(ircLower(target));
    if (!ring) return [];
    const a = ring.indexAfter(from);
    const b = ring.indexBefore(to);
    if (a >= 0 && b >= 0 && a <= b) return ring.slice(a, Math.min(b, a + limit));
    // Reversed references: `from` is the later one; take the messages nearest it.
    const hi = ring.indexBefore(from);
    const lo = ring.indexAfter(to);
    if (hi < 0 || lo < 0 || lo > hi) return [];
    return ring.slice(Math.max(lo, hi - limit), hi);
  }

  /** Channels whose latest message is between two times (ms, exclusive), by that time, oldest first. */
  targets(from: number, to: number, limit: number): { target: string; time: number }[] {
    const lo = Math.min(from, to);
    const hi = Math.max(from, to);
    const out: { target: string; time: number }[] = [];
    for (const ring of this.rings.values()) {
      const last = ring.at(ring.length - 1);
      if (last && last.time > lo && last.time < hi) out.push({ target: last.target, time: last.time });
    }
    out.sort((x, y) => x.time - y.time);
    return out.slice(0, limit);
  }

  /** Writes every changed channel now; resolves when the files are renamed into place. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.flushing = this.flushing.then(() => this.writeDirty());
    return this.flushing;
  }

  /** Final flush; later appends stay in memory only. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
  }

  private async writeDirty(): Promise<void> {
    if (this.historyDir === null || this.dirty.size === 0) return;
    const keys = [...this.dirty];
    this.dirty.clear();
    ensurePrivateDir(this.historyDir);
    for (const key of keys) {
      const ring = this.rings.get(key);
      if (!ring) continue;
      const file = join(this.historyDir, `${encodeURIComponent(key)}.jsonl`);
      const tmp = `${file}.${process.pid}.tmp`;
      let body = "";
      for (let i = 0; i < ring.length; i++) body += JSON.stringify(ring.at(i)) + "\n";
      try {
        const handle = await open(tmp, "w", 0o600);
        try {
          await handle.writeFile(body, "utf8");
          await handle.datasync();
        } finally {
          await handle.close();
        }
        await rename(tmp, file);
      } catch (err) {
        // Keep serving from memory; try again with the next change.
        this.dirty.add(key);
        this.opts.logger.error("could not write channel history", { file, error: err instanceof Error ? err.message : String(err) });
      }
    }
  }
}

/** Parses a CHATHISTORY reference (`msgid=...`, `timestamp=...`); `*` and garbage give null. */
export function parseHistoryRef(text: string): HistoryRef | null {
  if (text.startsWith("msgid=") && text.length > 6) return { kind: "msgid", msgid: text.slice(6) };
  if (text.startsWith("timestamp=")) {
    const time = Date.parse(text.slice(10));
    return Number.isFinite(time) ? { kind: "timestamp", time } : null;
  }
  return null;
}

/** A fixed-capacity ring buffer, oldest entry at index 0. */
class Ring {
  private readonly items: (HistoryEntry | undefined)[];
  private start = 0;
  length = 0;

  constructor(private readonly capacity: number) {
    this.items = new Array<HistoryEntry | undefined>(capacity);
  }

  push(entry: HistoryEntry): void {
    if (this.length < this.capacity) {
      this.items[(this.start + this.length) % this.capacity] = entry;
      this.length++;
    } else {
      this.items[this.start] = entry;
      this.start = (this.start + 1) % this.capacity;
    }
  }

  at(i: number): HistoryEntry | undefined {
    if (i < 0 || i >= this.length) return undefined;
    return this.items[(this.start + i) % this.capacity];
  }

  slice(lo: number, hi: number): HistoryEntry[] {
    const out: HistoryEntry[] = [];
    for (let i = Math.max(0, lo); i < Math.min(hi, this.length); i++) out.push(this.at(i)!);
    return out;
  }

  /** Index of the first entry not before `ref` (the msgid itself, or time >= ts); -1 for an unknown msgid. */
  indexBefore(ref: HistoryRef): number {
    if (ref.kind === "msgid") return this.find(ref.msgid);
    return this.firstIndex((e) => e.time >= ref.time);
  }

  /** Index of the first entry after `ref` (past the msgid, or time > ts); -1 for an unknown msgid. */
  indexAfter(ref: HistoryRef): number {
    if (ref.kind === "msgid") {
      const i = this.find(ref.msgid);
      return i < 0 ? -1 : i + 1;
    }
    return this.firstIndex((e) => e.time > ref.time);
  }

  private find(msgid: string): number {
    for (let i = this.length - 1; i >= 0; i--) if (this.at(i)!.msgid === msgid) return i;
    return -1;
  }

  /** Binary search over the (non-decreasing) times. */
  private firstIndex(pred: (e: HistoryEntry) => boolean): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (pred(this.at(mid)!)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

function parseEntry(line: string): HistoryEntry | null {
  try {
    const v = JSON.parse(line) as Partial<HistoryEntry>;
    if (
      typeof v.msgid !== "string" || typeof v.time !== "number" || (v.command !== "PRIVMSG" && v.command !== "NOTICE") ||
      typeof v.source !== "string" || typeof v.target !== "string" || typeof v.text !== "string"
    ) {
      return null;
    }
    return {
      msgid: v.msgid,
      time: v.time,
      command: v.command,
      source: v.source,
      account: typeof v.account === "string" ? v.account : null,
      target: v.target,
      text: v.text,
      clientTags: v.clientTags && typeof v.clientTags === "object" ? v.clientTags : null,
    };
  } catch {
    return null;
  }
}
