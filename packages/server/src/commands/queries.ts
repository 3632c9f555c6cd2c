/**
 * Questions about users and the server: WHO, WHOIS, USERHOST, ISON, MOTD, LUSERS, VERSION,
 * TIME. What a client may see follows the usual rules: +i users are visible only to clients
 * that share a channel with them, +s channels only to their members.
 */
import { isChannelName } from "../casemapping.js";
import type { Channel } from "../channel.js";
import type { Connection } from "../connection.js";
import type { IrcMessage } from "../message.js";
import { N } from "../numerics.js";
import { sendIsupport, sendLusers, sendMotd } from "../registration.js";
import type { ServerCore } from "../server-core.js";
import { SERVER_VERSION } from "../server-options.js";
import { matchMask } from "../wildcard.js";
import { visibleMembers } from "./channels.js";

/** WHO [<#channel> | <nick> | <mask>] */
export function handleWho(server: ServerCore, client: Connection, msg: IrcMessage): void {
  const mask = msg.params[0] && msg.params[0].length > 0 ? msg.params[0] : "*";
  if (isChannelName(mask)) {
    const channel = server.findChannel(mask);
    if (channel && (channel.has(client) || !channel.flags.secret)) {
      for (const member of visibleMembers(client, channel)) whoReply(server, client, member, channel);
    }
  } else if (!/[*?]/.test(mask)) {
    const user = server.findUser(mask);
    if (user) whoReply(server, client, user, firstSharedChannel(client, user));
  } else {
    const shared = server.peersOf(client);
    for (const user of server.connections) {
      if (!user.registered || (user.invisible && user !== client && !shared.has(user))) continue;
      if ([user.nick!, user.user!, user.host, user.realname].some((field) => matchMask(mask, field))) {
        whoReply(server, client, user, firstSharedChannel(client, user));
      }
    }
  }
  client.numeric(N.RPL_ENDOFWHO, mask, "End of /WHO list");
}

function whoReply(server: ServerCore, client: Connection, user: Connection, channel: Channel | null): void {
  const flags = (user.away !== null ? "G" : "H") + (channel ? channel.prefix(user, client.has("multi-prefix")) : "");
  client.numeric(N.RPL_WHOREPLY, channel?.name ?? "*", user.user!, user.host, server.opts.name, user.nick!, flags, `0 ${user.realname}`);
}

function firstSharedChannel(client: Connection, user: Connection): Channel | null {
  for (const channel of user.channels) if (channel.has(client) || !channel.flags.secret) return channel;
  return null;
}

/** WHOIS [<server>] <nick> */
export function handleWhois(server: ServerCore, client: Connection, msg: IrcMessage): void {
  const arg = msg.params.length >= 2 ? msg.params[1]! : msg.params[0];
  if (arg === undefined || arg.length === 0) return void client.numeric(N.ERR_NONICKNAMEGIVEN, "No nickname given");
  const nick = arg.split(",")[0]!;
  const user = server.findUser(nick);
  if (!user) {
    client.numeric(N.ERR_NOSUCHNICK, nick, "No such nick/channel");
    client.numeric(N.RPL_ENDOFWHOIS, nick, "End of /WHOIS list");
    return;
  }
  client.numeric(N.RPL_WHOISUSER, user.nick!, user.user!, user.host, "*", user.realname);
  const multi = client.has("multi-prefix");
  const channels = [...user.channels].filter((c) => c.has(client) || !c.flags.secret).map((c) => c.prefix(user, multi) + c.name);
  if (channels.length > 0) client.numeric(N.RPL_WHOISCHANNELS, user.nick!, channels.join(" "));
  client.numeric(N.RPL_WHOISSERVER, user.nick!, server.opts.name, `${server.opts.network} (culture embedded IRC server)`);
  if (user.away !== null) client.numeric(N.RPL_AWAY, user.nick!, user.away);
  if (user.account !== null) client.numeric(N.RPL_WHOISACCOUNT, user.nick!, user.account, "is logged in as");
  const idle = Math.max(0, Math.floor((Date.now() - user.lastMessageAt) / 1000));
  client.numeric(N.RPL_WHOISIDLE, user.nick!, String(idle), String(user.signonAt), "seconds idle, signon time");
  client.numeric(N.RPL_ENDOFWHOIS, user.nick!, "End of /WHOIS list");
}

/** USERHOST <nick> [<nick> ...] (up to 5) */
export function handleUserhost(server: ServerCore, client: Connection, msg: IrcMessage): void {
  const replies: string[] = [];
  for (const nick of msg.params.join(" ").split(" ").slice(0, 5)) {
    const user = nick.length > 0 ? server.findUser(nick) : undefined;
    if (user) replies.push(`${user.nick}=${user.away !== null ? "-" : "+"}${user.user}@${user.host}`);
  }
  client.numeric(N.RPL_USERHOST, replies.join(" "));
}

/** ISON <nick> [<nick> ...] */
export function handleIson(server: ServerCore, client: Connection, msg: IrcMessage): void {
  const online: string[] = [];
  for (const nick of msg.params.join(" ").split(" ")) {
    const user = nick.length > 0 ? server.findUser(nick) : undefined;
    if (user) online.push(user.nick!);
  }
  client.numeric(N.RPL_ISON, online.join(" "));
}

/** MOTD */
export function handleMotd(server: ServerCore, client: Connection): void {
  sendMotd(server, client);
}

/** LUSERS */
export function handleLusers(server: ServerCore, client: Connection): void {
  sendLusers(server, client);
}

/** VERSION -> 351 and the ISUPPORT lines. */
export function handleVersion(server: ServerCore, client: Connection): void {
  client.numeric(N.RPL_VERSION, SERVER_VERSION, server.opts.name, "culture embedded IRC server");
  sendIsupport(server, client);
}

/** TIME -> 391 */
export function handleTime(server: ServerCore, client: Connection): void {
  client.numeric(N.RPL_TIME, server.opts.name, new Date().toUTCString());
}
