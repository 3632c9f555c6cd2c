/**
 * What {@link startServer} accepts, and the defaults. The defaults suit one machine: loopback
 * only, history persisted under `$CULTURE_HOME/server`, limits that a human or an agent
 * never meets but a runaway script does.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { AccountStore } from "./account-store.js";
import { ChannelRegistry } from "./channel-registry.js";

/**
 * Where the server logs. Structurally the same as `@culture/core`'s Logger, so a core
 * logger can be passed in; this package has no dependencies.
 */
export interface ServerLogger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Per-client command rate limit: a token bucket of command "penalty" points. */
export interface FloodOptions {
  /** Commands a client may send at once before it is throttled. Default 30. */
  burst?: number;
  /** Sustained commands per second once the burst is used. Default 10. */
  perSecond?: number;
  /** Throttled commands held for a client; one more disconnects it ("Excess Flood"). Default 300. */
  maxQueued?: number;
}

/** Options of {@link startServer}. */
export interface ServerOptions {
  /** Interface to bind. Default `127.0.0.1` (loopback only). */
  host?: string;
  /** TCP port; 0 picks a free one (read it back from `server.port`). Default 6667. */
  port?: number;
  /** Server name in prefixes and numerics. Default `culture.local`. */
  name?: string;
  /** NETWORK in ISUPPORT. Default `culture`. */
  network?: string;
  /**
   * Where channel history is persisted. Default `$CULTURE_HOME/server` (`~/.culture/server`);
   * `null` keeps history in memory only.
   */
  stateDir?: string | null;
  /** SASL PLAIN accounts, `{ account: password }`. SASL is offered only when there are some. */
  accounts?: Record<string, string>;
  /**
   * The account store file (see `account-store.ts`): accounts with scrypt-hashed passwords,
   * re-read when it changes. Default none (`culture-ircd` passes `<stateDir>/accounts.json`).
   */
  accountsFile?: string | null;
  /**
   * The channel registry file (see `channel-registry.ts`): channels owned by accounts, where
   * only the owners get ops and owners always get in. Re-read when it changes. Default none
   * (`culture-ircd` passes `<stateDir>/channels.json`, which `culture server start` writes
   * from agents.yaml).
   */
  channelsFile?: string | null;
  /**
   * Let clients that did not log in register. Default: false with an account store
   * (`accountsFile`: what `culture-ircd` and `culture server start` run), true without one
   * (a server embedded in a test or a program, with or without in-memory `accounts`).
   */
  open?: boolean;
  /** Connection password (PASS) every client must send. Default none. */
  password?: string | null;
  /** Messages kept per channel for CHATHISTORY. Default 1000. */
  historySize?: number;
  /** Write-behind delay for history files, ms. Default 1000. */
  historyFlushMs?: number;
  /** A registered client silent this long is sent a PING, ms. Default 90 000. */
  idleTimeoutMs?: number;
  /** A client that does not answer a PING within this is disconnected, ms. Default 60 000. */
  pingTimeoutMs?: number;
  /** A connection that has not registered within this is disconnected, ms. Default 10 000. */
  registrationTimeoutMs?: number;
  /**
   * Registered clients that are not logged in, from one address. Default 128 (all of
   * 127.0.0.0/8 counts as one address). Logged-in clients count against their account instead,
   * so anonymous connections can never lock an account's owner out.
   */
  maxClientsPerIp?: number;
  /**
   * Connections still registering from one address. Default 64; a new connection beyond it
   * closes the oldest one that is not logged in or checking a password (so idle half-open
   * connections cannot keep anyone out, and a fleet of agents starting at once still fits).
   */
  maxUnregisteredPerIp?: number;
  /** Registered clients logged in as one account. Default 32. */
  maxClientsPerAccount?: number;
  /** Simultaneous connections in total. Default 4096. */
  maxClients?: number;
  /** Unsent output a client may accumulate before it is disconnected ("SendQ exceeded"). Default 8 MiB. */
  maxSendQBytes?: number;
  /** Per-client flood control, or `false` to turn it off (benchmarks). */
  flood?: FloodOptions | false;
  /** Message of the day (lines); default none (ERR_NOMOTD). */
  motd?: string[];
  /** Where to log; default nowhere. */
  logger?: ServerLogger;
}

/** Options with every default filled in. */
export interface ResolvedOptions {
  host: string;
  port: number;
  name: string;
  network: string;
  stateDir: string | null;
  accounts: Map<string, string>;
  accountStore: AccountStore | null;
  channelRegistry: ChannelRegistry | null;
  open: boolean;
  password: string | null;
  historySize: number;
  historyFlushMs: number;
  idleTimeoutMs: number;
  pingTimeoutMs: number;
  registrationTimeoutMs: number;
  maxClientsPerIp: number;
  maxUnregisteredPerIp: number;
  maxClientsPerAccount: number;
  maxClients: number;
  maxSendQBytes: number;
  flood: Required<FloodOptions> | null;
  motd: string[];
  logger: ServerLogger;
}

/** Protocol limits advertised in ISUPPORT and enforced by the handlers. */
export const LIMITS = {
  NICKLEN: 32,
  CHANNELLEN: 64,
  TOPICLEN: 390,
  KICKLEN: 390,
  AWAYLEN: 200,
  USERLEN: 16,
  HOSTLEN: 64,
  /** Channels one client may be in. */
  CHANLIMIT: 100,
  /** Targets per PRIVMSG/NOTICE/TAGMSG. */
  MAXTARGETS: 4,
  /** Mode changes with a parameter per MODE command. */
  MODES: 4,
  /** Entries in a channel's ban list. */
  MAXBANS: 100,
  /** Messages per CHATHISTORY request at most. */
  CHATHISTORY: 1000,
} as const;

/** The software version in 002/004/351. */
export const SERVER_VERSION = "culture-ircd-0.1.0";

/** `$CULTURE_HOME/server`, the same rule as `@culture/core`'s paths (this package has no dependencies). */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.CULTURE_HOME;
  return join(home && home.length > 0 ? resolve(home) : join(homedir(), ".culture"), "server");
}

/** Fills in defaults and checks numbers, throwing a RangeError that names the option. */
export function resolveOptions(opts: ServerOptions): ResolvedOptions {
  const flood = opts.flood === false ? null : { burst: 30, perSecond: 10, maxQueued: 300, ...(opts.flood ?? {}) };
  const resolved: ResolvedOptions = {
    host: opts.host ?? "127.0.0.1",
    port: opts.port ?? 6667,
    name: opts.name ?? "culture.local",
    network: opts.network ?? "culture",
    stateDir: opts.stateDir === undefined ? defaultStateDir() : opts.stateDir,
    accounts: new Map(Object.entries(opts.accounts ?? {})),
    accountStore: opts.accountsFile ? new AccountStore(opts.accountsFile) : null,
    channelRegistry: opts.channelsFile ? new ChannelRegistry(opts.channelsFile, (m) => (opts.logger ?? NULL_LOGGER).error(m)) : null,
    open: opts.open ?? !opts.accountsFile,
    password: opts.password ?? null,
    historySize: opts.historySize ?? 1000,
    historyFlushMs: opts.historyFlushMs ?? 1000,
    idleTimeoutMs: opts.idleTimeoutMs ?? 90_000,
    pingTimeoutMs: opts.pingTimeoutMs ?? 60_000,
    registrationTimeoutMs: opts.registrationTimeoutMs ?? 10_000,
    maxClientsPerIp: opts.maxClientsPerIp ?? 128,
    maxUnregisteredPerIp: opts.maxUnregisteredPerIp ?? 64,
    maxClientsPerAccount: opts.maxClientsPerAccount ?? 32,
    maxClients: opts.maxClients ?? 4096,
    maxSendQBytes: opts.maxSendQBytes ?? 8 * 1024 * 1024,
    flood,
    motd: opts.motd ?? [],
    logger: opts.logger ?? NULL_LOGGER,
  };
  const positive: (keyof ResolvedOptions)[] = [
    "idleTimeoutMs", "pingTimeoutMs", "registrationTimeoutMs", "maxClientsPerIp", "maxUnregisteredPerIp", "maxClientsPerAccount", "maxClients", "maxSendQBytes",
  ];
  for (const key of positive) {
    const v = resolved[key];
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) throw new RangeError(`startServer: ${key} must be a positive number, got ${String(v)}`);
  }
  if (!Number.isInteger(resolved.port) || resolved.port < 0 || resolved.port > 65535) {
    throw new RangeError(`startServer: port must be an integer from 0 to 65535, got ${resolved.port}`);
  }
  if (!Number.isInteger(resolved.historySize) || resolved.historySize < 0) {
    throw new RangeError(`startServer: historySize must be a non-negative integer, got ${resolved.historySize}`);
  }
  if (!/^[A-Za-z0-9.-]+$/.test(resolved.name) || !resolved.name.includes(".")) {
    // A server name must look like a host name with a dot, or clients take it for a nick.
    throw new RangeError(`startServer: name must be a host-like name with a dot (e.g. culture.local), got "${resolved.name}"`);
  }
  if (flood && (flood.burst < 1 || flood.perSecond <= 0 || flood.maxQueued < 0)) {
    throw new RangeError("startServer: flood.burst must be >= 1, flood.perSecond > 0 and flood.maxQueued >= 0");
  }
  return resolved;
}

const noop = (): void => {};
const NULL_LOGGER: ServerLogger = { debug: noop, info: noop, warn: noop, error: noop };
