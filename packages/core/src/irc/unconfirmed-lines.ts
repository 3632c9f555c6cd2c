/**
 * Message lines written to a connection that the server has not yet confirmed reading.
 *
 * A line written to a socket is not a line the server read: when the server drops us (it
 * already broadcast our QUIT), the local socket accepts writes until the close reaches this
 * process, and on a busy machine that takes long enough for `irc_send` to be answered
 * `queued: false` and the line to vanish with the socket (issue #31: 2 of 16 runs on InspIRCd
 * under load). So each written message line is kept until a `PING :culture-sent-N` sent after
 * it is answered: servers handle a client's lines in order, so the PONG proves every line
 * before the PING was read. A disconnect hands the unconfirmed lines back to the queue, to go
 * out first after the reconnect.
 *
 * One sentinel is out at a time, so a steady stream of replies costs about one PING per round
 * trip, and a full queue one per {@link MAX_UNCOVERED} lines, not one per line: the flood
 * budget stays the replies'.
 */

/** A sentinel is sent at the latest once this many lines await one, even while more are queued. */
export const MAX_UNCOVERED = 20;

const TOKEN_PREFIX = "culture-sent-";

/** The written, unconfirmed message lines of one transport. */
export class UnconfirmedLines {
  private lines: string[] = [];
  /** The outstanding sentinel: its token and how many of `lines` it covers. */
  private outstanding: { token: string; covers: number } | null = null;
  private counter = 0;

  /** Lines written and not yet confirmed. */
  get size(): number {
    return this.lines.length;
  }

  /** A message line was written to the connection. */
  written(line: string): void {
    this.lines.push(line);
  }

  /**
   * The `PING` line to send now to confirm what was written, or null: none while one is out,
   * none for no new lines, and while more lines are waiting (`queueEmpty` false) only once
   * {@link MAX_UNCOVERED} lines would otherwise go unconfirmed.
   */
  sentinel(queueEmpty: boolean): string | null {
    if (this.outstanding || this.lines.length === 0) return null;
    if (!queueEmpty && this.lines.length < MAX_UNCOVERED) return null;
    const token = `${TOKEN_PREFIX}${++this.counter}`;
    this.outstanding = { token, covers: this.lines.length };
    return `PING :${token}`;
  }

  /** A PONG arrived: true when it answered our sentinel (whose lines are then confirmed). */
  onPong(token: string): boolean {
    if (!token.startsWith(TOKEN_PREFIX)) return false;
    if (this.outstanding?.token === token) {
      this.lines.splice(0, this.outstanding.covers);
      this.outstanding = null;
    }
    return true;
  }

  /** The connection is gone: returns every unconfirmed line (oldest first) and forgets them. */
  takeAll(): string[] {
    this.outstanding = null;
    return this.lines.splice(0);
  }
}
