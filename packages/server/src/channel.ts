/**
 * A channel: its members with their status (op `@`, voice `+`), topic, modes (+i +k +l +m
 * +n +s +t), ban list and pending invites. A channel exists while it has members; its
 * history lives on in the history store.
 */
import { ircLower } from "./casemapping.js";
import type { Connection } from "./connection.js";
import { matchMask } from "./wildcard.js";

/** A member's channel status. */
export interface Membership {
  op: boolean;
  voice: boolean;
}

/** The flag modes a channel can have (CHANMODES type D). */
export interface ChannelFlags {
  /** +i: joining needs an INVITE. */
  inviteOnly: boolean;
  /** +m: only ops and voiced members may speak. */
  moderated: boolean;
  /** +n: no messages from outside the channel. */
  noExternal: boolean;
  /** +s: hidden from LIST, WHOIS and NAMES of non-members. */
  secret: boolean;
  /** +t: only ops may change the topic. */
  topicLock: boolean;
}

/** One ban-list entry. */
export interface BanEntry {
  mask: string;
  setBy: string;
  setAt: number;
}

/** A live channel. */
export class Channel {
  /** The folded name (map key). */
  readonly key: string;
  readonly members = new Map<Connection, Membership>();
  topic: { text: string; setBy: string; setAt: number } | null = null;
  /** New channels are +nt, as on most networks. */
  readonly flags: ChannelFlags = { inviteOnly: false, moderated: false, noExternal: true, secret: false, topicLock: true };
  password: string | null = null;
  limit: number | null = null;
  readonly bans: BanEntry[] = [];
  /** Folded nicks invited while +i; an invite is used up by the join. */
  readonly invites = new Set<string>();
  /** Creation time, epoch seconds (RPL_CREATIONTIME). */
  readonly createdAt = Math.floor(Date.now() / 1000);

  constructor(
    /** The name as first joined (its case is kept for display). */
    readonly name: string,
  ) {
    this.key = ircLower(name);
  }

  /** True when `client` is a member. */
  has(client: Connection): boolean {
    return this.members.has(client);
  }

  /** True when `client` is a channel operator here. */
  isOp(client: Connection): boolean {
    return this.members.get(client)?.op === true;
  }

  /** `@`, `+`, `@+` (with multi-prefix) or "" for a member's status. */
  prefix(client: Connection, multiPrefix: boolean): string {
    const m = this.members.get(client);
    if (!m) return "";
    if (multiPrefix) return (m.op ? "@" : "") + (m.voice ? "+" : "");
    return m.op ? "@" : m.voice ? "+" : "";
  }

  /** True when a ban mask matches the client's `nick!user@host`. */
  isBanned(client: Connection): boolean {
    if (this.bans.length === 0) return false;
    const full = client.prefix;
    return this.bans.some((b) => matchMask(b.mask, full));
  }

  /** True when `client` may speak here (membership, +n, +m, bans). */
  canSend(client: Connection): boolean {
    const m = this.members.get(client);
    if (!m) return !this.flags.noExternal && !this.flags.moderated && !this.isBanned(client);
    if (m.op || m.voice) return true;
    return !this.flags.moderated && !this.isBanned(client);
  }

  /** The mode string and its parameters (`+ntkl`, key, limit); the key only for members. */
  modeString(showKey: boolean): string[] {
    let flags = "+";
    const params: string[] = [];
    if (this.flags.inviteOnly) flags += "i";
    if (this.password !== null) {
      flags += "k";
      params.push(showKey ? this.password : "*");
    }
    if (this.limit !== null) {
      flags += "l";
      params.push(String(this.limit));
    }
    if (this.flags.moderated) flags += "m";
    if (this.flags.noExternal) flags += "n";
    if (this.flags.secret) flags += "s";
    if (this.flags.topicLock) flags += "t";
    return [flags, ...params];
  }
}
