/**
 * MODE for channels (+b +i +k +l +m +n +o +s +t +v) and users (+i). Changes need channel
 * operator status; the applied changes go out to the channel as one MODE line, and a change
 * that changes nothing (+o on an op) is left out of it.
 */
import { isChannelName } from "../casemapping.js";
import type { Channel, ChannelFlags } from "../channel.js";
import type { Connection } from "../connection.js";
import type { IrcMessage } from "../message.js";
import { N } from "../numerics.js";
import type { ServerCore } from "../server-core.js";
import { LIMITS } from "../server-options.js";
import { normalizeBanMask } from "../wildcard.js";

const FLAG_MODES: Record<string, keyof ChannelFlags> = { i: "inviteOnly", m: "moderated", n: "noExternal", s: "secret", t: "topicLock" };

/** MODE <target> [modestring [params...]] */
export function handleMode(server: ServerCore, client: Connection, msg: IrcMessage): void {
  const target = msg.params[0]!;
  if (isChannelName(target)) channelMode(server, client, msg);
  else userMode(server, client, msg);
}

function channelMode(server: ServerCore, client: Connection, msg: IrcMessage): void {
  const channel = server.findChannel(msg.params[0]!);
  if (!channel || (channel.flags.secret && !channel.has(client))) {
    return void client.numeric(N.ERR_NOSUCHCHANNEL, msg.params[0]!, "No such channel");
  }
  const modestring = msg.params[1];
  if (modestring === undefined) {
    client.numericBare(N.RPL_CHANNELMODEIS, channel.name, ...channel.modeString(channel.has(client)));
    client.numericBare(N.RPL_CREATIONTIME, channel.name, String(channel.createdAt));
    return;
  }
  const args = msg.params.slice(2);
  const isOp = channel.isOp(client);
  const applied: { sign: "+" | "-"; mode: string; param?: string }[] = [];
  let sign: "+" | "-" = "+";
  let withParam = 0;
  let deniedSent = false;
  const denied = (): boolean => {
    if (isOp) return false;
    if (!deniedSent) client.numeric(N.ERR_CHANOPRIVSNEEDED, channel.name, "You're not channel operator");
    deniedSent = true;
    return true;
  };
  for (const ch of modestring) {
    if (ch === "+" || ch === "-") {
      sign = ch;
      continue;
    }
    const flag = FLAG_MODES[ch];
    if (flag) {
      if (denied()) continue;
      const on = sign === "+";
      if (channel.flags[flag] !== on) {
        channel.flags[flag] = on;
        applied.push({ sign, mode: ch });
      }
      continue;
    }
    switch (ch) {
      case "o":
      case "v": {
        const nick = args.shift();
        if (nick === undefined) {
          client.numeric(N.ERR_NEEDMOREPARAMS, "MODE", "Not enough parameters");
          continue;
        }
        if (denied() || ++withParam > LIMITS.MODES) continue;
        const user = server.findUser(nick);
        if (!user) {
          client.numeric(N.ERR_NOSUCHNICK, nick, "No such nick/channel");
          continue;
        }
        const m = channel.members.get(user);
        if (!m) {
          client.numeric(N.ERR_USERNOTINCHANNEL, user.nick!, channel.name, "They aren't on that channel");
          continue;
        }
        const key = ch === "o" ? "op" : "voice";
        if (m[key] !== (sign === "+")) {
          m[key] = sign === "+";
          applied.push({ sign, mode: ch, param: user.nick! });
        }
        continue;
      }
      case "k": {
        const key = args.shift();
        if (sign === "+" && (key === undefined || key.length === 0)) {
          client.numeric(N.ERR_NEEDMOREPARAMS, "MODE", "Not enough parameters");
          continue;
        }
        if (denied() || ++withParam > LIMITS.MODES) continue;
        if (sign === "+") {
          const clean = key!.replace(/[\s,:]/g, "").slice(0, 32);
          if (clean.length === 0) {
            client.numeric(N.ERR_INVALIDMODEPARAM, channel.name, "k", key!, "Invalid key");
            continue;
          }
          if (channel.password !== null) {
            client.numeric(N.ERR_KEYSET, channel.name, "Channel key already set");
            continue;
          }
          channel.password = clean;
          applied.push({ sign, mode: "k", param: clean });
        } else if (channel.password !== null) {
          channel.password = null;
          applied.push({ sign, mode: "k", param: "*" });
        }
        continue;
      }
      case "l": {
        if (sign === "-") {
          if (denied()) continue;
          if (channel.limit !== null) {
            channel.limit = null;
            applied.push({ sign, mode: "l" });
          }
          continue;
        }
        const value = args.shift();
        if (value === undefined) {
          client.numeric(N.ERR_NEEDMOREPARAMS, "MODE", "Not enough parameters");
          continue;
        }
        if (denied() || ++withParam > LIMITS.MODES) continue;
        const limit = /^\d{1,9}$/.test(value) ? Number(value) : 0;
        if (limit <= 0) {
          client.numeric(N.ERR_INVALIDMODEPARAM, channel.name, "l", value, "Invalid limit");
          continue;
        }
        if (channel.limit !== limit) {
          channel.limit = limit;
          applied.push({ sign, mode: "l", param: String(limit) });
        }
        continue;
      }
      case "b": {
        const mask = args.shift();
        if (mask === undefined) {
          sendBanList(client, channel);
          continue;
        }
        if (denied() || ++withParam > LIMITS.MODES) continue;
        const full = normalizeBanMask(mask);
        const idx = channel.bans.findIndex((b) => b.mask === full);
        if (sign === "+" && idx === -1) {
          if (channel.bans.length >= LIMITS.MAXBANS) {
            client.numeric(N.ERR_BANLISTFULL, channel.name, "b", "Channel ban list is full");
            continue;
          }
          channel.bans.push({ mask: full, setBy: client.prefix, setAt: Math.floor(Date.now() / 1000) });
          applied.push({ sign, mode: "b", param: full });
        } else if (sign === "-" && idx !== -1) {
          channel.bans.splice(idx, 1);
          applied.push({ sign, mode: "b", param: full });
        }
        continue;
      }
      default:
        client.numeric(N.ERR_UNKNOWNMODE, ch, "is unknown mode char to me");
    }
  }
  if (applied.length === 0) return;
  let modes = "";
  let last = "";
  const params: string[] = [];
  for (const a of applied) {
    if (a.sign !== last) modes += a.sign;
    last = a.sign;
    modes += a.mode;
    if (a.param !== undefined) params.push(a.param);
  }
  server.toChannel(channel, server.relayFrom(client, "MODE", [channel.name, modes, ...params]));
}

function sendBanList(client: Connection, channel: Channel): void {
  for (const ban of channel.bans) {
    client.numericBare(N.RPL_BANLIST, channel.name, ban.mask, ban.setBy, String(ban.setAt));
  }
  client.numeric(N.RPL_ENDOFBANLIST, channel.name, "End of channel ban list");
}

function userMode(server: ServerCore, client: Connection, msg: IrcMessage): void {
  const nick = msg.params[0]!;
  const user = server.findUser(nick);
  if (!user) return void client.numeric(N.ERR_NOSUCHNICK, nick, "No such nick/channel");
  if (user !== client) return void client.numeric(N.ERR_USERSDONTMATCH, "Can't change mode for other users");
  const modestring = msg.params[1];
  if (modestring === undefined) return void client.numericBare(N.RPL_UMODEIS, client.invisible ? "+i" : "+");
  let sign = "+";
  let changed = "";
  let lastSign = "";
  let unknown = false;
  for (const ch of modestring) {
    if (ch === "+" || ch === "-") {
      sign = ch;
      continue;
    }
    if (ch !== "i") {
      unknown = true;
      continue;
    }
    if (client.invisible !== (sign === "+")) {
      client.invisible = sign === "+";
      if (sign !== lastSign) changed += sign;
      lastSign = sign;
      changed += ch;
    }
  }
  if (unknown) client.numeric(N.ERR_UMODEUNKNOWNFLAG, "Unknown MODE flag");
  if (changed.length > 0) client.send(server.relayFrom(client, "MODE", [client.nick!, changed], { trailing: true }).lineFor(client.tagBits));
}
