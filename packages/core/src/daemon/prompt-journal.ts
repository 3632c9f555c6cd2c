/**
 * The durable prompt journal: every prompt a person sent the agent is appended here (one JSON
 * line, file mode 0600) before the daemon queues it, and marked done when its turn ends. When the daemon starts, what was never marked done — because the daemon was killed
 * (kill -9, a crash, a reboot) or stopped with prompts still waiting — is delivered again, in
 * the order it arrived.
 *
 * Lines: `{"op":"add","id":...,"at":ms,"klass":...,"origin":{...},"text":...}`,
 * `{"op":"start","id":...}` (its turn began: after a crash the prompt is delivered again with
 * a note that its first attempt was cut short) and `{"op":"done","id":...}`.
 *
 * Bounded: when the file passes `maxBytes`, it is rewritten with only the prompts not yet
 * done (written to a temp file, fsync'd, renamed over the journal, directory fsync'd).
 * When a record is safe: it is written with one write(2) before `add` returns, so from then on
 * a kill -9 or a crash of the daemon loses nothing (the bytes are the kernel's). It is then
 * fdatasync'd in the background (at most one sync in flight, the next one covering every
 * record written meanwhile, as the usage journal does), so a power cut can lose only the
 * records of the last sync's few milliseconds, and a mention no longer waits for the disk:
 * a sync on the event loop was the mention -> prompt tail (4 ms p50, 19+ ms p99 on a real
 * disk; issue 30). `close()` syncs what is left before closing.
 *
 * Corruption-tolerant: a line that is not a journal record (a torn last line after a power
 * cut) is skipped with a warning; the rest is read.
 */
import { closeSync, fsyncSync, openSync, readFileSync, writeSync, constants as fsConstants } from "node:fs";
import { BackgroundSync } from "../background-sync.js";
import { tightenFile } from "../private-files.js";
import { parseJsonObject, replaceFileDurably } from "../state-file.js";
import type { PromptOrigin } from "../events.js";
import type { Logger } from "../logger.js";
import { errorMessage } from "../errors.js";
import type { PromptClass } from "./prompt-queue.js";

/** A prompt in the journal. */
export interface JournalEntry {
  id: string;
  /** When it arrived, epoch ms. */
  at: number;
  klass: PromptClass;
  origin: PromptOrigin;
  text: string;
  /** Its turn had begun when the journal was last written (the daemon died mid-turn). */
  started: boolean;
}

/** Options of {@link PromptJournal.open}. */
export interface PromptJournalOptions {
  path: string;
  logger: Logger;
  /** Compact when the file grows past this many bytes. Default 1 MiB. */
  maxBytes?: number;
  /** Sync records to the disk (default true; in the background, see the module comment). */
  fsync?: boolean;
}

/** The journal file of one agent. */
export class PromptJournal {
  private fd: number;
  private bytes: number;
  private readonly live = new Map<string, JournalEntry>();
  private readonly maxBytes: number;
  private readonly sync: boolean;
  private failures = 0;
  private readonly syncs = new BackgroundSync({
    fd: () => this.fd,
    failed: (err) => {
      this.failures++;
      this.logger.warn(`syncing the prompt journal failed: ${errorMessage(err)}`, { path: this.path });
    },
  });

  private constructor(
    private readonly path: string,
    private readonly logger: Logger,
    opts: PromptJournalOptions,
    fd: number,
    bytes: number,
    pending: JournalEntry[],
  ) {
    this.fd = fd;
    this.bytes = bytes;
    this.maxBytes = opts.maxBytes ?? 1024 * 1024;
    this.sync = opts.fsync ?? true;
    for (const e of pending) this.live.set(e.id, e);
  }

  /**
   * Opens (creating, 0600) the journal and reads what was not done, oldest first. The file is
   * compacted right away, so what was read is the whole journal from then on.
   */
  static open(opts: PromptJournalOptions): { journal: PromptJournal; pending: JournalEntry[] } {
    const { path, logger } = opts;
    let text = "";
    try {
      text = readFileSync(path, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    const pending = parseJournal(text, logger);
    const fd = openSync(path, fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT, 0o600);
    tightenFile(path); // a journal an older culture wrote 0644 holds every prompt
    const journal = new PromptJournal(path, logger, opts, fd, Buffer.byteLength(text), pending);
    if (text.length > 0) journal.compact();
    return { journal, pending };
  }

  /** Prompts not done yet. */
  get pendingCount(): number {
    return this.live.size;
  }

  /** Records that failed to be written (a full disk): they are counted, never fatal. */
  get writeFailures(): number {
    return this.failures;
  }

  /** Appends a prompt (written before it returns: a kill -9 loses nothing; synced in the background). */
  add(entry: Omit<JournalEntry, "started">): void {
    const e: JournalEntry = { ...entry, started: false };
    this.live.set(e.id, e);
    this.write({ op: "add", id: e.id, at: e.at, klass: e.klass, origin: e.origin, text: e.text }, true);
  }

  /** Its turn began. Not fsync'd: losing it only loses the "cut short" note. */
  start(id: string): void {
    const e = this.live.get(id);
    if (!e) return;
    e.started = true;
    this.write({ op: "start", id }, false);
  }

  /** Its turn ended (or it was dropped): it is never delivered again. */
  done(id: string): void {
    if (!this.live.delete(id)) return;
    this.write({ op: "done", id }, true);
    if (this.bytes > this.maxBytes) this.compact();
  }

  /** Syncs what was written and closes the file. */
  close(): void {
    if (this.fd < 0) return;
    try {
      if (this.sync) fsyncSync(this.fd);
    } catch {
      /* best effort: the records were written */
    }
    try {
      closeSync(this.fd);
    } catch {
      /* already closed */
    }
    this.fd = -1;
    this.syncs.fileChanged();
  }

  /** Rewrites the file with only the live prompts (atomically: temp file, fsync, rename). */
  compact(): void {
    if (this.fd < 0) return;
    try {
      const lines = [...this.live.values()].flatMap((e) => {
        const add = JSON.stringify({ op: "add", id: e.id, at: e.at, klass: e.klass, origin: e.origin, text: e.text }) + "\n";
        return e.started ? [add, JSON.stringify({ op: "start", id: e.id }) + "\n"] : [add];
      });
      const body = lines.join("");
      replaceFileDurably(this.path, body);
      // A background sync of the old file may still be running on this descriptor: it ends
      // harmlessly (EBADF at worst), and the new file was synced by replaceFileDurably.
      closeSync(this.fd);
      this.syncs.fileChanged();
      this.fd = openSync(this.path, fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT, 0o600);
      this.bytes = Buffer.byteLength(body);
    } catch (err) {
      this.failures++;
      this.logger.warn(`compacting the prompt journal failed: ${errorMessage(err)}`, { path: this.path });
    }
  }

  private write(record: Record<string, unknown>, durable: boolean): void {
    if (this.fd < 0) return;
    const line = JSON.stringify(record) + "\n";
    try {
      writeSync(this.fd, line);
      this.bytes += Buffer.byteLength(line);
      if (durable && this.sync) this.syncs.request();
    } catch (err) {
      this.failures++;
      this.logger.warn(`writing the prompt journal failed: ${errorMessage(err)}`, { path: this.path, op: record.op });
    }
  }
}

/** The prompts of a journal's text that were added and not done, oldest first. */
export function parseJournal(text: string, logger: Logger): JournalEntry[] {
  const live = new Map<string, JournalEntry>();
  const lines = text.split("\n");
  const torn = lines[lines.length - 1] !== "";
  lines.forEach((line, i) => {
    if (line === "") return;
    const last = i === lines.length - 1;
    const rec = parseJsonObject(line);
    const id = typeof rec?.id === "string" ? rec.id : null;
    if (!rec || !id || (last && torn)) {
      logger.warn(last && torn ? "prompt journal: skipped a torn last line" : `prompt journal: skipped line ${i + 1}, which is not a journal record`, {
        line: line.slice(0, 120),
      });
      return;
    }
    if (rec.op === "add" && typeof rec.text === "string" && isOrigin(rec.origin)) {
      const klass = rec.klass === "system" || rec.klass === "priority" || rec.klass === "chatter" ? rec.klass : "chatter";
      live.set(id, { id, at: typeof rec.at === "number" ? rec.at : 0, klass, origin: rec.origin, text: rec.text, started: false });
    } else if (rec.op === "start") {
      const e = live.get(id);
      if (e) e.started = true;
    } else if (rec.op === "done") {
      live.delete(id);
    } else {
      logger.warn(`prompt journal: skipped line ${i + 1} (unknown record)`, { line: line.slice(0, 120) });
    }
  });
  return [...live.values()];
}

function isOrigin(v: unknown): v is PromptOrigin {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  return typeof o.id === "string" && typeof o.kind === "string" && typeof o.text === "string";
}
