/**
 * Our own name on the server: the nick we have, the configured one we want, and the
 * `user@host` the server shows with it.
 *
 * When the configured nick is taken at registration we register as `<nick>_` (then `<nick>__`,
 * up to {@link MAX_NICK_FALLBACKS}) and take the configured one back as soon as it is free: at
 * once when its holder quits or changes nick (the transport calls {@link NickKeeper.tryReclaim}),
 * and on a timer otherwise. The `user@host` is learned from our own JOIN and message echoes,
 * 396 and CHGHOST, because the length of `:<nick>!<user>@<host>` decides how much text fits in
 * one relayed line.
 */
import type { TextBudgetInput } from "./split-message.js";

/** How many `_` may be added to a taken nick before a connection attempt gives up. */
export const MAX_NICK_FALLBACKS = 8;

/** Options of {@link NickKeeper}. */
export interface NickKeeperOptions {
  /** The configured nick (sanitised). */
  configured: string;
  /** Folds a nick by the server's current case mapping. */
  fold(nick: string): string;
  /** How often to try to take back the configured nick, in ms. */
  reclaimIntervalMs: number;
  /** True while a NICK may be sent (registered). */
  canReclaim(): boolean;
  /** Queues a `NICK` line unless the same line is already waiting. */
  sendNick(line: string): void;
}

/** The nick (and prefix) of one transport. */
export class NickKeeper {
  /** The nick from the config; we use it whenever it is free. */
  readonly configured: string;
  private currentNick: string;
  private fallbacks = 0;
  private reclaimTimer: NodeJS.Timeout | null = null;
  private user: string | null = null;
  private host: string | null = null;

  constructor(private readonly opts: NickKeeperOptions) {
    this.configured = opts.configured;
    this.currentNick = opts.configured;
  }

  /** Our nick right now. */
  get current(): string {
    return this.currentNick;
  }

  /** True when `nick` is us right now. */
  isMe(nick: string): boolean {
    return nick.length > 0 && this.opts.fold(nick) === this.opts.fold(this.currentNick);
  }

  /** True when `nick` is the configured nick. */
  isConfigured(nick: string): boolean {
    return this.opts.fold(nick) === this.opts.fold(this.configured);
  }

  /** A new connection attempt registers with the configured nick; the prefix is learned again. */
  onAttempt(): void {
    this.fallbacks = 0;
    this.currentNick = this.configured;
    // Learned again from our own JOIN echo (the host may differ on a new connection).
    this.user = null;
    this.host = null;
  }

  /**
   * The nick we asked for at registration is taken: returns the next fallback (now our nick),
   * or null once {@link MAX_NICK_FALLBACKS} were tried.
   */
  nextFallback(): string | null {
    this.fallbacks++;
    if (this.fallbacks > MAX_NICK_FALLBACKS) return null;
    this.currentNick = this.configured + "_".repeat(this.fallbacks);
    return this.currentNick;
  }

  /** Our nick is now `nick`. Returns the previous nick, or null when it did not change. */
  set(nick: string): string | null {
    if (nick === this.currentNick) return null;
    const old = this.currentNick;
    this.currentNick = nick;
    return old;
  }

  /** Starts trying to take back the configured nick every `reclaimIntervalMs`. */
  startReclaim(): void {
    if (this.reclaimTimer) return;
    this.reclaimTimer = setInterval(() => this.tryReclaim(), this.opts.reclaimIntervalMs);
  }

  /** Stops the reclaim timer. */
  stopReclaim(): void {
    if (this.reclaimTimer) clearInterval(this.reclaimTimer);
    this.reclaimTimer = null;
  }

  /** Asks for the configured nick now, when registered and not using it. */
  tryReclaim(): void {
    if (!this.opts.canReclaim() || this.isConfigured(this.currentNick)) return;
    this.opts.sendNick(`NICK ${this.configured}`);
  }

  /** Our own JOIN or message echo showed `user` and `host` (either may be empty: unchanged). */
  sawPrefix(user: string, host: string): void {
    this.user = user || this.user;
    this.host = host || this.host;
  }

  /** The server says our displayed host is now `host` (396 RPL_HOSTHIDDEN). */
  displayedHost(host: string): void {
    this.host = host;
  }

  /** The server changed our `user@host` (CHGHOST). */
  changedHost(user: string | null, host: string | null): void {
    this.user = user;
    this.host = host;
  }

  /**
   * Who the server relays our lines as, for {@link textBudget}: the longer of our nick and the
   * configured one (we may take it back while lines wait), and the `user@host` when known.
   */
  relayPrefix(): Pick<TextBudgetInput, "nick" | "user" | "host"> {
    const nick = this.currentNick.length >= this.configured.length ? this.currentNick : this.configured;
    return { nick, user: this.user, host: this.host };
  }
}
