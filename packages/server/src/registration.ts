/**
 * Completing registration and the welcome burst. A client is registered once it has a nick
 * and a user, is not in the middle of CAP negotiation, and gave the server password when one
 * is set; then it gets 001-005, LUSERS and the MOTD, in that order, as clients expect.
 */
import type { Connection } from "./connection.js";
import { isupportLines } from "./isupport.js";
import { N } from "./numerics.js";
import type { ServerCore } from "./server-core.js";
import { SERVER_VERSION } from "./server-options.js";

/** Registers the client if everything is in place (called after NICK, USER and CAP END). */
export function tryRegister(server: ServerCore, client: Connection): void {
  if (client.registered || client.closed || client.nick === null || client.user === null || client.capNegotiating) return;
  if (!client.passOk) {
    client.numeric(N.ERR_PASSWDMISMATCH, "Password incorrect");
    server.disconnect(client, "Bad password");
    return;
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
