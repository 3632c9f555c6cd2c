/**
 * The server's shared state and the operations that touch more than one client: accepting
 * connections (with per-IP and total limits), the nick and channel tables, fan-out to
 * channel members and peers, nick changes and disconnects. Command handlers call into it.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server, type Socket } from "node:net";
import { ircLower } from "./casemapping.js";
import type { Channel } from "./channel.js";
import { Connection } from "./connection.js";
import { nickOwner } from "./credentials.js";
import { stateDirFailed } from "./errors.js";
import { HistoryStore } from "./history-store.js";
import { RelayedMessage } from "./outgoing.js";
import type { ResolvedOptions } from "./server-options.js";

/** The running server's state. */
export class ServerCore {
  /** Folded nick -> client (also holds nicks of clients still registering). */
  readonly nicks = new Map<string, Connection>();
  /** Folded name -> channel. */
  readonly channels = new Map<string, Channel>();
  readonly connections = new Set<Connection>();
  readonly history: HistoryStore;
  /** When the server started (RPL_CREATED). */
  readonly startedAt = new Date();
  registeredCount = 0;
  private readonly listener: Server;
  private flushList: Connection[] = [];
  private flushScheduled = false;
  private readonly msgidPrefix = randomBytes(6).toString("base64url");
  private msgidCounter = 0;
  private closing = false;

  constructor(readonly opts: ResolvedOptions) {
    this.history = new HistoryStore({ size: opts.historySize, dir: opts.stateDir, flushDelayMs: opts.historyFlushMs, logger: opts.logger });
    this.listener = createServer({ noDelay: true }, (socket) => this.accept(socket));
  }

  /** Loads history, then listens; resolves with the bound address. */
  async listen(): Promise<{ host: string; port: number }> {
    try {
      await this.history.load();
      this.opts.accountStore?.ensure();
    } catch (err) {
      throw stateDirFailed(this.opts.stateDir ?? this.opts.accountStore?.path ?? "", err);
    }
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error): void => reject(err);
      this.listener.once("error", onError);
      this.listener.listen(this.opts.port, this.opts.host, () => {
        this.listener.off("error", onError);
        resolve();
      });
    });
    this.listener.on("error", (err) => this.opts.logger.error("listener error", { error: err.message }));
    const addr = this.listener.address();
    const port = typeof addr === "object" && addr ? addr.port : this.opts.port;
    return { host: this.opts.host, port };
  }

  /** A fresh message id, unique across restarts. */
  nextMsgid(): string {
    return `${this.msgidPrefix}${(this.msgidCounter++).toString(36)}`;
  }

  /** Looks up a registered client by nick. */
  findUser(nick: string): Connection | undefined {
    const c = this.nicks.get(ircLower(nick));
    return c && c.registered ? c : undefined;
  }

  /** Looks up a channel by name. */
  findChannel(name: string): Channel | undefined {
    return this.channels.get(ircLower(name));
  }

  /** Asks for `client.flush()` once this turn of the event loop has handled its I/O. */
  queueFlush(client: Connection): void {
    this.flushList.push(client);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      const list = this.flushList;
      this.flushList = [];
      for (const c of list) c.flush();
    });
  }

  /**
   * A message from `client` stamped with the server time; PRIVMSG/NOTICE/TAGMSG pass a msgid.
   * `trailing` writes the last parameter as `:text` (for text: messages, reasons, topics).
   */
  relayFrom(
    client: Connection,
    command: string,
    params: readonly string[],
    extra: { msgid?: string; clientTags?: Record<string, string> | null; time?: string; trailing?: boolean } = {},
  ): RelayedMessage {
    return new RelayedMessage(
      client.prefix,
      command,
      params,
      { time: extra.time ?? new Date().toISOString(), msgid: extra.msgid ?? null, account: client.account, clientTags: extra.clientTags ?? null },
      extra.trailing ?? false,
    );
  }

  /** Sends `msg` to every member of `channel` (except `except`), each with its own tags. */
  toChannel(channel: Channel, msg: RelayedMessage, except?: Connection): void {
    for (const member of channel.members.keys()) {
      if (member === except) continue;
      member.sendBytes(msg.bytesFor(member.tagBits));
    }
  }

  /** Every client sharing a channel with `client`, without `client` itself. */
  peersOf(client: Connection): Set<Connection> {
    const peers = new Set<Connection>();
    for (const channel of client.channels) for (const m of channel.members.keys()) if (m !== client) peers.add(m);
    return peers;
  }

  /** Removes `client` from `channel`, deleting the channel when it empties. */
  leaveChannel(client: Connection, channel: Channel): void {
    channel.members.delete(client);
    client.channels.delete(channel);
    if (channel.members.size === 0) this.channels.delete(channel.key);
  }

  /**
   * Gives `nick` to `client` if it may have it: "taken" when another client holds it,
   * "reserved" when it is the name of an account the client is not logged in as. The owner of
   * an account always gets its nick, at once: whoever holds it is disconnected ("ghosted"),
   * e.g. the owner's own previous connection that has not timed out yet. With `pending`, a
   * client still registering (that may yet log in) keeps an account's nick unclaimed until
   * registration decides.
   */
  claimNick(client: Connection, nick: string, pending: boolean): "ok" | "taken" | "reserved" {
    const key = ircLower(nick);
    const holder = this.nicks.get(key);
    const owner = nickOwner(this.opts, nick);
    if (owner !== null) {
      const isOwner = client.account !== null && ircLower(client.account) === ircLower(owner);
      if (!isOwner) {
        if (!pending) return "reserved";
        this.releaseNick(client);
        client.nick = nick;
        return "ok";
      }
      if (holder && holder !== client) {
        this.opts.logger.info("nick taken back by its account", { nick, account: owner, from: holder.host });
        this.disconnect(holder, `Ghosted: ${owner} logged in and took back its nick`);
      }
      this.changeNick(client, nick);
      return "ok";
    }
    if (holder && holder !== client) return "taken";
    this.changeNick(client, nick);
    return "ok";
  }

  /** Drops `client`'s claim on its nick in the nick table (if it holds one). */
  private releaseNick(client: Connection): void {
    if (client.nick !== null && this.nicks.get(ircLower(client.nick)) === client) this.nicks.delete(ircLower(client.nick));
  }

  /** Registered clients from `ip`'s address that are not logged in. */
  anonymousFrom(ip: string): number {
    const key = addressKey(ip);
    let n = 0;
    for (const c of this.connections) if (c.registered && c.account === null && !c.closed && addressKey(c.ip) === key) n++;
    return n;
  }

  /** Clients logged in as `account` (registered or still registering). */
  connectionsOf(account: string): number {
    const key = ircLower(account);
    let n = 0;
    for (const c of this.connections) if (c.account !== null && !c.closed && ircLower(c.account) === key) n++;
    return n;
  }

  /** Renames a client (the new nick is valid and free); tells it and its peers. */
  changeNick(client: Connection, nick: string): void {
    const old = client.nick;
    this.releaseNick(client);
    this.nicks.set(ircLower(nick), client);
    if (client.registered && old !== null) {
      const msg = this.relayFrom(client, "NICK", [nick]);
      client.send(msg.lineFor(client.tagBits));
      for (const peer of this.peersOf(client)) peer.sendBytes(msg.bytesFor(peer.tagBits));
    }
    client.nick = nick;
  }

  /**
   * Disconnects a client: QUIT to its peers, out of every table, `ERROR` to the client, then
   * the socket is closed (at once with `abort`, for a client that is not reading).
   */
  disconnect(client: Connection, reason: string, opts: { abort?: boolean; quitMessage?: string } = {}): void {
    if (client.closed) return;
    client.stop();
    if (client.registered) {
      const quit = this.relayFrom(client, "QUIT", [opts.quitMessage ?? reason], { trailing: true });
      for (const peer of this.peersOf(client)) peer.sendBytes(quit.bytesFor(peer.tagBits));
      this.registeredCount--;
    }
    for (const channel of [...client.channels]) this.leaveChannel(client, channel);
    if (client.nick !== null && this.nicks.get(ircLower(client.nick)) === client) this.nicks.delete(ircLower(client.nick));
    this.connections.delete(client);
    const socket = client.socket;
    if (opts.abort || socket.destroyed) {
      socket.destroy();
      return;
    }
    client.end(`ERROR :Closing Link: ${client.host} (${reason})`);
    // A peer that never reads would keep the socket half-closed forever.
    setTimeout(() => socket.destroy(), 2000).unref();
  }

  /** Stops listening and disconnects everyone; history is flushed. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const closed = new Promise<void>((resolve) => this.listener.close(() => resolve()));
    for (const client of [...this.connections]) this.disconnect(client, "Server shutting down");
    await this.history.close();
    await closed;
  }

  /**
   * Makes room for a new connection from `ip`: connections still registering count per
   * address (and in total), and beyond the limit the oldest of them is closed, so a pile of
   * idle connections can never keep out a client that logs in promptly.
   */
  private makeRoom(ip: string): void {
    const key = addressKey(ip);
    const pendingHere: Connection[] = [];
    let pendingAll: Connection | null = null;
    let countHere = 0;
    for (const c of this.connections) {
      if (c.registered || c.closed) continue;
      if (addressKey(c.ip) !== key) continue;
      countHere++;
      // Those logging in are spared: they are about to register.
      if (c.account === null && !c.authPending) pendingHere.push(c);
    }
    for (const c of this.connections) {
      if (c.registered || c.closed || c.account !== null || c.authPending) continue;
      if (pendingAll === null || c.acceptedAt < pendingAll.acceptedAt) pendingAll = c;
    }
    if (countHere >= this.opts.maxUnregisteredPerIp && pendingHere.length > 0) {
      const oldest = pendingHere.reduce((a, b) => (b.acceptedAt < a.acceptedAt ? b : a));
      this.disconnect(oldest, "Too many unregistered connections from your address (closed the oldest)", { abort: true });
    } else if (this.connections.size >= this.opts.maxClients && pendingAll) {
      this.disconnect(pendingAll, "Server is full (closed the oldest unregistered connection)", { abort: true });
    }
  }

  private accept(socket: Socket): void {
    const ip = socket.remoteAddress ?? "unknown";
    if (!this.closing) this.makeRoom(ip);
    if (this.closing || this.connections.size >= this.opts.maxClients) {
      const why = this.closing ? "Server shutting down" : "Server is full";
      this.opts.logger.warn("connection refused", { ip, reason: why });
      socket.on("error", () => {});
      socket.end(`ERROR :Closing Link: ${ip} (${why})\r\n`);
      setTimeout(() => socket.destroy(), 2000).unref();
      return;
    }
    const client = new Connection(this, socket);
    this.connections.add(client);
    this.opts.logger.debug("client connected", { ip });
  }
}

/** The address connection limits count by: all of 127.0.0.0/8 is one (any local user can bind any of it). */
function addressKey(ip: string): string {
  const v4 = ip.startsWith("::ffff:") ? ip.slice(7) : ip;
  if (v4.startsWith("127.") || v4 === "::1") return "loopback";
  return v4;
}
