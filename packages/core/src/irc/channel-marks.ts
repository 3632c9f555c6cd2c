/**
 * What the daemon last saw in each channel, kept across its own restarts, so the first join
 * after a start can catch up on what was said while it was not running (catch-up.ts).
 *
 * The file (`<state dir>/channel-marks.jsonl`, mode 0600, next to the prompt journal) is an
 * append-only log: one JSON line per channel line the transport emitted,
 * `{"c":"#chan","t":<server-time ms>,"k":"<dedupe key>"}`, and `{"c":"#chan","forget":true}`
 * when the agent leaves a channel for good. Appending is one write(2) per line and no fsync:
 * a kill -9 or a crash of the daemon loses nothing (the kernel has the bytes), only a power cut
 * or a kernel crash can lose the last lines the kernel had not yet written back (about 30 s on
 * Linux by default); those lines then come back as catch-up and are handled a second time.
 * A clean stop rewrites the file and fsyncs it.
 *
 * Bounded: per channel only the newest time and the keys of the lines within two seconds of it
 * matter (the catch-up asks from one second before the newest line; the keys tell the lines
 * already handled in that second apart from new ones). The file is rewritten with just those
 * when it is opened and when it grows past `maxBytes`.
 */
import { closeSync, openSync, readFileSync, writeSync, constants as fsConstants } from "node:fs";
import { parseJsonObject, replaceFileDurably } from "../state-file.js";
import type { Logger } from "../logger.js";
import { errorMessage } from "../errors.js";

/** What a previous daemon last saw in one channel. */
export interface ChannelMark {
  /** Server-time (epoch ms) of the newest line seen. */
  time: number;
  /** Dedupe keys (see seen-messages.ts) of the lines seen within {@link KEEP_KEYS_MS} of `time`. */
  keys: string[];
}

/** Options of {@link ChannelMarks.open}. */
export interface ChannelMarksOptions {
  path: string;
  logger: Logger;
  /** Rewrite the file when it grows past this many bytes; default 256 KiB. */
  maxBytes?: number;
}

/** Keys of lines this close to a channel's newest line are kept (twice the catch-up's 1 s slack). */
const KEEP_KEYS_MS = 2_000;
/** At most this many keys per channel. */
const MAX_KEYS = 64;

interface Recent {
  time: number;
  /** Newest last: [time, key]. */
  keys: Array<[number, string]>;
}

/** The marks file of one agent: what the previous daemon saw, and the log of what this one sees. */
export class ChannelMarks {
  /** What the previous daemon left, by channel key (folded by the server's case mapping). */
  readonly saved: ReadonlyMap<string, ChannelMark>;
  /** True when a previous daemon left a marks file (even one without channels). */
  readonly existed: boolean;
  private readonly current = new Map<string, Recent>();
  private readonly maxBytes: number;
  private fd = -1;
  private bytes = 0;
  private failures = 0;

  private constructor(
    private readonly path: string,
    private readonly logger: Logger,
    opts: ChannelMarksOptions,
    existed: boolean,
    saved: Map<string, Recent>,
  ) {
    this.maxBytes = opts.maxBytes ?? 256 * 1024;
    this.existed = existed;
    this.saved = new Map([...saved].map(([c, r]) => [c, { time: r.time, keys: r.keys.map(([, k]) => k) }]));
    for (const [c, r] of saved) this.current.set(c, { time: r.time, keys: [...r.keys] });
  }

  /** Reads (and rewrites, compacted) the marks file, creating it (0600) when there is none. */
  static open(opts: ChannelMarksOptions): ChannelMarks {
    let text: string | null = null;
    try {
      text = readFileSync(opts.path, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    const marks = new ChannelMarks(opts.path, opts.logger, opts, text !== null, parseMarks(text ?? "", opts.logger));
    marks.rewrite();
    return marks;
  }

  /** Records that a line with server-time `time` (and dedupe key `key`, if any) was seen in `channel`. */
  note(channel: string, time: number, key: string | null): void {
    remember(this.current, channel, time, key);
    this.append({ c: channel, t: time, ...(key ? { k: key } : {}) });
    if (this.bytes > this.maxBytes) this.rewrite();
  }

  /** True when `channel` has a mark (from a previous daemon, or seen by this one). */
  has(channel: string): boolean {
    return this.current.has(channel);
  }

  /** We left `channel` for good: a later join is a first join, not a catch-up. */
  forget(channel: string): void {
    if (!this.current.delete(channel)) return;
    this.append({ c: channel, forget: true });
  }

  /** Writes that failed (a full disk): counted, never fatal. */
  get writeFailures(): number {
    return this.failures;
  }

  /** Rewrites the file (fsync'd) and closes it: a clean stop leaves an exact, durable mark. */
  close(): void {
    if (this.fd < 0) return;
    this.rewrite();
    try {
      closeSync(this.fd);
    } catch {
      /* already closed */
    }
    this.fd = -1;
  }

  private append(record: Record<string, unknown>): void {
    if (this.fd < 0) return;
    const line = JSON.stringify(record) + "\n";
    try {
      writeSync(this.fd, line);
      this.bytes += Buffer.byteLength(line);
    } catch (err) {
      this.failures++;
      this.logger.warn(`writing the channel marks failed: ${errorMessage(err)}`, { path: this.path });
    }
  }

  /** Rewrites the file with only what matters (atomically, durably) and reopens it for appending. */
  private rewrite(): void {
    const body = [...this.current]
      .flatMap(([c, r]) => (r.keys.length ? r.keys.map(([t, k]) => ({ c, t, k })) : [{ c, t: r.time }]))
      .map((rec) => JSON.stringify(rec) + "\n")
      .join("");
    try {
      replaceFileDurably(this.path, body);
      if (this.fd >= 0) closeSync(this.fd);
      this.fd = openSync(this.path, fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT, 0o600);
      this.bytes = Buffer.byteLength(body);
    } catch (err) {
      this.failures++;
      this.logger.warn(`rewriting the channel marks failed: ${errorMessage(err)}`, { path: this.path });
    }
  }
}

/** Adds a line to a channel's recent state: the newest time, and the keys near it. */
function remember(map: Map<string, Recent>, channel: string, time: number, key: string | null): void {
  let r = map.get(channel);
  if (!r) map.set(channel, (r = { time, keys: [] }));
  if (time > r.time) r.time = time;
  if (key) r.keys.push([time, key]);
  const from = r.time - KEEP_KEYS_MS;
  r.keys = r.keys.filter(([t]) => t >= from).slice(-MAX_KEYS);
}

/** The marks in a file's text; lines that are not marks (a torn last line) are skipped with a warning. */
export function parseMarks(text: string, logger: Logger): Map<string, Recent> {
  const map = new Map<string, Recent>();
  let skipped = 0;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const rec = parseJsonObject(line);
    if (rec && typeof rec.c === "string" && rec.forget === true) {
      map.delete(rec.c);
    } else if (rec && typeof rec.c === "string" && typeof rec.t === "number" && Number.isFinite(rec.t)) {
      remember(map, rec.c, rec.t, typeof rec.k === "string" ? rec.k : null);
    } else {
      skipped++;
    }
  }
  if (skipped) logger.warn(`channel marks: skipped ${skipped} line(s) that are not marks`);
  return map;
}
