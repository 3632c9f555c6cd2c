/**
 * The options of {@link IrcTransport} and their defaults, in one place, so the defaults the
 * docs quote (docs/irc-transport.md: 5 lines at once then one per 500 ms, 1000 queued lines,
 * reconnect 1 s to 60 s, ...) are read from one table.
 */
import type { ServerConfig } from "../config/schema.js";
import type { Logger } from "../logger.js";
import type { ChannelMarks } from "./channel-marks.js";
import { sanitizeParameter } from "./sanitize.js";
import type { IrcTransport } from "./irc-transport.js";

/** Options of {@link IrcTransport}. Times are milliseconds. */
export interface IrcTransportOptions {
  server: ServerConfig;
  /** The configured nick; `<nick>_` is used while it is taken. */
  nick: string;
  /** Channels joined after registration and rejoined after every reconnect. */
  channels: readonly string[];
  logger: Logger;
  /** USER name; default the nick (cut to 10 characters). */
  username?: string;
  /** Realname (gecos); default `culture agent <nick>`. */
  realname?: string;
  /** One outgoing line per this many ms once the burst is spent (token bucket); default 500. */
  sendIntervalMs?: number;
  /** Lines that may go out back to back; default 5. */
  sendBurst?: number;
  /** Most lines waiting to be sent (while disconnected, or behind the rate limit); default 1000. */
  queueLimit?: number;
  /** First reconnect delay; doubles per failed attempt. Default 1000. */
  reconnectMinMs?: number;
  /** Longest reconnect delay; default 60000. */
  reconnectMaxMs?: number;
  /** How often to try to take back the configured nick while using `<nick>_`; default 30000. */
  reclaimIntervalMs?: number;
  /** How long a JOIN may take to be confirmed; default 10000. */
  joinTimeoutMs?: number;
  /** How long a connection attempt may take to register; default 15000. */
  connectTimeoutMs?: number;
  /**
   * How many more times the first connection is tried when the server was reached but closed
   * it before registration (a busy machine: its registration deadline passed); default 3. A
   * refused login, ban or nick, and a server that is not there, fail at once.
   */
  firstConnectRetries?: number;
  /** How long WHO/TOPIC/PART replies may take; default 10000. */
  requestTimeoutMs?: number;
  /** How long close() waits for queued lines to go out before QUIT; default 5000. */
  closeDrainMs?: number;
  /**
   * What a previous daemon last saw per channel, and where this one records what it sees
   * (channel-marks.ts): the first join of a marked channel catches up from its mark. Without
   * it, lines said while the daemon was not running are not caught up.
   */
  marks?: ChannelMarks | null;
}

/** {@link IrcTransportOptions} with every default filled in (the connection settings apart). */
export type ResolvedTransportOptions = Required<Omit<IrcTransportOptions, "server" | "logger" | "channels" | "nick" | "marks">>;

/** Fills in the defaults; `configuredNick` is the sanitised nick (the default USER name and realname). */
export function resolveTransportOptions(options: IrcTransportOptions, configuredNick: string): ResolvedTransportOptions {
  return {
    username: stripUser(options.username ?? configuredNick),
    realname: sanitizeParameter(options.realname ?? `culture agent ${configuredNick}`),
    sendIntervalMs: options.sendIntervalMs ?? 500,
    sendBurst: options.sendBurst ?? 5,
    queueLimit: options.queueLimit ?? 1000,
    reconnectMinMs: options.reconnectMinMs ?? 1000,
    reconnectMaxMs: options.reconnectMaxMs ?? 60_000,
    reclaimIntervalMs: options.reclaimIntervalMs ?? 30_000,
    joinTimeoutMs: options.joinTimeoutMs ?? 10_000,
    connectTimeoutMs: options.connectTimeoutMs ?? 15_000,
    firstConnectRetries: options.firstConnectRetries ?? 3,
    requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
    closeDrainMs: options.closeDrainMs ?? 5_000,
  };
}

/** A USER name the server accepts: letters, digits and `_-[]\`^{}|.`, at most 10; else `culture`. */
function stripUser(user: string): string {
  const clean = user.replace(/[^A-Za-z0-9_\-[\]\\`^{}|.]/g, "").slice(0, 10);
  return clean || "culture";
}
