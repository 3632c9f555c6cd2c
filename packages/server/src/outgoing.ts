/**
 * A message from a user, relayed to many clients. Each recipient gets the tags its caps ask
 * for (time with server-time, msgid and client tags with message-tags, account with
 * account-tag), so there are at most eight wire forms of one message: they are built once
 * and shared, which keeps channel fan-out cheap.
 */
import { formatParams, formatTags, MAX_LINE_BYTES, truncateUtf8 } from "./message.js";

/** Tag-relevant caps as bits (see {@link RelayedMessage.lineFor}). */
export const TAG_BITS = { messageTags: 1, serverTime: 2, accountTag: 4 } as const;

/** Server-side facts attached to a relayed message as tags. */
export interface RelayMeta {
  /** ISO 8601 time (server-time). */
  time: string;
  msgid?: string | null;
  account?: string | null;
  /** Client-only tags to forward (`+name` keys). */
  clientTags?: Record<string, string> | null;
}

/** One message, in every tag variant a recipient can need. */
export class RelayedMessage {
  /** `:source COMMAND params` cut to the RFC 1459 limit. */
  readonly body: string;
  private readonly variants: (string | undefined)[] = new Array<string | undefined>(8);
  private readonly encoded: (Buffer | undefined)[] = new Array<Buffer | undefined>(8);

  constructor(
    source: string,
    command: string,
    params: readonly string[],
    readonly meta: RelayMeta,
    /** Write the last parameter as trailing (`:text`) even when it needs no colon. */
    trailing = false,
  ) {
    this.body = truncateUtf8(`:${source} ${formatParams(command, params, trailing)}`, MAX_LINE_BYTES - 2);
  }

  /** {@link lineFor} encoded, with CR LF: built once per variant and shared by every recipient. */
  bytesFor(bits: number): Buffer {
    let buf = this.encoded[bits];
    if (buf === undefined) {
      buf = Buffer.from(this.lineFor(bits) + "\r\n", "utf8");
      this.encoded[bits] = buf;
    }
    return buf;
  }

  /** The wire line (no CR LF) for a recipient with these {@link TAG_BITS}; `batch` adds a batch tag. */
  lineFor(bits: number, batch?: string): string {
    if (batch === undefined) {
      const hit = this.variants[bits];
      if (hit !== undefined) return hit;
    }
    const tags: [string, string][] = [];
    if ((bits & TAG_BITS.accountTag) !== 0 && this.meta.account) tags.push(["account", this.meta.account]);
    if (batch !== undefined) tags.push(["batch", batch]);
    if ((bits & TAG_BITS.messageTags) !== 0 && this.meta.msgid) tags.push(["msgid", this.meta.msgid]);
    if ((bits & TAG_BITS.serverTime) !== 0) tags.push(["time", this.meta.time]);
    if ((bits & TAG_BITS.messageTags) !== 0 && this.meta.clientTags) {
      for (const [k, v] of Object.entries(this.meta.clientTags)) tags.push([k, v]);
    }
    const line = tags.length === 0 ? this.body : `@${formatTags(tags)} ${this.body}`;
    if (batch === undefined) this.variants[bits] = line;
    return line;
  }
}
