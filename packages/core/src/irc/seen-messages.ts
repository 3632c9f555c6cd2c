/**
 * The messages the transport has already emitted, so that none is emitted twice: a server that
 * delivers `PRIVMSG a,a,a :...` once per listed target, a history replay (catch-up after a
 * reconnect) that overlaps what arrived live, or a replay on JOIN of lines already handled.
 * Bounded: the oldest keys are forgotten first.
 */

/** What identifies one message: its msgid (IRCv3), else its server-time, sender and text. */
export interface MessageIdentity {
  msgid?: string | undefined;
  /** The server-time tag as received (ISO 8601), when there is one. */
  time?: string | undefined;
  nick: string;
  /** The target as received (a channel, or our nick), already folded by the server's casemapping. */
  target: string;
  text: string;
}

/**
 * The dedupe key of a message: `id:<msgid>:<target>` when it has a msgid (the target is part
 * of it because a server may give `PRIVMSG #a,#b` one msgid for both channels, and those are
 * two conversations), else `time:<time>:<nick>:<target>:<length>:<hash of the text>` when it has a server-time;
 * null when it has neither (then it cannot be told apart from a repeat of the same words).
 */
export function messageKey(m: MessageIdentity): string | null {
  if (m.msgid) return `id:${m.msgid}:${m.target}`;
  // The text is hashed: thousands of remembered keys must not hold thousands of lines.
  if (m.time) return `time:${m.time}:${m.nick}:${m.target}:${m.text.length}:${fnv1a(m.text)}`;
  return null;
}

/** 32-bit FNV-1a of the UTF-16 code units, in base 36. */
function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36);
}

/** A bounded set of message keys (insertion order; the oldest go first). */
export class SeenMessages {
  private readonly keys = new Set<string>();

  constructor(private readonly limit = 4096) {}

  /** True when `key` was seen before; otherwise remembers it and returns false. */
  check(key: string): boolean {
    if (this.keys.has(key)) return true;
    this.keys.add(key);
    if (this.keys.size > this.limit) {
      const oldest = this.keys.values().next().value;
      if (oldest !== undefined) this.keys.delete(oldest);
    }
    return false;
  }

  /** True when `key` was seen (without remembering it). */
  has(key: string): boolean {
    return this.keys.has(key);
  }

  get size(): number {
    return this.keys.size;
  }
}
