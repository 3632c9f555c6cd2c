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
 * two conversations), else `time:<time>:<nick>:<target>:<text>` when it has a server-time;
 * null when it has neither (then it cannot be told apart from a repeat of the same words).
 */
export function messageKey(m: MessageIdentity): string | null {
  if (m.msgid) return `id:${m.msgid}:${m.target}`;
  if (m.time) return `time:${m.time}:${m.nick}:${m.target}:${m.text}`;
  return null;
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
