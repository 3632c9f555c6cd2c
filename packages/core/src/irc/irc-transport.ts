/**
 * The daemon's IRC connection (DESIGN.md section 5).
 *
 * irc-framework does the socket, TLS, CAP/SASL negotiation, PING/PONG and line parsing. Its
 * own reconnect gives up after a few tries and never rejoins, its `say()` splits at 350
 * characters regardless of the prefix the server adds, and it passes CR/LF straight through.
 * So this class supervises the connection itself (reconnect forever with backoff, rejoin,
 * reclaim the configured nick), builds every outgoing line itself (sanitised, split to fit
 * 512 bytes as relayed, rate-limited), and tracks channel state from the raw line stream,
 * where it sees everything (numerics, batches) in order.
 *
 * This file keeps the connection's life (connect, register, rejoin, reconnect, close) and
 * routes each incoming line to the part that owns what it changes: read-slicing.ts (reads fed
 * to the parser in slices), contain-handler-errors.ts, channel-tracker.ts and keyed-waiters.ts
 * (channels, members, JOIN/PART confirmations), send-queue.ts (rate-limited lanes),
 * reply-requests.ts with who-reply.ts and topic-reply.ts (WHO, TOPIC), nick-keeper.ts (our
 * nick and prefix), account-tracker.ts (services accounts), history-batches.ts and catch-up.ts
 * (replays), message-event.ts (a line as an IrcMessageEvent) and seen-messages.ts (dedupe).
 */
import { EventEmitter } from "node:events";
import ircFramework from "irc-framework";
import type { ServerConfig } from "../config/schema.js";
import type { Logger } from "../logger.js";
import {
  CultureError,
  errorMessage,
  ircJoinFailed,
  ircNotConnected,
  ircNotJoined,
  ircQueueFull,
  ircRegistrationFailed,
  ircUnreachable,
} from "../errors.js";
import { AccountTracker } from "./account-tracker.js";
import { ircLower } from "./case-mapping.js";
import { CatchUp, type CatchUpSupport, type RestartCatchUp } from "./catch-up.js";
import type { ChannelMarks } from "./channel-marks.js";
import { ChannelTracker, type IrcChannelInfo } from "./channel-tracker.js";
import { containHandlerErrors } from "./contain-handler-errors.js";
import { HistoryBatches } from "./history-batches.js";
import { lastParam, type RawMessage, serverTime } from "./irc-line.js";
import { KeyedWaiters } from "./keyed-waiters.js";
import { toMessageEvent } from "./message-event.js";
import { NickKeeper } from "./nick-keeper.js";
import { type SliceableSocket, sliceReads } from "./read-slicing.js";
import { firstConnectRetry } from "./first-connect-retry.js";
import { ReplyRequests } from "./reply-requests.js";
import { conversationKey } from "./conversation-key.js";
import { DEFAULT_CHANTYPES, isChannelName, sanitizeChannel, sanitizeParameter, sanitizeTarget, stripIrcUnsafe } from "./sanitize.js";
import { messageKey, SeenMessages } from "./seen-messages.js";
import { SendQueue } from "./send-queue.js";
import { splitMessage, textBudget } from "./split-message.js";
import { type IrcTopic, topicRequest } from "./topic-reply.js";
import type { IrcTransportEvents } from "./transport-events.js";
import { type IrcTransportOptions, type ResolvedTransportOptions, resolveTransportOptions } from "./transport-options.js";
import { type IrcMember, whoRequest } from "./who-reply.js";

type IrcClient = InstanceType<typeof ircFramework.Client>;

/** What {@link IrcTransport.say} and {@link IrcTransport.notice} report. */
export interface IrcSendResult {
  /** True when the lines wait for a reconnect (they are sent after the rejoin). */
  queued: boolean;
  /** How many IRC lines the text became. */
  lines: number;
}

// The public types of the transport's parts, exported from here as they always were.
export type { IrcChannelInfo } from "./channel-tracker.js";
export type { IrcJoinErrorEvent, IrcKickEvent, IrcTransportEvents } from "./transport-events.js";
export type { IrcTransportOptions } from "./transport-options.js";
export type { IrcTopic } from "./topic-reply.js";
export type { IrcMember } from "./who-reply.js";

const JOIN_ERRORS = new Set(["403", "405", "437", "471", "473", "474", "475", "476", "477", "479", "489"]);
const WELCOME_WAIT_MS = 2_000;

/**
 * One IRC connection for one agent: connects, registers, joins, reconnects forever, and sends
 * text safely. See the module comment and DESIGN.md section 5.
 */
export class IrcTransport extends EventEmitter<IrcTransportEvents> {
  /** The nick from the config; we use it whenever it is free. */
  readonly configuredNick: string;

  private readonly opts: ResolvedTransportOptions;
  private readonly server: ServerConfig;
  private readonly log: Logger;
  private readonly client: IrcClient;

  private readonly nicks: NickKeeper;
  private registeredNow = false;
  private ready = false;
  private closing = false;
  private generation = 0;
  private lastError: string | null = null;
  /** This attempt reached the server (TCP, and TLS when used). */
  private reachedNow = false;
  /** This attempt was refused for cause (login, ban, nick): retrying cannot help. */
  private refusedNow = false;
  /** The server's ERROR line in this attempt, if any. */
  private serverErrorNow: string | null = null;
  /** First-connection attempts that reached the server and were closed before registration. */
  private firstConnectRetries = 0;
  /** The server's CASEMAPPING (ISUPPORT); RFC 1459 until it says. */
  private serverCaseMapping = "rfc1459";
  private reconnectAttempts = 0;

  private readonly channels = new ChannelTracker((name) => this.lower(name));
  /** JOINs and PARTs waiting for the server's echo, by folded channel name. */
  private readonly pendingJoins = new KeyedWaiters();
  private readonly pendingParts = new KeyedWaiters();
  private readonly accounts = new AccountTracker((nick) => this.lower(nick)); // identity
  private readonly batches = new HistoryBatches();
  /** Messages already emitted (dedupe of repeated and replayed lines). */
  private readonly seen = new SeenMessages();
  private readonly catchUp: CatchUp;
  /** What a previous daemon saw, and the record of what we see (null: no restart catch-up). */
  private readonly marks: ChannelMarks | null;
  private readonly requests: ReplyRequests;

  private readonly sendQueue: SendQueue;

  private connectTimer: NodeJS.Timeout | null = null;
  private welcomeTimer: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private firstConnect: { promise: Promise<void>; resolve: () => void; reject: (err: Error) => void } | null = null;
  private everRegistered = false;
  private socketOpen = false;
  private socketClosedWaiters: Array<() => void> = [];
  /** Our AWAY message (null: not away), re-sent after every registration. */
  private awayText: string | null = null;

  constructor(options: IrcTransportOptions) {
    super();
    this.server = options.server;
    this.log = options.logger;
    this.configuredNick = sanitizeTarget(options.nick);
    this.opts = resolveTransportOptions(options, this.configuredNick);
    this.client = new ircFramework.Client();
    this.nicks = new NickKeeper({
      configured: this.configuredNick,
      fold: (nick) => this.lower(nick),
      reclaimIntervalMs: this.opts.reclaimIntervalMs,
      canReclaim: () => this.registeredNow,
      sendNick: (line) => {
        if (!this.sendQueue.hasControl(line)) this.sendControl(line);
      },
    });
    this.sendQueue = new SendQueue({
      burst: this.opts.sendBurst,
      intervalMs: this.opts.sendIntervalMs,
      limit: this.opts.queueLimit,
      write: (line) => this.client.raw(line),
      canSend: () => this.registeredNow,
      messagesReleased: () => this.ready,
    });
    this.client.requestCap(["draft/chathistory"]);
    this.requests = new ReplyRequests({
      send: (line) => this.sendControl(line),
      timeoutMs: this.opts.requestTimeoutMs,
      isOpen: () => this.registeredNow && !this.closing,
      notConnected: (what) => ircNotConnected(this.server.host, this.server.port, what),
    });
    this.marks = options.marks ?? null;
    const saved = this.marks?.saved ?? new Map();
    this.catchUp = new CatchUp({
      send: (line) => this.sendControl(line),
      logger: this.log,
      restartMarks: new Map([...saved].map(([channel, mark]) => [channel, mark.time])),
    });
    // Lines the previous daemon handled near its last mark come back in the catch-up: skip them.
    for (const mark of saved.values()) for (const key of mark.keys) this.seen.check(key);
    for (const channel of options.channels) {
      const name = sanitizeChannel(channel, "#&+!");
      this.channels.configure(name);
    }
    containHandlerErrors(this.client, this.log);
    this.client.connection.on("message", (msg) => this.onLine(msg));
    this.client.on("socket connected", () => {
      this.socketOpen = true;
      this.reachedNow = true;
      // The connection's socket exists from here on (irc-framework makes one per connect).
      const socket = (this.client.connection as { transport?: { socket?: SliceableSocket } }).transport?.socket;
      if (socket) sliceReads(socket);
    });
    this.client.on("socket close", (err) => this.onSocketClose(err));
    this.client.on("sasl failed", (event) => {
      this.refusedNow = true;
      this.lastError = `SASL authentication as "${this.server.sasl?.account ?? "?"}" failed (${event.reason}${event.message ? `: ${event.message}` : ""})`;
      this.log.error("SASL authentication failed", { reason: event.reason, message: event.message });
    });
  }

  /** Our nick right now (`<nick>_` while the configured one is taken). */
  get nick(): string {
    return this.nicks.current;
  }

  /** The server's CASEMAPPING (ISUPPORT), `rfc1459` until it says: compare nicks and mentions with it. */
  get caseMapping(): string {
    return this.serverCaseMapping;
  }

  /** True when `name` is a channel by the server's CHANTYPES (`#&` until it says). */
  isChannel(name: string): boolean {
    return isChannelName(name, this.chantypes());
  }

  /** The conversation (buffer) key of a target by the server's CHANTYPES: the channel, or `DM:<nick>`. */
  conversationKey(target: string): string {
    return conversationKey(target, this.chantypes());
  }

  /** Folds a nick or channel name by the server's CASEMAPPING. */
  fold(name: string): string {
    return ircLower(name, this.serverCaseMapping);
  }

  /**
   * How this server lets the transport catch up on lines said while it was disconnected:
   * `chathistory` (IRCv3 draft/chathistory), `join-replay` (InspIRCd chanhistory, channels
   * with mode +H) or `none` (ngIRCd: such lines are lost). Known once registered.
   */
  get catchUpSupport(): CatchUpSupport {
    return this.catchUp.support;
  }

  /**
   * What catching up after the daemon's restart did: null when no previous daemon left marks
   * (a first start, or no marks file given), else the channels caught up from a mark and the lines.
   */
  get restartCatchUp(): RestartCatchUp | null {
    return this.marks?.existed ? this.catchUp.afterRestartCounts : null;
  }

  /** True while registered with the server. */
  get connected(): boolean {
    return this.registeredNow;
  }

  /** identity: true when the server has accounts to log in to (it offers SASL). */
  get serverHasAccounts(): boolean {
    return this.network().cap.available.has("sasl");
  }

  /**
   * Connects, registers and joins the configured channels. Resolves once registered and every
   * configured JOIN is confirmed or refused (refusals are `joinError` events). Rejects with
   * `E_IRC_UNREACHABLE` naming host:port when the first connection cannot be made or
   * registered; after the first success the transport reconnects forever.
   */
  connect(): Promise<void> {
    if (this.firstConnect) return this.firstConnect.promise;
    if (this.closing) return Promise.reject(ircNotConnected(this.server.host, this.server.port, "connect: the transport was closed"));
    let resolve!: () => void;
    let reject!: (err: Error) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    this.firstConnect = { promise, resolve, reject };
    this.attempt();
    return promise;
  }

  /** Sends QUIT (after letting queued lines go out, up to `closeDrainMs`) and stops reconnecting. */
  async close(quitMessage = "culture: agent stopped"): Promise<void> {
    if (this.closing) {
      if (this.socketOpen) await new Promise<void>((r) => this.socketClosedWaiters.push(r));
      return;
    }
    if (this.ready && this.sendQueue.pendingMessages > 0) {
      await Promise.race([
        this.sendQueue.drained(),
        new Promise<void>((r) => setTimeout(r, this.opts.closeDrainMs).unref()),
      ]);
    }
    this.closing = true;
    this.clearTimers();
    if (this.sendQueue.pendingMessages > 0) {
      this.log.warn("closing with unsent IRC lines", { lines: this.sendQueue.pendingMessages });
    }
    this.firstConnect?.reject(ircNotConnected(this.server.host, this.server.port, "connect: the transport was closed"));
    if (this.socketOpen) {
      const closed = new Promise<void>((r) => this.socketClosedWaiters.push(r));
      this.client.connection.end(`QUIT :${sanitizeParameter(quitMessage)}`);
      const timer = setTimeout(() => this.client.connection.end(undefined, true), 3_000);
      await closed;
      clearTimeout(timer);
    } else {
      // A connection attempt may be in flight: abort it.
      this.client.connection.end(undefined, true);
    }
    this.failPending(ircNotConnected(this.server.host, this.server.port, "finish: the transport was closed"));
  }

  /** Channels the server has confirmed we are in. */
  joinedChannels(): string[] {
    return this.channels.joinedNames();
  }

  /** True when the server has confirmed we are in `channel`. */
  isJoined(channel: string): boolean {
    return this.channels.isJoined(this.lower(channel));
  }

  /**
   * True when a line to `channel` is taken now: a confirmed JOIN; while the connection is down
   * (or rejoining), a channel that will be rejoined is fine too (the lines wait in the queue).
   */
  willReach(channel: string): boolean {
    const key = this.lower(channel);
    return this.ready ? this.channels.isJoined(key) : this.channels.isJoined(key) || this.channels.isWanted(key);
  }

  /** The nicks in a joined channel as the server last told us (NAMES, JOIN, PART, QUIT, NICK); empty when not joined. */
  channelMembers(channel: string): string[] {
    return this.channels.members(this.lower(channel));
  }

  /** Folds a nick or channel name with the server's case mapping. */
  foldName(name: string): string {
    return this.lower(name);
  }

  /** Joined channels with their member counts. */
  channelInfo(): IrcChannelInfo[] {
    return this.channels.info();
  }

  /**
   * Joins a channel; resolves on the server's JOIN echo. Rejects with `E_IRC_JOIN_FAILED` on
   * 403/405/471-477 or when unconfirmed after `joinTimeoutMs`, `E_IRC_NOT_CONNECTED` while
   * disconnected. The channel is rejoined after reconnects until parted.
   */
  async join(channel: string): Promise<void> {
    const name = sanitizeChannel(channel, this.chantypes());
    const key = this.lower(name);
    if (this.channels.isJoined(key)) return;
    if (!this.registeredNow || this.closing) throw ircNotConnected(this.server.host, this.server.port, `join ${name}`);
    await this.startJoin(name);
  }

  /** Leaves a channel (and stops rejoining it); resolves on the PART echo. */
  async part(channel: string, reason?: string): Promise<void> {
    const name = sanitizeChannel(channel, this.chantypes());
    const key = this.lower(name);
    this.channels.unwant(key);
    if (!this.channels.isJoined(key) || !this.registeredNow) return;
    const done = this.pendingParts.wait(key, this.opts.requestTimeoutMs, () =>
      new CultureError("E_TIMEOUT", `the server did not confirm leaving ${name} within ${this.opts.requestTimeoutMs} ms`),
    );
    this.sendControl(`PART ${name}${reason ? ` :${sanitizeParameter(reason)}` : ""}`);
    await done;
  }

  /**
   * Sends text as PRIVMSG: split on newlines (blank lines dropped) and to fit 512 bytes as
   * relayed, rate-limited. Throws `E_IRC_NOT_JOINED` for a channel we are not in,
   * `E_IRC_INVALID_TARGET` for an unusable target, `E_IRC_QUEUE_FULL` when the queue is full.
   */
  say(target: string, text: string): IrcSendResult {
    return this.sendText("PRIVMSG", target, text);
  }

  /** Like {@link say}, as NOTICE. */
  notice(target: string, text: string): IrcSendResult {
    return this.sendText("NOTICE", target, text);
  }

  /**
   * Sets (or with null, clears) our AWAY message; kept and sent again after every reconnect
   * (presence, docs/presence.md). An unchanged text is not sent again.
   */
  setAway(text: string | null): void {
    const clean = text === null ? null : stripIrcUnsafe(sanitizeParameter(text)) || null;
    if (clean === this.awayText) return;
    this.awayText = clean;
    // A status line: an AWAY still waiting for the flood budget is dropped for this one.
    if (this.registeredNow && !this.closing) this.sendQueue.sendStatus("AWAY", clean === null ? "AWAY" : `AWAY :${clean}`);
  }

  /**
   * Sends one NOTICE line of `text` to `target` as a status line (presence, send-queue.ts): in
   * order behind the lines already waiting, and dropping this target's status line still
   * waiting, so a backlog never sends stale states. Dropped on a disconnect (the caller
   * publishes again on reconnect). Returns false when it was not queued (closed, unusable
   * target); never throws.
   */
  status(target: string, text: string): boolean {
    const clean = this.usableTarget(target);
    const line = clean === null ? undefined : this.firstLine("NOTICE", clean, text);
    if (clean === null || line === undefined) return false;
    this.sendQueue.sendStatus(`NOTICE ${this.fold(clean)}`, `NOTICE ${clean} :${line}`);
    return true;
  }

  /** `target` sanitized, or null when it is unusable or the transport is closing. */
  private usableTarget(target: string): string | null {
    if (this.closing) return null;
    try {
      return sanitizeTarget(target);
    } catch {
      return null;
    }
  }

  /** The first IRC line of `text` as `command` to `target` (sanitized, cut to fit one line). */
  private firstLine(command: "NOTICE" | "PRIVMSG", target: string, text: string): string | undefined {
    const budget = textBudget({ command, target, ...this.nicks.relayPrefix() });
    return splitMessage(stripIrcUnsafe(sanitizeParameter(text)), budget)[0];
  }

  /**
   * True when the server relays client-only tags (IRCv3 message-tags is enabled and
   * ISUPPORT CLIENTTAGDENY does not deny `draft/react`): a TAGMSG reaction reaches the sender.
   */
  get clientTags(): boolean {
    if (!this.network().cap.isEnabled("message-tags")) return false;
    const deny = this.network().supports("CLIENTTAGDENY");
    const denied = typeof deny === "string" ? deny.split(",") : [];
    if (denied.includes("draft/react")) return false;
    return !denied.includes("*") || denied.includes("-draft/react");
  }

  /**
   * Sends a receipt in the receipt lane (ahead of waiting replies, same flood budget): a
   * TAGMSG carrying `tags` (client-only tags, values escaped here) when `tags` is given, else
   * one line of `text` as `command`. `after: "messages"` queues it behind the lines already
   * waiting instead (a "done" must not overtake the reply it marks). Returns false when it
   * was not queued (closed, unusable target, the lane is full); never throws.
   */
  receipt(target: string, r: { tags: Record<string, string> } | { command: "NOTICE" | "PRIVMSG"; text: string }, after: "none" | "messages" = "none"): boolean {
    const clean = this.usableTarget(target);
    if (clean === null) return false;
    if ("tags" in r) {
      const tags = Object.entries(r.tags)
        .map(([k, v]) => `${k}=${v.replace(/\\/g, "\\\\").replace(/;/g, "\\:").replace(/ /g, "\\s").replace(/\r/g, "\\r").replace(/\n/g, "\\n")}`)
        .join(";");
      return this.queueReceipt(`@${tags} TAGMSG ${clean}`, after);
    }
    const line = this.firstLine(r.command, clean, r.text);
    return line === undefined ? false : this.queueReceipt(`${r.command} ${clean} :${line}`, after);
  }

  private queueReceipt(line: string, after: "none" | "messages"): boolean {
    // With no message line waiting there is nothing to stay behind: the receipt lane is enough,
    // and a line in the message lane would cost a second token for its confirming PING.
    if (after === "none" || this.sendQueue.pendingMessages === 0) return this.sendQueue.sendReceipt(line);
    if (!this.sendQueue.hasRoom(1)) return false;
    this.sendQueue.sendMessages([line]);
    return true;
  }

  /** Members of a channel (or the user `target`) via WHO: nick, channel modes, away, account. */
  async who(target: string): Promise<IrcMember[]> {
    const clean = sanitizeTarget(target);
    return this.requests.serialized(() => this.runWho(clean));
  }

  /** Gets the topic of `channel`, or sets it to `text` and returns the result. */
  async topic(channel: string, text?: string): Promise<IrcTopic> {
    const name = sanitizeChannel(channel, this.chantypes());
    return this.requests.serialized(() => this.runTopic(name, text === undefined ? undefined : sanitizeParameter(text)));
  }

  // ------------------------------------------------------------------------------------------
  // Connection supervision

  private attempt(): void {
    if (this.closing) return;
    this.lastError = null;
    this.reachedNow = this.refusedNow = false;
    this.serverErrorNow = null;
    this.nicks.onAttempt();
    const s = this.server;
    this.connectTimer = setTimeout(() => {
      this.connectTimer = null;
      this.lastError = `no successful registration within ${this.opts.connectTimeoutMs} ms`;
      this.client.connection.end(undefined, true);
    }, this.opts.connectTimeoutMs);
    this.log.debug("connecting", { host: s.host, port: s.port, tls: s.tls, nick: this.configuredNick });
    this.client.connect({
      host: s.host,
      port: s.port,
      nick: this.configuredNick,
      username: this.opts.username,
      gecos: this.opts.realname,
      tls: s.tls,
      rejectUnauthorized: s.tls_verify,
      ...(s.password ? { password: stripIrcUnsafe(s.password) } : {}),
      // An explicit (empty) account keeps irc-framework from reusing the server password for SASL.
      account: s.sasl ? { account: s.sasl.account, password: s.sasl.password } : {},
      sasl_disconnect_on_fail: true,
      auto_reconnect: false,
      ping_interval: 30,
      ping_timeout: 120,
      enable_echomessage: true,
      // identity: no automatic CTCP VERSION reply. irc-framework would write it straight to the
      // socket, outside our send-rate limit: a CTCP flood then got us closed for Excess Flood.
      version: "",
    });
  }

  private onSocketClose(err: Error | false | undefined): void {
    this.socketOpen = false;
    const wasRegistered = this.registeredNow;
    this.registeredNow = false;
    this.ready = false;
    this.generation++;
    if (this.connectTimer) clearTimeout(this.connectTimer);
    this.connectTimer = null;
    if (this.welcomeTimer) clearTimeout(this.welcomeTimer);
    this.welcomeTimer = null;
    this.nicks.stopReclaim();
    const resend = this.sendQueue.onDisconnect();
    if (resend > 0) this.log.info("will resend lines the server had not confirmed", { lines: resend });
    this.channels.onDisconnect();
    this.batches.clear();
    this.catchUp.onDisconnect();
    this.accounts.clear();
    const reason = this.lastError ?? (err ? errorMessage(err) : "the server closed the connection");
    for (const w of this.socketClosedWaiters.splice(0)) w();
    this.failPending(ircNotConnected(this.server.host, this.server.port, `finish: disconnected (${reason})`));

    if (this.closing) return;
    if (wasRegistered) {
      this.log.warn("disconnected from IRC", { host: this.server.host, port: this.server.port, reason });
      this.emit("disconnected", reason);
    }
    if (!this.everRegistered && this.firstConnect) {
      const retry = firstConnectRetry({ reached: this.reachedNow, refused: this.refusedNow, serverError: this.serverErrorNow, retried: this.firstConnectRetries, max: this.opts.firstConnectRetries, minMs: this.opts.reconnectMinMs });
      if (retry !== null) {
        // The server is there but closed us before registration (busy: its deadline passed).
        this.firstConnectRetries++;
        this.log.info("the server closed the connection before registration; trying again", { attempt: this.firstConnectRetries + 1, delayMs: retry, reason });
        this.reconnectTimer = setTimeout(() => {
          this.reconnectTimer = null;
          this.attempt();
        }, retry);
        return;
      }
      // The first connection is a probe: fail loudly instead of retrying forever.
      this.closing = true;
      this.clearTimers();
      const attempts = this.firstConnectRetries + 1;
      this.firstConnect.reject(
        this.reachedNow ? ircRegistrationFailed(this.server.host, this.server.port, reason, attempts) : ircUnreachable(this.server.host, this.server.port, err || new Error(reason)),
      );
      return;
    }
    const delay = Math.min(this.opts.reconnectMaxMs, this.opts.reconnectMinMs * 2 ** Math.min(this.reconnectAttempts, 30));
    this.reconnectAttempts++;
    this.log.info("reconnecting to IRC", { attempt: this.reconnectAttempts, delayMs: delay, reason });
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.attempt();
    }, delay);
  }

  private onRegistered(nick: string): void {
    if (this.connectTimer) clearTimeout(this.connectTimer);
    this.connectTimer = null;
    this.registeredNow = true;
    this.everRegistered = true;
    this.reconnectAttempts = 0;
    this.sendQueue.resetRate();
    this.setNick(nick);
    this.log.info("registered with IRC", { host: this.server.host, port: this.server.port, nick });
    if (this.awayText !== null) this.sendControl(`AWAY :${this.awayText}`);
    this.emit("registered", nick);
    if (!this.nicks.isConfigured(nick)) this.nicks.startReclaim();
    // Join once the welcome burst is over (end of MOTD): by then ISUPPORT has told us the
    // server's CASEMAPPING and CHANTYPES. A server that never ends its MOTD gets 2 s.
    this.welcomeTimer = setTimeout(() => this.afterWelcome(), WELCOME_WAIT_MS);
  }

  /** Rejoins every wanted channel, then flushes what was queued while disconnected. */
  private afterWelcome(): void {
    if (!this.welcomeTimer || !this.registeredNow) return;
    clearTimeout(this.welcomeTimer);
    this.welcomeTimer = null;
    const support = this.catchUp.detect(
      this.network().cap.isEnabled("draft/chathistory") || Boolean(this.network().supports("CHATHISTORY")),
      asStrings(this.network().options.CHANMODES),
    );
    this.log.debug("catch-up support", { support });
    const gen = this.generation;
    const joins = this.channels.wantedNames().map((name) => this.startJoin(name));
    void Promise.allSettled(joins).then(() => {
      if (gen !== this.generation || !this.registeredNow) return;
      this.ready = true;
      this.sendQueue.pump();
      this.firstConnect?.resolve();
    });
  }

  private clearTimers(): void {
    for (const t of [this.connectTimer, this.reconnectTimer, this.welcomeTimer]) if (t) clearTimeout(t);
    this.connectTimer = this.reconnectTimer = this.welcomeTimer = null;
    this.sendQueue.stop();
    this.nicks.stopReclaim();
  }

  private failPending(err: Error): void {
    this.pendingJoins.settleAll(err);
    // A PART cut short by a disconnect still achieved its goal: we are not in the channel.
    this.pendingParts.settleAll();
    this.requests.failAll(err);
  }

  // ------------------------------------------------------------------------------------------
  // Nick handling

  private setNick(nick: string): void {
    const old = this.nicks.set(nick);
    if (old === null) return;
    this.channels.selfRenamed(old, nick);
    if (this.registeredNow) this.emit("nick", nick);
    if (this.nicks.isConfigured(nick)) this.nicks.stopReclaim();
  }

  // ------------------------------------------------------------------------------------------
  // Incoming lines

  private onLine(msg: RawMessage): void {
    try {
      this.handleLine(msg);
    } catch (err) {
      this.log.error("failed to handle an IRC line", { command: msg.command, error: errorMessage(err) });
    }
  }

  private handleLine(msg: RawMessage): void {
    if (this.requests.claim(msg)) return;
    const p = msg.params;
    switch (msg.command) {
      case "001":
        this.onRegistered(p[0] ?? this.nicks.current);
        return;
      case "433": {
        if (this.registeredNow) {
          this.log.debug("configured nick still taken", { nick: p[1] });
          return;
        }
        const taken = p[1] ?? this.nicks.current;
        this.emit("nickInUse", taken);
        const next = this.nicks.nextFallback();
        if (next === null) {
          this.failAttempt(`the nicks ${this.configuredNick} to ${taken} are all in use`);
          return;
        }
        this.log.warn("nick in use, registering with a fallback", { taken, next });
        this.client.raw(`NICK ${next}`);
        return;
      }
      case "432":
        if (!this.registeredNow) this.refusedNow = true;
        if (!this.registeredNow) this.failAttempt(`the server rejected the nick "${p[1] ?? ""}": ${lastParam(p)}`);
        else this.log.warn("nick rejected", { nick: p[1], reason: lastParam(p) });
        return;
      case "464":
        this.refusedNow = true;
        this.lastError = `the server rejected the password: ${lastParam(p)} (IRC 464)`;
        return;
      case "465":
        this.refusedNow = true;
        this.lastError = `banned from the server: ${lastParam(p)} (IRC 465)`;
        return;
      case "ERROR":
        this.serverErrorNow = lastParam(p);
        this.lastError ??= `the server closed the link: ${lastParam(p)}`;
        return;
      case "005":
        this.onIsupport(p);
        return;
      case "376": // end of MOTD
      case "422": // no MOTD
        this.afterWelcome();
        return;
      case "396": // RPL_HOSTHIDDEN / displayed host
        if (p[1]) this.nicks.displayedHost(p[1]);
        return;
      case "CHGHOST":
        if (this.isMe(msg.nick)) this.nicks.changedHost(p[0] ?? null, p[1] ?? null);
        return;
      case "BATCH": {
        const historyEnded = this.batches.onBatch(p);
        if (historyEnded !== null) this.catchUp.onHistoryEnd(this.lower(historyEnded));
        return;
      }
      case "ACCOUNT":
        this.accounts.accountChanged(msg.nick, p[0]);
        return;
      case "JOIN":
        this.onJoin(msg);
        return;
      case "PART":
        this.onPart(msg.nick, p[0] ?? "");
        return;
      case "KICK":
        this.onKick(msg.nick, p[0] ?? "", p[1] ?? "", p[2] ?? "");
        return;
      case "QUIT":
        this.onQuit(msg.nick);
        return;
      case "NICK":
        this.onNickChange(msg.nick, p[0] ?? "");
        return;
      case "353":
        this.onNames(p[2] ?? "", lastParam(p));
        return;
      case "PONG":
        if (this.sendQueue.onPong(lastParam(p))) return;
        this.requests.onPong(lastParam(p));
        return;
      case "PRIVMSG":
      case "NOTICE":
        this.onText(msg);
        return;
      case "404":
        this.log.warn("the server refused a message", { target: p[1], reason: lastParam(p) });
        return;
      default:
        if (JOIN_ERRORS.has(msg.command)) this.onJoinError(msg.command, p[1] ?? "", lastParam(p));
    }
  }

  private onIsupport(params: readonly string[]): void {
    const token = params.find((x) => x.toUpperCase().startsWith("CASEMAPPING="));
    const mapping = token?.slice("CASEMAPPING=".length).toLowerCase();
    if (!mapping || mapping === this.serverCaseMapping) return;
    this.serverCaseMapping = mapping;
    this.channels.rekey();
  }

  private onJoin(msg: RawMessage): void {
    const name = msg.params[0] ?? "";
    const key = this.lower(name);
    if (this.network().cap.isEnabled("extended-join")) {
      this.accounts.joined(msg.nick, msg.params[1]);
    }
    if (this.isMe(msg.nick)) {
      this.nicks.sawPrefix(msg.ident, msg.hostname);
      this.channels.selfJoined(name, msg.nick);
      const joinedAt = serverTime(msg) ?? Date.now();
      this.catchUp.onJoin(key, name, joinedAt);
      // A channel nobody has spoken in yet is marked from our join: a mention said there while
      // the daemon is down is caught up at the next start too. A rejoin keeps its older mark.
      if (this.marks && !this.marks.has(key)) this.marks.note(key, joinedAt, null);
      this.pendingJoins.settle(key);
      this.log.info("joined", { channel: name });
      this.emit("joined", name);
      return;
    }
    this.channels.memberJoined(key, msg.nick);
    // Someone else joined: with extended-join the server says their account (`*`: none); else undefined (ask WHO).
    const account = this.network().cap.isEnabled("extended-join") ? (msg.params[1] && msg.params[1] !== "*" ? msg.params[1] : null) : undefined;
    this.emit("memberJoined", { channel: name, nick: msg.nick, account });
  }

  private onPart(nick: string, channel: string): void {
    const key = this.lower(channel);
    if (this.isMe(nick)) {
      const name = this.channels.selfLeft(key);
      this.catchUp.forget(key);
      this.marks?.forget(key);
      this.pendingParts.settle(key);
      this.emit("parted", name ?? channel);
      return;
    }
    this.channels.memberLeft(key, nick);
  }

  private onKick(by: string, channel: string, kicked: string, reason: string): void {
    const key = this.lower(channel);
    if (this.isMe(kicked)) {
      const name = this.channels.selfLeft(key);
      // A kick is an operator's decision: configured channels come back on the next reconnect,
      // channels joined later are not rejoined.
      this.channels.dropUnlessConfigured(key);
      this.catchUp.forget(key);
      this.marks?.forget(key);
      this.log.warn("kicked", { channel, by, reason });
      this.emit("kicked", { channel: name ?? channel, by, reason });
      return;
    }
    this.channels.memberLeft(key, kicked);
  }

  private onQuit(nick: string): void {
    this.channels.memberQuit(nick);
    this.accounts.quit(nick);
    if (this.nicks.isConfigured(nick)) this.nicks.tryReclaim();
  }

  private onNickChange(oldNick: string, newNick: string): void {
    if (!newNick) return;
    if (this.isMe(oldNick)) {
      this.log.info("nick changed", { from: oldNick, to: newNick });
      this.setNick(newNick);
      return;
    }
    this.channels.memberRenamed(oldNick, newNick);
    this.accounts.renamed(oldNick, newNick);
    if (this.nicks.isConfigured(oldNick)) this.nicks.tryReclaim();
  }

  private onNames(channel: string, names: string): void {
    const symbols = new Set((this.network().options.PREFIX ?? []).map((x) => x.symbol));
    this.channels.names(channel, names, symbols);
  }

  private onJoinError(code: string, channel: string, reason: string): void {
    const key = this.lower(channel);
    if (this.pendingJoins.count(key) === 0) {
      this.log.warn("IRC error", { code, target: channel, reason });
      return;
    }
    this.channels.dropUnlessConfigured(key);
    this.pendingJoins.settle(key, ircJoinFailed(channel, code, reason));
    this.log.warn("join refused", { channel, code, reason });
    this.emit("joinError", { channel, code, reason });
  }

  private onText(msg: RawMessage): void {
    const line = toMessageEvent(msg, {
      chantypes: this.chantypes(),
      statusmsg: String(this.network().supports("STATUSMSG") ?? ""),
      fold: (name) => this.lower(name),
      isMe: (nick) => this.isMe(nick),
      joinedName: (key) => this.channels.joinedName(key),
      inHistoryBatch: (ref) => this.batches.isHistory(ref),
      accountOf: (nick, tags) => this.accounts.accountOf(nick, tags, this.network().cap.isEnabled("account-tag")),
      now: () => Date.now(),
    });
    if (!line) return;
    const { event, self, channelKey } = line;
    if (event.replayed && (self || channelKey === null || !this.catchUp.acceptReplay(channelKey, event.time))) {
      this.log.debug("history replay skipped", { target: msg.params[0] });
      return;
    }
    const key = self ? null : this.dedupeKey(msg, channelKey, event.text);
    if (key !== null && this.seen.check(key)) {
      this.log.debug("repeated message dropped", { target: event.target, from: msg.nick, msgid: msg.tags.msgid });
      return;
    }
    if (channelKey !== null) this.catchUp.noteSeen(channelKey, event.time);
    if (event.replayed && channelKey !== null) {
      this.catchUp.caughtUp(channelKey);
      this.log.info("caught up on a line said while disconnected", { target: event.target, from: msg.nick, msgid: msg.tags.msgid });
    }
    if (self) {
      this.nicks.sawPrefix(msg.ident, msg.hostname);
      this.emit("selfMessage", event);
    } else {
      this.emit("message", event);
    }
    // Marked after it was handed to the daemon, never before (the daemon journals a prompt a
    // few microtasks later: docs/irc-transport.md says what a kill -9 in between costs).
    if (channelKey !== null) this.marks?.note(channelKey, event.time, key);
  }

  /**
   * The key that tells whether this line was emitted before: the same msgid for the same
   * conversation, or (for live lines) the same millisecond server-time, sender, conversation
   * and text, which is how a server that delivers `PRIVMSG a,a :...` once per listed target
   * repeats it. A msgid tells lines apart exactly (two identical lines a person sent in the
   * same millisecond are two lines), so the server-time is the key only for lines without one
   * (see messageKey). Null for a line with neither.
   */
  private dedupeKey(msg: RawMessage, channelKey: string | null, text: string): string | null {
    return messageKey({
      nick: this.lower(msg.nick),
      target: channelKey ?? "*dm",
      text: `${msg.command} ${text}`,
      msgid: msg.tags.msgid,
      time: msg.tags.time,
    });
  }

  // ------------------------------------------------------------------------------------------
  // Outgoing lines

  private sendText(command: "PRIVMSG" | "NOTICE", rawTarget: string, text: string): IrcSendResult {
    if (this.closing) throw ircNotConnected(this.server.host, this.server.port, "send: the IRC transport is closed");
    const target = sanitizeTarget(rawTarget);
    if (isChannelName(target, this.chantypes())) {
      if (!this.willReach(target)) throw ircNotJoined(target, this.ready ? this.joinedChannels() : this.channels.wantedNames());
    }
    const budget = textBudget({ command, target, ...this.nicks.relayPrefix() });
    const pieces = splitMessage(text, budget);
    if (!this.sendQueue.hasRoom(pieces.length)) {
      throw ircQueueFull(this.opts.queueLimit, this.server.host, this.server.port, this.ready);
    }
    const queued = !this.ready;
    if (queued && pieces.length > 0) this.log.info("queued while disconnected", { target, lines: pieces.length });
    this.sendQueue.sendMessages(pieces.map((piece) => `${command} ${target} :${piece}`));
    return { queued, lines: pieces.length };
  }

  private sendControl(line: string): void {
    this.sendQueue.sendControl(line);
  }

  private startJoin(name: string): Promise<void> {
    const key = this.lower(name);
    const done = this.pendingJoins.wait(key, this.opts.joinTimeoutMs, () => {
      const reason = `the server did not confirm the JOIN within ${this.opts.joinTimeoutMs} ms`;
      this.emit("joinError", { channel: name, code: "timeout", reason });
      return ircJoinFailed(name, "timeout", reason);
    });
    if (this.pendingJoins.count(key) === 1) this.sendControl(`JOIN ${name}`);
    return done;
  }

  // ------------------------------------------------------------------------------------------
  // Requests with replies (WHO, TOPIC): one at a time, bounded by a PING sentinel or end numeric

  private runWho(target: string): Promise<IrcMember[]> {
    return this.requests.send(
      whoRequest(target, {
        whox: Boolean(this.network().supports("WHOX")),
        token: String(100 + (this.requests.nextId() % 900)),
        prefix: this.network().options.PREFIX ?? [],
        fold: (name) => this.lower(name),
        onAccount: (nick, accountField) => this.accounts.whox(nick, accountField), // identity
      }),
    );
  }

  private runTopic(channel: string, text: string | undefined): Promise<IrcTopic> {
    const result = this.requests.send(topicRequest(channel, text, (name) => this.lower(name)));
    // A server may not echo a topic that did not change: ask for the current one then.
    return result.then((r) => (r === "query" ? this.runTopic(channel, undefined) : r));
  }

  // ------------------------------------------------------------------------------------------
  // Small helpers

  private network(): IrcClient["network"] {
    return this.client.network;
  }

  private chantypes(): string {
    const types = this.client.network.options.CHANTYPES;
    return Array.isArray(types) && types.length > 0 ? types.join("") : DEFAULT_CHANTYPES;
  }

  private lower(name: string): string {
    return ircLower(name, this.serverCaseMapping);
  }

  private isMe(nick: string): boolean {
    return this.nicks.isMe(nick);
  }

  private failAttempt(reason: string): void {
    this.lastError = reason;
    this.client.connection.end(undefined, true);
  }
}

function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}
