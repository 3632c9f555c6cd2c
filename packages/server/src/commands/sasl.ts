/**
 * AUTHENTICATE: SASL PLAIN (IRCv3 sasl-3.2) against the accounts given in the server
 * options. The payload arrives base64-encoded in chunks of 400 bytes; a chunk shorter than
 * 400 (or a lone `+`) ends it.
 */
import type { Connection } from "../connection.js";
import { authenticate, hasAccounts } from "../credentials.js";
import { completeLogin, tryRegister } from "../registration.js";
import type { IrcMessage } from "../message.js";
import { N } from "../numerics.js";
import type { ServerCore } from "../server-core.js";

const CHUNK = 400;
/** Longest decoded payload accepted (authzid, authcid and password together). */
const MAX_PAYLOAD_B64 = 4 * CHUNK;

/** AUTHENTICATE <mechanism | chunk | + | *> */
export function handleAuthenticate(server: ServerCore, client: Connection, msg: IrcMessage): void {
  const arg = msg.params[0]!;
  if (!hasAccounts(server.opts) || !client.has("sasl")) {
    client.numeric(N.ERR_SASLFAIL, "SASL authentication failed");
    return;
  }
  if (client.account !== null || client.authPending) {
    client.numeric(N.ERR_SASLALREADY, "You have already authenticated using SASL");
    return;
  }
  if (arg === "*") {
    abortSasl(client);
    return;
  }
  if (client.sasl === null) {
    if (arg.toUpperCase() !== "PLAIN") {
      client.numeric(N.RPL_SASLMECHS, "PLAIN", "are available SASL mechanisms");
      client.numeric(N.ERR_SASLFAIL, "SASL authentication failed");
      return;
    }
    client.sasl = { mechanism: "PLAIN", buffer: "" };
    client.send("AUTHENTICATE +");
    return;
  }
  if (arg.length > CHUNK || client.sasl.buffer.length + arg.length > MAX_PAYLOAD_B64) {
    client.sasl = null;
    client.numeric(N.ERR_SASLTOOLONG, "SASL message too long");
    return;
  }
  if (arg !== "+") client.sasl.buffer += arg;
  if (arg.length === CHUNK) return; // more to come
  const payload = Buffer.from(client.sasl.buffer, "base64").toString("utf8");
  client.sasl = null;
  const [authzid, authcid, password, ...rest] = payload.split("\0");
  const wellFormed = rest.length === 0 && authcid !== undefined && password !== undefined && (authzid === "" || authzid === authcid);
  client.authPending = true;
  void (wellFormed ? authenticate(server.opts, authcid, password) : Promise.resolve(null)).then((account) => {
    client.authPending = false;
    if (client.closed) return;
    if (account === null) {
      server.opts.logger.info("SASL login failed", { host: client.host, account: authcid ?? "" });
      client.numeric(N.ERR_SASLFAIL, "SASL authentication failed");
      client.authFailed = true;
    } else if (completeLogin(server, client, account)) {
      client.numeric(N.RPL_SASLSUCCESS, "SASL authentication successful");
    }
    tryRegister(server, client); // in case CAP END came while the password was being checked
  });
}

/** Ends a SASL exchange in progress with 906 (client sent `*`, or CAP END mid-exchange). */
export function abortSasl(client: Connection): void {
  client.sasl = null;
  client.numeric(N.ERR_SASLABORTED, "SASL authentication aborted");
}
