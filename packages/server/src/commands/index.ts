/**
 * The command table: which handler runs a command, whether it needs a registered client, how
 * many parameters it needs, and what it costs against the flood limit. Checks common to every
 * command (451, 461, 421) happen here, once.
 */
import type { Connection } from "../connection.js";
import type { IrcMessage } from "../message.js";
import { N } from "../numerics.js";
import type { ServerCore } from "../server-core.js";
import { handleAway } from "./away.js";
import { handleCap } from "./cap.js";
import { handleInvite, handleJoin, handleKick, handleList, handleNames, handlePart, handleTopic } from "./channels.js";
import { handleChathistory } from "./chathistory.js";
import { handleNotice, handlePrivmsg, handleTagmsg } from "./messaging.js";
import { handleMode } from "./mode.js";
import { handleIson, handleLusers, handleMotd, handleTime, handleUserhost, handleVersion, handleWho, handleWhois } from "./queries.js";
import { handleNick, handlePass, handleUser } from "./registration.js";
import { handleAuthenticate } from "./sasl.js";
import { handlePing, handlePong, handleQuit } from "./session.js";

/** A command handler. Parameter count and registration are checked before it runs. */
export type Handler = (server: ServerCore, client: Connection, msg: IrcMessage) => void;

interface CommandSpec {
  handler: Handler;
  /** Parameters required (fewer: 461). */
  minParams: number;
  /** Usable before registration. */
  preRegistration?: boolean;
  /** Flood-control cost (default 1). */
  penalty?: number;
}

const COMMANDS: Record<string, CommandSpec> = {
  CAP: { handler: handleCap, minParams: 1, preRegistration: true },
  AUTHENTICATE: { handler: handleAuthenticate, minParams: 1, preRegistration: true },
  PASS: { handler: handlePass, minParams: 1, preRegistration: true },
  NICK: { handler: handleNick, minParams: 0, preRegistration: true },
  USER: { handler: handleUser, minParams: 4, preRegistration: true },
  PING: { handler: handlePing, minParams: 0, preRegistration: true },
  PONG: { handler: handlePong, minParams: 0, preRegistration: true, penalty: 0 },
  QUIT: { handler: handleQuit, minParams: 0, preRegistration: true, penalty: 0 },
  JOIN: { handler: handleJoin, minParams: 1 },
  PART: { handler: handlePart, minParams: 1 },
  KICK: { handler: handleKick, minParams: 2 },
  TOPIC: { handler: handleTopic, minParams: 1 },
  INVITE: { handler: handleInvite, minParams: 2 },
  NAMES: { handler: handleNames, minParams: 0, penalty: 2 },
  LIST: { handler: handleList, minParams: 0, penalty: 3 },
  MODE: { handler: handleMode, minParams: 1 },
  PRIVMSG: { handler: handlePrivmsg, minParams: 0 },
  NOTICE: { handler: handleNotice, minParams: 0 },
  TAGMSG: { handler: handleTagmsg, minParams: 1 },
  AWAY: { handler: handleAway, minParams: 0 },
  WHO: { handler: handleWho, minParams: 0, penalty: 2 },
  WHOIS: { handler: handleWhois, minParams: 0, penalty: 2 },
  USERHOST: { handler: handleUserhost, minParams: 1 },
  ISON: { handler: handleIson, minParams: 1 },
  MOTD: { handler: handleMotd, minParams: 0, penalty: 2 },
  LUSERS: { handler: handleLusers, minParams: 0, penalty: 2 },
  VERSION: { handler: handleVersion, minParams: 0, penalty: 2 },
  TIME: { handler: handleTime, minParams: 0 },
  CHATHISTORY: { handler: handleChathistory, minParams: 1, penalty: 2 },
};

/** The flood-control cost of a message (unknown commands cost 1, like any other). */
export function penaltyOf(msg: IrcMessage): number {
  const spec = COMMANDS[msg.command];
  if (!spec) return 1;
  let cost = spec.penalty ?? 1;
  // One point per extra target, so PRIVMSG a,b,c,d costs what four PRIVMSGs do.
  if ((msg.command === "PRIVMSG" || msg.command === "NOTICE" || msg.command === "JOIN") && msg.params[0]) {
    cost += msg.params[0].split(",").length - 1;
  }
  return cost;
}

/** Runs one message from `client`. */
export function dispatch(server: ServerCore, client: Connection, msg: IrcMessage): void {
  const spec = COMMANDS[msg.command];
  if (!client.registered && !spec?.preRegistration) {
    client.numeric(N.ERR_NOTREGISTERED, "You have not registered");
    return;
  }
  if (!spec) {
    client.numeric(N.ERR_UNKNOWNCOMMAND, msg.command, "Unknown command");
    return;
  }
  if (msg.params.length < spec.minParams) {
    client.numeric(N.ERR_NEEDMOREPARAMS, msg.command, "Not enough parameters");
    return;
  }
  spec.handler(server, client, msg);
}

