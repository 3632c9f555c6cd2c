/**
 * Turning one PRIVMSG or NOTICE line from irc-framework into culture's {@link IrcMessageEvent}.
 *
 * This is a pure function of the line and a snapshot of what the connection knows (channel
 * types, STATUSMSG prefixes, our nick, the channels we joined, open history batches, accounts):
 * it decides the kind (a `/me` ACTION, other CTCP dropped), the real target (`@#chan` is a
 * message to `#chan`), whether it is a DM or our own echo, its time and its buffer key. What
 * to do with the event (catch-up, dedupe, emit) stays with the transport, which owns that
 * state; keeping the conversion apart lets it be tested line by line without a server.
 */
import type { IrcMessageEvent } from "../events.js";
import { isChannelName } from "./sanitize.js";
import { dmKey } from "./conversation-key.js";
import { lastParam, type RawMessage, serverTime } from "./irc-line.js";

/** What {@link toMessageEvent} needs to know about the connection, read at the time of the line. */
export interface MessageEventContext {
  /** The server's channel prefixes (ISUPPORT CHANTYPES), e.g. `#&`. */
  chantypes: string;
  /** The server's STATUSMSG prefixes (`@+`): `PRIVMSG @#chan` is a message to `#chan`'s ops. */
  statusmsg: string;
  /** Folds a nick or channel by the server's case mapping. */
  fold(name: string): string;
  /** True when `nick` is us. */
  isMe(nick: string): boolean;
  /** The name of a joined channel as the server spelled it, by folded name; undefined when not joined. */
  joinedName(key: string): string | undefined;
  /** True when a line's `batch` tag names an open history batch (a replay, not a live line). */
  inHistoryBatch(ref: string | undefined): boolean;
  /** The services account of the sender, from the line's tags or what is known of the nick. */
  accountOf(nick: string, tags: Readonly<Record<string, string>>): string | null;
  /** Now, in epoch ms: the time of a line without a server-time tag. */
  now(): number;
}

/** A text line as an event, with what the transport needs to route it. */
export interface TextLine {
  event: IrcMessageEvent;
  /** True for our own line echoed back (echo-message). */
  self: boolean;
  /** The folded channel name, or null for a DM. */
  channelKey: string | null;
}

/**
 * The message event of a PRIVMSG or NOTICE line, or null for a line that is not one for the
 * agent: a server notice (no sender nick) or a CTCP other than ACTION (irc-framework answers
 * VERSION itself). A line inside a history batch gets `replayed: true`.
 */
export function toMessageEvent(msg: RawMessage, ctx: MessageEventContext): TextLine | null {
  if (!msg.nick) return null; // server notices
  let text = lastParam(msg.params);
  let kind: IrcMessageEvent["kind"] = msg.command === "NOTICE" ? "notice" : "privmsg";
  if (text.startsWith("\x01")) {
    const body = text.replace(/^\x01|\x01$/g, "");
    if (msg.command === "PRIVMSG" && /^ACTION( |$)/i.test(body)) {
      kind = "action";
      text = body.slice(7);
    } else {
      return null; // other CTCP: irc-framework answers VERSION; nothing for the agent
    }
  }
  let target = msg.params[0] ?? "";
  while (target.length > 1 && ctx.statusmsg.includes(target[0]!) && !isChannelName(target, ctx.chantypes)) target = target.slice(1);
  const isChannel = isChannelName(target, ctx.chantypes);
  const self = ctx.isMe(msg.nick);
  const channelName = isChannel ? (ctx.joinedName(ctx.fold(target)) ?? target) : target;
  const event: IrcMessageEvent = {
    kind,
    nick: msg.nick,
    target: channelName,
    text,
    account: ctx.accountOf(msg.nick, msg.tags),
    tags: { ...msg.tags },
    time: serverTime(msg) ?? ctx.now(),
    isDm: !isChannel,
    // Our own DM echo belongs to the conversation with its target.
    bufferKey: isChannel ? channelName : dmKey(self ? target : msg.nick),
  };
  if (ctx.inHistoryBatch(msg.tags.batch)) event.replayed = true;
  return { event, self, channelKey: isChannel ? ctx.fold(channelName) : null };
}
