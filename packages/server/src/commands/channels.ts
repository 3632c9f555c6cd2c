/**
 * Channel membership and channel facts: JOIN, PART, KICK, TOPIC, INVITE, NAMES, LIST.
 * Join checks run in the order ircds use: ban (474), invite-only (473), key (475), limit (471);
 * an INVITE lets its target past +i once.
 */
import { ircLower, isValidChannelName } from "../casemapping.js";
import { Channel } from "../channel.js";
import type { Connection } from "../connection.js";
import type { IrcMessage } from "../message.js";
import { truncateUtf8 } from "../message.js";
import { N } from "../numerics.js";
import type { RelayedMessage } from "../outgoing.js";
import type { ServerCore } from "../server-core.js";
import { LIMITS } from "../server-options.js";

/** JOIN <#a,#b> [key1,key2] | JOIN 0 */
export function handleJoin(server: ServerCore, client: Connection, msg: IrcMessage): void {
  if (msg.params[0] === "0") {
    for (const channel of [...client.channels]) part(server, client, channel, "Left all channels");
    return;
  }
  const keys = (msg.params[1] ?? "").split(",");
  msg.params[0]!.split(",").forEach((name, i) => {
    if (name.length === 0) return;
    joinOne(server, client, name, keys[i] ?? "");
  });
}

function joinOne(server: ServerCore, client: Connection, name: string, key: string): void {
  if (!isValidChannelName(name, LIMITS.CHANNELLEN)) {
    client.numeric(N.ERR_NOSUCHCHANNEL, name, "No such channel");
    return;
  }
  let channel = server.findChannel(name);
  if (channel?.has(client)) return;
  if (client.channels.size >= LIMITS.CHANLIMIT) {
    client.numeric(N.ERR_TOOMANYCHANNELS, name, "You have joined too many channels");
    return;
  }
  // A registered channel (channel-registry.ts): only its owners get ops, and they always get in.
  const registry = server.opts.channelRegistry;
  const registered = registry?.ownersOf(name) != null;
  const owner = registered && registry!.isOwner(name, client.account);
  let op = owner;
  if (channel) {
    const nickKey = ircLower(client.nick!);
    const invited = channel.invites.has(nickKey);
    if (!owner) {
      if (channel.isBanned(client)) return void client.numeric(N.ERR_BANNEDFROMCHAN, channel.name, "Cannot join channel (+b)");
      if (channel.flags.inviteOnly && !invited) return void client.numeric(N.ERR_INVITEONLYCHAN, channel.name, "Cannot join channel (+i)");
      if (channel.password !== null && key !== channel.password) return void client.numeric(N.ERR_BADCHANNELKEY, channel.name, "Cannot join channel (+k)");
      if (channel.limit !== null && channel.members.size >= channel.limit) return void client.numeric(N.ERR_CHANNELISFULL, channel.name, "Cannot join channel (+l)");
    }
    channel.invites.delete(nickKey);
  } else {
    channel = new Channel(name);
    server.channels.set(channel.key, channel);
    op = registered ? owner : true;
  }
  channel.members.set(client, { op, voice: false });
  client.channels.add(channel);

  const plain = server.relayFrom(client, "JOIN", [channel.name]);
  let extended: RelayedMessage | null = null;
  for (const member of channel.members.keys()) {
    if (member.has("extended-join")) {
      extended ??= server.relayFrom(client, "JOIN", [channel.name, client.account ?? "*", client.realname], { trailing: true });
      member.sendBytes(extended.bytesFor(member.tagBits));
    } else {
      member.sendBytes(plain.bytesFor(member.tagBits));
    }
    if (member !== client && client.away !== null && member.has("away-notify")) {
      member.send(server.relayFrom(client, "AWAY", [client.away], { trailing: true }).lineFor(member.tagBits));
    }
  }
  if (channel.topic) sendTopic(client, channel);
  sendNames(client, channel);
}

/** PART <#a,#b> [:reason] */
export function handlePart(server: ServerCore, client: Connection, msg: IrcMessage): void {
  for (const name of msg.params[0]!.split(",")) {
    if (name.length === 0) continue;
    const channel = server.findChannel(name);
    if (!channel) {
      client.numeric(N.ERR_NOSUCHCHANNEL, name, "No such channel");
      continue;
    }
    if (!channel.has(client)) {
      client.numeric(N.ERR_NOTONCHANNEL, channel.name, "You're not on that channel");
      continue;
    }
    part(server, client, channel, msg.params[1]);
  }
}

function part(server: ServerCore, client: Connection, channel: Channel, reason: string | undefined): void {
  const params = reason !== undefined && reason.length > 0 ? [channel.name, truncateUtf8(reason, LIMITS.KICKLEN)] : [channel.name];
  server.toChannel(channel, server.relayFrom(client, "PART", params, { trailing: params.length > 1 }));
  server.leaveChannel(client, channel);
}

/** KICK <#chan> <nick[,nick]> [:reason] */
export function handleKick(server: ServerCore, client: Connection, msg: IrcMessage): void {
  const channel = server.findChannel(msg.params[0]!);
  if (!channel) return void client.numeric(N.ERR_NOSUCHCHANNEL, msg.params[0]!, "No such channel");
  if (!channel.has(client)) return void client.numeric(N.ERR_NOTONCHANNEL, channel.name, "You're not on that channel");
  if (!channel.isOp(client)) return void client.numeric(N.ERR_CHANOPRIVSNEEDED, channel.name, "You're not channel operator");
  const reason = truncateUtf8(msg.params[2] && msg.params[2].length > 0 ? msg.params[2] : client.nick!, LIMITS.KICKLEN);
  for (const nick of msg.params[1]!.split(",")) {
    if (nick.length === 0) continue;
    const target = server.findUser(nick);
    if (!target) {
      client.numeric(N.ERR_NOSUCHNICK, nick, "No such nick/channel");
      continue;
    }
    if (!channel.has(target)) {
      client.numeric(N.ERR_USERNOTINCHANNEL, target.nick!, channel.name, "They aren't on that channel");
      continue;
    }
    server.toChannel(channel, server.relayFrom(client, "KICK", [channel.name, target.nick!, reason], { trailing: true }));
    server.leaveChannel(target, channel);
  }
}

/** TOPIC <#chan> [:topic] — query, set, or clear with an empty topic. */
export function handleTopic(server: ServerCore, client: Connection, msg: IrcMessage): void {
  const channel = server.findChannel(msg.params[0]!);
  if (!channel || (channel.flags.secret && !channel.has(client))) {
    return void client.numeric(N.ERR_NOSUCHCHANNEL, msg.params[0]!, "No such channel");
  }
  const text = msg.params[1];
  if (text === undefined) {
    if (channel.topic) sendTopic(client, channel);
    else client.numeric(N.RPL_NOTOPIC, channel.name, "No topic is set");
    return;
  }
  if (!channel.has(client)) return void client.numeric(N.ERR_NOTONCHANNEL, channel.name, "You're not on that channel");
  if (channel.flags.topicLock && !channel.isOp(client)) return void client.numeric(N.ERR_CHANOPRIVSNEEDED, channel.name, "You're not channel operator");
  const topic = truncateUtf8(text, LIMITS.TOPICLEN);
  channel.topic = topic.length > 0 ? { text: topic, setBy: client.prefix, setAt: Math.floor(Date.now() / 1000) } : null;
  server.toChannel(channel, server.relayFrom(client, "TOPIC", [channel.name, topic], { trailing: true }));
}

/** INVITE <nick> <#chan> */
export function handleInvite(server: ServerCore, client: Connection, msg: IrcMessage): void {
  const [nick, name] = msg.params as [string, string];
  const target = server.findUser(nick);
  if (!target) return void client.numeric(N.ERR_NOSUCHNICK, nick, "No such nick/channel");
  const channel = server.findChannel(name);
  if (!channel) return void client.numeric(N.ERR_NOSUCHCHANNEL, name, "No such channel");
  if (!channel.has(client)) return void client.numeric(N.ERR_NOTONCHANNEL, channel.name, "You're not on that channel");
  if (channel.has(target)) return void client.numeric(N.ERR_USERONCHANNEL, target.nick!, channel.name, "is already on channel");
  if (channel.flags.inviteOnly && !channel.isOp(client)) return void client.numeric(N.ERR_CHANOPRIVSNEEDED, channel.name, "You're not channel operator");
  channel.invites.add(ircLower(target.nick!));
  client.numericBare(N.RPL_INVITING, target.nick!, channel.name);
  if (target.away !== null) client.numeric(N.RPL_AWAY, target.nick!, target.away);
  const invite = server.relayFrom(client, "INVITE", [target.nick!, channel.name]);
  target.send(invite.lineFor(target.tagBits));
  for (const member of channel.members.keys()) {
    if (member !== client && member.has("invite-notify") && channel.isOp(member)) member.send(invite.lineFor(member.tagBits));
  }
}

/** NAMES [#a,#b] — without a channel, only the end line (listing everyone helps no one). */
export function handleNames(server: ServerCore, client: Connection, msg: IrcMessage): void {
  const arg = msg.params[0];
  if (!arg) return void client.numeric(N.RPL_ENDOFNAMES, "*", "End of /NAMES list");
  for (const name of arg.split(",")) {
    const channel = server.findChannel(name);
    if (channel && (channel.has(client) || !channel.flags.secret)) sendNames(client, channel);
    else client.numeric(N.RPL_ENDOFNAMES, name, "End of /NAMES list");
  }
}

/** LIST [#a,#b] — channels that are not secret (or that the client is in), with member count and topic. */
export function handleList(server: ServerCore, client: Connection, msg: IrcMessage): void {
  const wanted = msg.params[0] ? msg.params[0].split(",").map((n) => server.findChannel(n)) : [...server.channels.values()];
  client.numeric(N.RPL_LISTSTART, "Channel", "Users  Name");
  for (const channel of wanted) {
    if (!channel || (channel.flags.secret && !channel.has(client))) continue;
    client.numeric(N.RPL_LIST, channel.name, String(visibleMembers(client, channel).length), channel.topic?.text ?? "");
  }
  client.numeric(N.RPL_LISTEND, "End of /LIST");
}

/** 332 + 333 for a channel with a topic. */
export function sendTopic(client: Connection, channel: Channel): void {
  if (!channel.topic) return;
  client.numeric(N.RPL_TOPIC, channel.name, channel.topic.text);
  client.numericBare(N.RPL_TOPICWHOTIME, channel.name, channel.topic.setBy, String(channel.topic.setAt));
}

/** 353 lines (split to fit) and 366 for one channel; non-members do not see invisible users. */
export function sendNames(client: Connection, channel: Channel): void {
  const multi = client.has("multi-prefix");
  const full = client.has("userhost-in-names");
  const symbol = channel.flags.secret ? "@" : "=";
  let line: string[] = [];
  let size = 0;
  for (const member of visibleMembers(client, channel)) {
    const entry = channel.prefix(member, multi) + (full ? member.prefix : member.nick!);
    if (size + entry.length + 1 > 400 && line.length > 0) {
      client.numeric(N.RPL_NAMREPLY, symbol, channel.name, line.join(" "));
      line = [];
      size = 0;
    }
    line.push(entry);
    size += entry.length + 1;
  }
  if (line.length > 0) client.numeric(N.RPL_NAMREPLY, symbol, channel.name, line.join(" "));
  client.numeric(N.RPL_ENDOFNAMES, channel.name, "End of /NAMES list");
}

/** Members `client` may see: all of them if it is a member, else those not +i. */
export function visibleMembers(client: Connection, channel: Channel): Connection[] {
  const all = [...channel.members.keys()];
  return channel.has(client) ? all : all.filter((m) => !m.invisible);
}
