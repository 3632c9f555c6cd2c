/**
 * The events an {@link IrcTransport} emits, typed for its EventEmitter, with the payloads that
 * are more than a name. The daemon subscribes to these (messages become prompts and buffer
 * lines; nick, kick and join errors become alerts).
 */
import type { IrcMessageEvent } from "../events.js";
import type { IrcTransport } from "./irc-transport.js";

/** We were kicked. */
export interface IrcKickEvent {
  channel: string;
  by: string;
  reason: string;
}

/** The server refused a JOIN, or did not confirm it in time (`code: "timeout"`). */
export interface IrcJoinErrorEvent {
  channel: string;
  code: string;
  reason: string;
}

/** Someone else joined a channel we are in. */
export interface IrcMemberJoinEvent {
  channel: string;
  nick: string;
  /** Their account from extended-join (null: not logged in); undefined when the server does not say (ask WHO). */
  account: string | null | undefined;
}

/** The events of {@link IrcTransport}. */
export interface IrcTransportEvents {
  /**
   * Someone else's PRIVMSG, NOTICE or ACTION, once each (a line repeated by the server, e.g.
   * for `PRIVMSG a,a`, is dropped). History replays are included only as catch-up after a
   * reconnect (`replayed: true`; see catch-up.ts).
   */
  message: [event: IrcMessageEvent];
  /** One of our own lines, echoed back by the server (echo-message). */
  selfMessage: [event: IrcMessageEvent];
  /** Registered with the server (after every reconnect too), with the nick we got. */
  registered: [nick: string];
  /** The registered connection was lost (a reconnect is scheduled unless closing). */
  disconnected: [reason: string];
  joined: [channel: string];
  /** Someone else joined one of our channels. */
  memberJoined: [event: IrcMemberJoinEvent];
  parted: [channel: string];
  kicked: [event: IrcKickEvent];
  joinError: [event: IrcJoinErrorEvent];
  /** Our current nick changed. */
  nick: [nick: string];
  /** The nick we asked for at registration is taken (we fall back to `<nick>_`). */
  nickInUse: [nick: string];
}
