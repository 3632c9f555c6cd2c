/**
 * CAP (IRCv3 capability negotiation, version 302): LS, LIST, REQ, END. CAP LS or REQ before
 * registration holds registration until CAP END, so a client can finish SASL first.
 */
import { hasAccounts } from "../credentials.js";
import { capabilityValue, isOffered, offeredCapabilities, type Capability } from "../capabilities.js";
import type { Connection } from "../connection.js";
import type { IrcMessage } from "../message.js";
import { N } from "../numerics.js";
import { tryRegister } from "../registration.js";
import type { ServerCore } from "../server-core.js";
import { abortSasl } from "./sasl.js";

/** CAP <subcommand> [args] */
export function handleCap(server: ServerCore, client: Connection, msg: IrcMessage): void {
  const sub = msg.params[0]!.toUpperCase();
  const offered = offeredCapabilities(hasAccounts(server.opts));
  switch (sub) {
    case "LS": {
      if (!client.registered) client.capNegotiating = true;
      const version = Number.parseInt(msg.params[1] ?? "0", 10);
      if (version >= 302) {
        client.capVersion = 302;
        // CAP LS 302 implies cap-notify (IRCv3 capability negotiation).
        client.setCap("cap-notify", true);
      }
      const tokens = offered.map((c) => {
        const v = client.capVersion >= 302 ? capabilityValue(c) : null;
        return v === null ? c : `${c}=${v}`;
      });
      sendCapList(client, "LS", tokens);
      return;
    }
    case "LIST":
      sendCapList(client, "LIST", [...client.caps]);
      return;
    case "REQ": {
      if (!client.registered) client.capNegotiating = true;
      const requested = (msg.params[1] ?? "").trim();
      const changes: [Capability, boolean][] = [];
      let ok = requested.length > 0;
      for (const token of requested.split(/\s+/)) {
        if (token.length === 0) continue;
        const off = token.startsWith("-");
        const name = off ? token.slice(1) : token;
        if (!isOffered(name, hasAccounts(server.opts))) {
          ok = false;
          break;
        }
        changes.push([name, !off]);
      }
      if (!ok) {
        client.fromServerText("CAP", client.target, "NAK", requested);
        return;
      }
      for (const [cap, on] of changes) client.setCap(cap, on);
      client.fromServerText("CAP", client.target, "ACK", requested);
      return;
    }
    case "END":
      if (client.registered) return;
      if (client.sasl) abortSasl(client);
      client.capNegotiating = false;
      tryRegister(server, client);
      return;
    default:
      client.numeric(N.ERR_INVALIDCAPCMD, msg.params[0]!, "Invalid CAP command");
  }
}

/** Sends a CAP LS/LIST reply, split over lines (`CAP * LS * :...`) for 302 clients when long. */
function sendCapList(client: Connection, sub: string, tokens: string[]): void {
  const lines: string[] = [];
  let cur = "";
  for (const t of tokens) {
    if (cur.length > 0 && cur.length + 1 + t.length > 400) {
      lines.push(cur);
      cur = t;
    } else {
      cur = cur.length > 0 ? `${cur} ${t}` : t;
    }
  }
  lines.push(cur);
  if (client.capVersion < 302) {
    client.fromServerText("CAP", client.target, sub, lines.join(" "));
    return;
  }
  lines.forEach((line, i) => {
    if (i < lines.length - 1) client.fromServerText("CAP", client.target, sub, "*", line);
    else client.fromServerText("CAP", client.target, sub, line);
  });
}
