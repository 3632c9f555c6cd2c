/**
 * What the agent has not read yet. The agent is never interrupted by ordinary channel
 * traffic: the daemon records every message here (the agent's own sends too) and the agent
 * pulls them with `culture channel read`. Each target has a fixed ring, so a busy channel
 * costs bounded memory; what falls off the ring before it was read is counted and reported
 * once as `skipped`, so the agent knows it missed something instead of silently not seeing it.
 *
 * A ring is kept compact because `buffer_size` may be tens of thousands (bench/daemon.mjs
 * floods 20,000 lines): three parallel arrays instead of an object per message, the
 * timestamps unboxed in a number array, each nick stored once, and each text copied out of
 * the IRC line it was cut from. V8 keeps a substring of 13 characters or more as a slice that
 * holds its whole parent alive, so a buffered text held its raw line (tags, prefix, command:
 * ~180 bytes more a message). issue 30: a 20,000-line flood kept ~5.5 MiB of heap, now ~2.
 */
import { invalidArgument } from "../errors.js";
import { DM_PREFIX, isDmKey } from "../irc/conversation-key.js";

/** One buffered IRC line. */
export interface BufferedMessage {
  nick: string;
  text: string;
  /** Whatever the daemon recorded; culture uses epoch seconds, as the reference implementation does. */
  timestamp: number;
}

/** The result of {@link MessageBuffer.read}. */
export interface BufferRead {
  /** Unread messages, oldest first. */
  messages: BufferedMessage[];
  /** Messages that fell off the ring before they were read (reported once). */
  skipped: number;
}

/**
 * Per-target rings of IRC messages with a read position each.
 *
 * Keys are channel names or `DM:<nick>`; both are case-insensitive (IRC compares channel
 * names and nicks without case), so `#General` and `#general` are one key. {@link keys}
 * returns the normalised form: lower case, with the `DM:` prefix kept upper case.
 */
export class MessageBuffer {
  /** Ring capacity per key. */
  readonly size: number;
  private readonly rings = new Map<string, Ring>();
  private readonly nicks = new NickTable();

  constructor(size: number) {
    if (!Number.isSafeInteger(size) || size < 1) throw invalidArgument("buffer_size", size, "an integer >= 1");
    this.size = size;
  }

  /** Records a message for `key`. O(1); the oldest message is overwritten when the ring is full. */
  add(key: string, entry: BufferedMessage): void {
    const k = normaliseBufferKey(key);
    let ring = this.rings.get(k);
    if (!ring) {
      ring = { nicks: [], texts: [], times: [], total: 0, cursor: 0 };
      this.rings.set(k, ring);
    }
    const nick = this.nicks.intern(entry.nick);
    const text = ownCopy(entry.text);
    const slot = ring.total % this.size;
    // The arrays grow to `size` and are then written in place: no shifting, no reallocation.
    if (slot === ring.texts.length) {
      ring.nicks.push(nick);
      ring.texts.push(text);
      ring.times.push(entry.timestamp);
    } else {
      ring.nicks[slot] = nick;
      ring.texts[slot] = text;
      ring.times[slot] = entry.timestamp;
    }
    ring.total++;
  }

  /**
   * Returns up to `limit` unread messages for `key`, oldest first, and advances the read
   * position past exactly those (a second read gets the rest). `skipped` counts the unread
   * messages that were overwritten since the last read; they are reported once.
   */
  read(key: string, limit: number): BufferRead {
    if (!Number.isSafeInteger(limit) || limit < 1) throw invalidArgument("limit", limit, "an integer >= 1");
    const ring = this.rings.get(normaliseBufferKey(key));
    if (!ring) return { messages: [], skipped: 0 };
    const oldest = Math.max(0, ring.total - this.size);
    let skipped = 0;
    if (ring.cursor < oldest) {
      skipped = oldest - ring.cursor;
      ring.cursor = oldest;
    }
    const count = Math.min(limit, ring.total - ring.cursor);
    const messages: BufferedMessage[] = new Array<BufferedMessage>(count);
    for (let i = 0; i < count; i++) {
      const slot = (ring.cursor + i) % this.size;
      messages[i] = { nick: ring.nicks[slot] as string, text: ring.texts[slot] as string, timestamp: ring.times[slot] as number };
    }
    ring.cursor += count;
    return { messages, skipped };
  }

  /** How many unread messages `key` still holds (not counting ones that fell off the ring). */
  unread(key: string): number {
    const ring = this.rings.get(normaliseBufferKey(key));
    if (!ring) return 0;
    return ring.total - Math.max(ring.cursor, ring.total - this.size);
  }

  /** The keys that have received messages, normalised, in first-seen order. */
  keys(): string[] {
    return [...this.rings.keys()];
  }

  /** Forgets a key and its messages (e.g. after leaving a channel). True when it existed. */
  delete(key: string): boolean {
    return this.rings.delete(normaliseBufferKey(key));
  }
}

/** One key's ring: slot `i` of the three arrays is one message. */
interface Ring {
  nicks: string[];
  texts: string[];
  /** Numbers only, so V8 stores them unboxed (8 bytes each, no object per timestamp). */
  times: number[];
  /** Messages ever added; the absolute index of the next one. */
  total: number;
  /** Absolute index of the next unread message. */
  cursor: number;
}

/** The form a buffer key is stored under: lower case, with a `DM:` prefix kept upper case. */
export function normaliseBufferKey(key: string): string {
  return isDmKey(key) ? DM_PREFIX + key.slice(DM_PREFIX.length).toLowerCase() : key.toLowerCase();
}

/**
 * A copy of `text` that shares no memory with the string it was cut from. JSON's parser builds
 * a fresh flat string; slicing or concatenating could return a slice of the same parent.
 * (Lone surrogates survive: JSON.stringify escapes them and JSON.parse restores them.)
 * Texts too long to come from one IRC line (the agent's own long sends, parsed from its IPC
 * request) are kept as they are: copying a megabyte costs milliseconds and saves nothing.
 */
function ownCopy(text: string): string {
  return text.length < SLICE_MIN_LENGTH || text.length > IRC_LINE_MAX ? text : (JSON.parse(JSON.stringify(text)) as string);
}

/** V8 copies shorter substrings instead of slicing them (SlicedString::kMinLength). */
const SLICE_MIN_LENGTH = 13;

/** Longer than any IRC line, IRCv3 tags (8191 bytes) and message (512) together. */
const IRC_LINE_MAX = 16 * 1024;

/**
 * One string per nick for the whole buffer (a flood from one nick holds one copy, not one per
 * line). Bounded: when it is full it starts over, which costs only sharing, never correctness.
 */
class NickTable {
  private readonly table = new Map<string, string>();

  intern(nick: string): string {
    const known = this.table.get(nick);
    if (known !== undefined) return known;
    if (this.table.size >= NICK_TABLE_LIMIT) this.table.clear();
    const own = ownCopy(nick);
    this.table.set(own, own);
    return own;
  }
}

const NICK_TABLE_LIMIT = 1024;
