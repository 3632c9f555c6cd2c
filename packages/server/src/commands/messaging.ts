/**
 * PRIVMSG, NOTICE and TAGMSG to channels (also `@#chan`/`+#chan` for ops/voiced only, per
 * STATUSMSG) and to nicks. Every message gets a msgid and the server time; channel messages
 * are kept in the history store. NOTICE never draws an error reply (RFC 2812 3.3.2), so a
 * bot answering notices with notices cannot loop with the server.
 */
import { ircLower, isChannelName } from "../casemapping.js";
import type { Connection } from "../connection.js";
import { type IrcMessage, MAX_LINE_BYTES, truncateUtf8 } from "../message.js";
import { N } from "../numerics.js";
import type { ServerCore } from "../server-core.js";
import { LIMITS } from "../server-options.js";

type MessageCommand = "PRIVMSG" | "NOTICE" | "TAGMSG";

/** PRIVMSG <targets> :<text> */
export function handlePrivmsg(server: ServerCore, client: Connection, msg: IrcMessage): void {
  deliver(server, client, msg, "PRIVMSG");
}

/** NOTICE <targets> :<text> */
export function handleNotice(server: ServerCore, client: Connection, msg: IrcMessage): void {
  deliver(server, client, msg, "NOTICE");
}

/** TAGMSG <targets> — only client tags, only to clients with message-tags. */
export function handleTagmsg(server: ServerCore, client: Connection, msg: IrcMessage): void {
  deliver(server, client, msg, "TAGMSG");
}

function deliver(server: ServerCore, client: Connection, msg: IrcMessage, command: MessageCommand): void {
  const quiet = command === "NOTICE";
  const reply = (code: string, ...params: string[]): void => {
    if (!quiet) client.numeric(code, ...params);
  };
  const targetList = msg.params[0];
  if (targetList === undefined || targetList.length === 0) return reply(N.ERR_NORECIPIENT, `No recipient given (${command})`);
  const raw = msg.params[1];
  if (command !== "TAGMSG" && (raw === undefined || raw.length === 0)) return reply(N.ERR_NOTEXTTOSEND, "No text to send");

  let clientTags: Record<string, string> | null = null;
  for (const [k, v] of msg.tags) {
    if (k.startsWith("+")) (clientTags ??= {})[k] = v;
  }
  if (command === "TAGMSG" && clientTags === null) return;
  // One delivery per distinct target, as RFC servers do: `PRIVMSG bot,bot,BOT :hi` is one
  // message to bot, not three (each copy would become a prompt for an agent).
  const seen = new Set<string>();
  const targets = targetList.split(",").filter((t) => {
    if (t.length === 0) return false;
    const key = ircLower(t);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const now = Date.now();
  const time = new Date(now).toISOString();
  if (command !== "TAGMSG") client.lastMessageAt = now;

  targets.forEach((target, i) => {
    if (i >= LIMITS.MAXTARGETS) return reply(N.ERR_TOOMANYTARGETS, target, "Too many targets");
    const status = target[0] === "@" || target[0] === "+" ? target[0] : "";
    const name = target.slice(status.length);
    if (isChannelName(name)) {
      const channel = server.findChannel(name);
      if (!channel) return reply(N.ERR_NOSUCHCHANNEL, name, "No such channel");
      if (!channel.canSend(client)) return reply(N.ERR_CANNOTSENDTOCHAN, channel.name, "Cannot send to channel");
      const to = status + channel.name;
      const text = command === "TAGMSG" ? null : fit(client, command, to, raw!);
      const msgid = server.nextMsgid();
      const out = server.relayFrom(client, command, text === null ? [to] : [to, text], { msgid, clientTags, time, trailing: text !== null });
      for (const [member, m] of channel.members) {
        if (member === client && !client.has("echo-message")) continue;
        if (status === "@" && !m.op) continue;
        if (status === "+" && !m.op && !m.voice) continue;
        if (command === "TAGMSG" && !member.has("message-tags")) continue;
        member.sendBytes(out.bytesFor(member.tagBits));
      }
      if (status === "" && text !== null) {
        server.history.append({
          msgid, time: now, command: command as "PRIVMSG" | "NOTICE", source: client.prefix,
          account: client.account, target: channel.name, text, clientTags,
        });
      }
      return;
    }
    const user = server.findUser(target);
    if (!user) return reply(N.ERR_NOSUCHNICK, target, "No such nick/channel");
    const text = command === "TAGMSG" ? null : fit(client, command, user.nick!, raw!);
    const out = server.relayFrom(client, command, text === null ? [user.nick!] : [user.nick!, text], {
      msgid: server.nextMsgid(), clientTags, time, trailing: text !== null,
    });
    if (command !== "TAGMSG" || user.has("message-tags")) user.send(out.lineFor(user.tagBits));
    if (user !== client && client.has("echo-message") && (command !== "TAGMSG" || client.has("message-tags"))) {
      client.send(out.lineFor(client.tagBits));
    }
    if (command === "PRIVMSG" && user.away !== null) client.numeric(N.RPL_AWAY, user.nick!, user.away);
  });
}

/** Cuts the text so `:prefix CMD target :text` fits in 512 bytes; history stores what was sent. */
function fit(client: Connection, command: string, target: string, text: string): string {
  const overhead = Buffer.byteLength(`:${client.prefix} ${command} ${target} :`) + 2;
  return truncateUtf8(text, MAX_LINE_BYTES - overhead);
}
