/**
 * Completing registration and the welcome burst. A client is registered once it has a nick
 * and a user, is not in the middle of CAP negotiation, and gave the server password when one
 * is set; then it gets 001-005, LUSERS and the MOTD, in that order, as clients expect.
 */
import { ircLower } from "./casemapping.js";
import type { Connection } from "./connection.js";
import { isupportLines } from "./isupport.js";
import { N } from "./numerics.js";
import type { ServerCore } from "./server-core.js";
import { SERVER_VERSION } from "./server-options.js";

/** Registers the client if everything is in place (called after NICK, USER and CAP END). */
export function tryRegister(server: ServerCore, client: Connection): void {
  if (client.registered || client.closed || client.nick === null || client.user === null || client.capNegotiating || client.authPending) return;
  if (!client.passOk) {
    client.numeric(N.ERR_PASSWDMISMATCH, "Password incorrect");
    server.disconnect(client, "Bad password");
    return;
  }
  if (client.account === null && !server.opts.open) {
    const why = client.authFailed ? "Login failed: wrong account or password" : "This server requires an account";
    client.fail("*", "ACCOUNT_REQUIRED", `${why}. Log in with SASL PLAIN or PASS <account>:<password>; the server's owner adds accounts with: culture server user add <name>`);
    client.numeric(N.ERR_PASSWDMISMATCH, why);
    server.opts.logger.info("refused a client without an account", { host: client.host, nick: client.nick, failed: client.authFailed });
    server.disconnect(client, `${why} (log in with SASL PLAIN or PASS account:password)`);
    return;
  }
  if (client.account === null && server.anonymousFrom(client.ip) >= server.opts.maxClientsPerIp) {
    server.disconnect(client, "Too many connections from your IP");
    return;
  }
  // A nick that belongs to an account is claimed only now, when we know who logged in.
  if (server.nicks.get(ircLower(client.nick)) !== client) {
    const outcome = server.claimNick(client, client.nick, false);
    if (outcome !== "ok") {
      const nick = client.nick;
      client.nick = null;
      client.numeric(N.ERR_NICKNAMEINUSE, nick, outcome === "reserved" ? "Nickname is reserved for the account of that name; log in as it" : "Nickname is already in use");
      return;
    }
  }
  client.registered = true;
  server.registeredCount++;
  client.startIdleTimer();
  const { name, network } = server.opts;
  client.numeric(N.RPL_WELCOME, `Welcome to the ${network} IRC Network ${client.prefix}`);
  client.numeric(N.RPL_YOURHOST, `Your host is ${name}, running version ${SERVER_VERSION}`);
  client.numeric(N.RPL_CREATED, `This server was created ${server.startedAt.toUTCString()}`);
  client.numericBare(N.RPL_MYINFO, name, SERVER_VERSION, "i", "biklmnostv", "bklov");
  sendIsupport(server, client);
  sendLusers(server, client);
  sendMotd(server, client);
  server.opts.logger.debug("client registered", { nick: client.nick, host: client.host, account: client.account });
}

/** The 005 lines. */
export function sendIsupport(server: ServerCore, client: Connection): void {
  for (const tokens of isupportLines(server.opts)) client.numeric(N.RPL_ISUPPORT, ...tokens, "are supported by this server");
}

/** 251-255, 265, 266: user, channel and connection counts. */
export function sendLusers(server: ServerCore, client: Connection): void {
  let invisible = 0;
  for (const c of server.connections) if (c.registered && c.invisible) invisible++;
  const users = server.registeredCount;
  const unknown = server.connections.size - users;
  client.numeric(N.RPL_LUSERCLIENT, `There are ${users - invisible} users and ${invisible} invisible on 1 servers`);
  client.numeric(N.RPL_LUSEROP, "0", "operator(s) online");
  if (unknown > 0) client.numeric(N.RPL_LUSERUNKNOWN, String(unknown), "unknown connection(s)");
  client.numeric(N.RPL_LUSERCHANNELS, String(server.channels.size), "channels formed");
  client.numeric(N.RPL_LUSERME, `I have ${users} clients and 0 servers`);
  client.numeric(N.RPL_LOCALUSERS, String(users), String(users), `Current local users ${users}, max ${users}`);
  client.numeric(N.RPL_GLOBALUSERS, String(users), String(users), `Current global users ${users}, max ${users}`);
}

/** The MOTD, or 422 when there is none. */
export function sendMotd(server: ServerCore, client: Connection): void {
  const motd = server.opts.motd;
  if (motd.length === 0) {
    client.numeric(N.ERR_NOMOTD, "MOTD File is missing");
    return;
  }
  client.numeric(N.RPL_MOTDSTART, `- ${server.opts.name} Message of the day - `);
  for (const line of motd) client.numeric(N.RPL_MOTD, `- ${line}`);
  client.numeric(N.RPL_ENDOFMOTD, "End of /MOTD command.");
}

/**
 * Logs `client` in as `account` after its password was checked (SASL or PASS): 900, then
 * registration may go on. Refused (904, false) when the account already has its maximum of
 * connections.
 */
export function completeLogin(server: ServerCore, client: Connection, account: string): boolean {
  if (server.connectionsOf(account) >= server.opts.maxClientsPerAccount) {
    server.opts.logger.warn("login refused: too many connections for the account", { account, host: client.host });
    client.numeric(N.ERR_SASLFAIL, `Too many connections for account ${account}`);
    client.authFailed = true;
    return false;
  }
  client.account = account;
  client.authFailed = false;
  client.numeric(N.RPL_LOGGEDIN, client.prefix, account, `You are now logged in as ${account}`);
  server.opts.logger.debug("client logged in", { account, host: client.host });
  return true;
}
