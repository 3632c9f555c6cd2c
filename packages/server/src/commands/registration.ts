/**
 * PASS, NICK and USER: what a client says about itself. NICK also renames a registered
 * client; the nick is reserved as soon as it is accepted, so two clients registering at once
 * cannot end up with the same one.
 */
import { ircLower, isValidNick } from "../casemapping.js";
import type { Connection } from "../connection.js";
import { authenticate, hasAccounts, passwordMatches } from "../credentials.js";
import type { IrcMessage } from "../message.js";
import { N } from "../numerics.js";
import { completeLogin, tryRegister } from "../registration.js";
import type { ServerCore } from "../server-core.js";
import { LIMITS } from "../server-options.js";

/** PASS <password> */
export function handlePass(server: ServerCore, client: Connection, msg: IrcMessage): void {
  if (client.registered) {
    client.numeric(N.ERR_ALREADYREGISTERED, "You may not reregister");
    return;
  }
  const expected = server.opts.password;
  const given = msg.params[0]!;
  if (expected !== null) {
    client.passOk = passwordMatches(expected, given);
    return;
  }
  // Without a server password, PASS <account>:<password> logs in (for clients without SASL).
  if (!hasAccounts(server.opts) || client.account !== null || client.authPending) return;
  const colon = given.indexOf(":");
  if (colon <= 0) {
    client.numeric(N.ERR_PASSWDMISMATCH, "PASS takes <account>:<password> on this server");
    client.authFailed = true;
    return;
  }
  const account = given.slice(0, colon);
  client.authPending = true;
  void authenticate(server.opts, account, given.slice(colon + 1)).then((name) => {
    client.authPending = false;
    if (client.closed) return;
    if (name === null) {
      server.opts.logger.info("PASS login failed", { host: client.host, account });
      client.authFailed = true;
    } else {
      completeLogin(server, client, name);
    }
    tryRegister(server, client);
  });
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
  if (nick === client.nick && server.nicks.get(ircLower(nick)) === client) return;
  const outcome = server.claimNick(client, nick, !client.registered);
  if (outcome !== "ok") {
    client.numeric(N.ERR_NICKNAMEINUSE, nick, outcome === "reserved" ? "Nickname is reserved for the account of that name; log in as it" : "Nickname is already in use");
    return;
  }
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
