/**
 * Requests whose answer is a run of reply lines (WHO, TOPIC), one at a time.
 *
 * IRC replies carry no request id, so two WHOs in flight would mix their member lists: requests
 * are serialized, and while one runs its collector sees every incoming line first and claims
 * the ones that belong to it. A request ends at its end-of-reply numeric, or, for commands
 * without one (TOPIC), at the PONG to a `PING :culture-N` sent right after it: servers answer
 * in order, so that PONG means every reply is in. A request also ends on a timeout or when the
 * connection goes away. This file owns the open collectors, the sentinels and the counter
 * that names them; what a reply means is decided by the request (see who-reply.ts and
 * topic-reply.ts).
 */
import { CultureError } from "../errors.js";
import type { RawMessage } from "./irc-line.js";

/** Collects the replies to one request until its end marker. */
export interface ReplyCollector {
  /** Returns true when the line belonged to this request. */
  onLine(msg: RawMessage): boolean;
  /** The PONG to this request's PING sentinel arrived: every reply is in. */
  onSentinel?(): void;
}

/** One request: the lines to send and how to collect its replies. */
export interface ReplyRequest<T> {
  /** What is asked (`WHO #chan`), for error messages. */
  what: string;
  lines: string[];
  /** Send a PING sentinel after the lines (for commands without an end-of-reply numeric). */
  sentinel: boolean;
  /** Makes the collector; it calls `finish` with the result, or an Error, when done. */
  collect(finish: (result: T | Error) => void): ReplyCollector;
}

/** Options of {@link ReplyRequests}. */
export interface ReplyRequestsOptions {
  /** Queues a control line. */
  send(line: string): void;
  /** How long a request may take, in ms. */
  timeoutMs: number;
  /** True while requests can be sent (registered and not closing). */
  isOpen(): boolean;
  /** The error for a request made while not connected. */
  notConnected(what: string): Error;
}

/** The open request-reply exchanges of one transport. */
export class ReplyRequests {
  private readonly collectors = new Set<ReplyCollector & { fail(err: Error): void }>();
  private readonly sentinels = new Map<string, () => void>();
  private counter = 0;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: ReplyRequestsOptions) {}

  /** A fresh number (for WHOX query tokens and sentinels, so no two requests share one). */
  nextId(): number {
    return ++this.counter;
  }

  /** Runs `run` after every request queued before it has settled (whether it failed or not). */
  serialized<T>(run: () => Promise<T>): Promise<T> {
    const next = this.chain.then(run, run);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /**
   * Sends the request's lines and lets its collector claim the replies until it finishes.
   * Rejects with `opts.notConnected` while not connected, `E_TIMEOUT` after `timeoutMs`, or the
   * error given to {@link failAll}.
   */
  send<T>(request: ReplyRequest<T>): Promise<T> {
    const { what } = request;
    if (!this.opts.isOpen()) return Promise.reject(this.opts.notConnected(what));
    return new Promise<T>((resolve, reject) => {
      let token: string | null = null;
      let done = false;
      const finish = (result: T | Error): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.collectors.delete(collector);
        if (token) this.sentinels.delete(token);
        if (result instanceof Error) reject(result);
        else resolve(result);
      };
      const collector = { ...request.collect(finish), fail: finish };
      const timer = setTimeout(
        () => finish(new CultureError("E_TIMEOUT", `the IRC server did not answer ${what} within ${this.opts.timeoutMs} ms`)),
        this.opts.timeoutMs,
      );
      this.collectors.add(collector);
      for (const line of request.lines) this.opts.send(line);
      if (request.sentinel) {
        token = `culture-${this.nextId()}`;
        this.sentinels.set(token, () => collector.onSentinel?.());
        this.opts.send(`PING :${token}`);
      }
    });
  }

  /** Offers an incoming line to the open requests; true when one claimed it. */
  claim(msg: RawMessage): boolean {
    for (const collector of this.collectors) {
      if (collector.onLine(msg)) return true;
    }
    return false;
  }

  /** A PONG with `token` arrived: ends the request whose sentinel it answers, if any. */
  onPong(token: string): void {
    const done = this.sentinels.get(token);
    if (done) {
      this.sentinels.delete(token);
      done();
    }
  }

  /** Fails every open request with `err` (the connection went away, or we are closing). */
  failAll(err: Error): void {
    for (const collector of [...this.collectors]) collector.fail(err);
    this.collectors.clear();
    this.sentinels.clear();
  }
}
