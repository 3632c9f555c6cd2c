/**
 * PASS, NICK and USER: what a client says about itself. NICK also renames a registered
 * client; the nick is reserved as soon as it is accepted, so two clients registering at once
 * cannot end up with the same one.
 */
import { ircLower, isValidNick } from "../casemapping.js";
import type { Connection } from "../connection.js";
import { passwordMatches } from "../credentials.js";
import type { IrcMessage } from "../message.js";
import { N } from "../numerics.js";
import { tryRegister } from "../registration.js";
import type { ServerCore } from "../server-core.js";
import { LIMITS } from "../server-options.js";

/** PASS <password> */
export function handlePass(server: ServerCore, client: Connection, msg: IrcMessage): void {
  if (client.registered) {
    client.numeric(N.ERR_ALREADYREGISTERED, "You may not reregister");
    return;
  }
  const expected = server.opts.password;
  if (expected !== null) client.passOk = passwordMatches(expected, msg.params[0]!);
}

/** NICK <nick> */
export function handleNick(server: ServerCore, client: Connection, msg: IrcMessage): void {
  const nick = msg.params[0];
  if (nick === undefined || nick.length === 0) {
    client.numeric(N.ERR_NONICKNAMEGIVEN, "No nickname given");
    return;
  }
  if (!isValidNick(nick, LIMITS.NICKLEN)) {
    client.numeric(N.ERR_ERRONEUSNICKNAME, nick, "Erroneous nickname");
    return;
  }
  if (nick === client.nick) return;
  const holder = server.nicks.get(ircLower(nick));
  if (holder && holder !== client) {
    client.numeric(N.ERR_NICKNAMEINUSE, nick, "Nickname is already in use");
    return;
  }
  server.changeNick(client, nick);
  tryRegister(server, client);
}

/** USER <username> <mode> <unused> :<realname> */
export function handleUser(server: ServerCore, client: Connection, msg: IrcMessage): void {
  if (client.registered) {
    client.numeric(N.ERR_ALREADYREGISTERED, "You may not reregister");
    return;
  }
  // No ident lookup: the username is the client's claim, marked with `~` as ircds do.
  const clean = msg.params[0]!.replace(/[^A-Za-z0-9._\-[\]\\`^{}|]/g, "").slice(0, LIMITS.USERLEN - 1);
  if (clean.length === 0) {
    client.numeric(N.ERR_NEEDMOREPARAMS, "USER", "Not enough parameters");
    return;
  }
  client.user = `~${clean}`;
  client.realname = msg.params[3]!;
  tryRegister(server, client);
}
