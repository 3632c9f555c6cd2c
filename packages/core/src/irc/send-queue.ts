/**
 * Every line the transport writes goes through this queue, in three lanes: control lines (JOIN,
 * PART, WHO, PING sentinels, NICK), receipts (the daemon's short acknowledgements of addressed
 * lines: TAGMSG reactions, one-line NOTICEs, failure lines) and message lines (PRIVMSG/NOTICE
 * text). All share one token bucket so the server never disconnects us for flooding; control
 * lines go first, then receipts (so a backlog of long replies cannot starve them; they are
 * few, bounded by their own small limit and aggregated per sender by the daemon), then
 * messages. Receipts and messages wait until the transport says it has rejoined its channels
 * (so text queued while disconnected is not sent before the JOIN it needs). Control lines
 * belong to one connection and are dropped on a disconnect; receipts and messages are kept, and so
 * are the message lines written but not yet confirmed by the server (unconfirmed-lines.ts).
 *
 * Status lines (presence: AWAY and the presence NOTICE) wait in the message lane, in order, so a
 * state never overtakes the reply queued before it ("idle" comes after the turn's reply). Each
 * has a key: a newer status line of the same key drops the one still waiting and takes its
 * place at the end, so a backlog never sends stale states. They are not kept over a disconnect
 * (a reconnect publishes the state again) and need no confirmation.
 */
import { TokenBucket } from "./token-bucket.js";
import { UnconfirmedLines } from "./unconfirmed-lines.js";

/** Options of {@link SendQueue}. Times are milliseconds. */
export interface SendQueueOptions {
  /** Lines that may go out back to back. */
  burst: number;
  /** One line per this many ms once the burst is spent. */
  intervalMs: number;
  /** Most message lines waiting at once. */
  limit: number;
  /** Most receipt lines waiting at once (default 64); more are refused. */
  receiptLimit?: number;
  /** Writes one line to the connection. */
  write(line: string): void;
  /** True while lines may be written at all (registered with the server). */
  canSend(): boolean;
  /** True once message lines may be written too (registered and rejoined). */
  messagesReleased(): boolean;
}

/** A status line waiting in the message lane (see the module comment). */
interface StatusLine {
  key: string;
  line: string;
}

/** The rate-limited outgoing queue of one transport. */
export class SendQueue {
  private readonly control: string[] = [];
  private readonly receipts: string[] = [];
  private readonly messages: Array<string | StatusLine> = [];
  private readonly unconfirmed = new UnconfirmedLines();
  private readonly bucket: TokenBucket;
  private drainTimer: NodeJS.Timeout | null = null;
  private drainWaiters: Array<() => void> = [];

  constructor(private readonly opts: SendQueueOptions) {
    this.bucket = new TokenBucket({ capacity: opts.burst, intervalMs: opts.intervalMs });
  }

  /** Message lines waiting to be sent. */
  get pendingMessages(): number {
    return this.messages.length;
  }

  /** True when `count` more message lines fit under the limit. */
  hasRoom(count: number): boolean {
    return this.messages.length + count <= this.opts.limit;
  }

  /** Queues message lines (the caller checked {@link hasRoom}) and sends what the rate allows. */
  sendMessages(lines: readonly string[]): void {
    this.messages.push(...lines);
    this.pump();
  }

  /**
   * Queues a receipt line ahead of waiting messages and sends what the rate allows; false
   * (nothing queued) when the receipt lane is full.
   */
  sendReceipt(line: string): boolean {
    if (this.receipts.length >= (this.opts.receiptLimit ?? 64)) return false;
    this.receipts.push(line);
    this.pump();
    return true;
  }

  /** Receipt lines waiting to be sent. */
  get pendingReceipts(): number {
    return this.receipts.length;
  }

  /**
   * Queues a status line under `key` at the end of the message lane, dropping the line of the
   * same key still waiting (only the latest state goes out), and sends what the rate allows.
   */
  sendStatus(key: string, line: string): void {
    const stale = this.messages.findIndex((m) => typeof m !== "string" && m.key === key);
    if (stale >= 0) this.messages.splice(stale, 1);
    this.messages.push({ key, line });
    this.pump();
  }

  /** Queues a control line and sends what the rate allows. */
  sendControl(line: string): void {
    this.control.push(line);
    this.pump();
  }

  /** True when exactly `line` is waiting in the control lane. */
  hasControl(line: string): boolean {
    return this.control.includes(line);
  }

  /** Resolves once the message lane is empty (call only while messages are released). */
  drained(): Promise<void> {
    return new Promise<void>((resolve) => this.drainWaiters.push(resolve));
  }

  /** A new connection: the server's flood allowance starts full again. */
  resetRate(): void {
    this.bucket.reset();
  }

  /**
   * The connection is gone: its control lines go with it; message lines wait for the next one,
   * the written but unconfirmed ones first (the server may never have read them). Returns how
   * many of those there were.
   */
  onDisconnect(): number {
    this.stop();
    this.control.length = 0;
    const unconfirmed = this.unconfirmed.takeAll();
    const kept = this.messages.filter((m) => typeof m === "string");
    this.messages.splice(0, this.messages.length, ...unconfirmed, ...kept);
    return unconfirmed.length;
  }

  /** A PONG arrived: true when it confirmed written message lines (the transport ignores it then). */
  onPong(token: string): boolean {
    if (!this.unconfirmed.onPong(token)) return false;
    this.pump();
    return true;
  }

  /** Stops the pending send timer (closing, or the connection is gone). */
  stop(): void {
    if (this.drainTimer) clearTimeout(this.drainTimer);
    this.drainTimer = null;
  }

  /** Sends what the token bucket allows: control lines first, messages once released. */
  pump(): void {
    if (!this.opts.canSend() || this.drainTimer) return;
    const pending = (): boolean => this.control.length > 0 || (this.opts.messagesReleased() && (this.receipts.length > 0 || this.messages.length > 0));
    for (;;) {
      while (pending() && this.bucket.take()) {
        const control = this.control.shift();
        const receipt = control === undefined ? this.receipts.shift() : undefined;
        const next = control ?? receipt ?? this.messages.shift();
        if (next === undefined) continue;
        if (typeof next !== "string") {
          this.opts.write(next.line); // a status line: no confirmation, not kept over a disconnect
          continue;
        }
        this.opts.write(next);
        if (control === undefined && receipt === undefined) this.unconfirmed.written(next);
      }
      const ping = this.unconfirmed.sentinel(!this.opts.messagesReleased() || this.messages.length === 0);
      if (ping === null) break;
      this.control.push(ping);
    }
    if (pending()) {
      const wait = Math.max(1, this.bucket.msUntilNext());
      this.drainTimer = setTimeout(() => {
        this.drainTimer = null;
        this.pump();
      }, wait);
    } else if (this.messages.length === 0) {
      for (const w of this.drainWaiters.splice(0)) w();
    }
  }
}
