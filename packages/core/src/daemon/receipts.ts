/**
 * Receipts: every line addressed to the agent gets exactly one visible acknowledgement of its
 * state and, later, exactly one final state (receipt-texts.ts has the states and words).
 *
 * - A ticket is opened per addressed line. {@link Receipts.ack} shows its first state (queued
 *   with its position, working, paused and by whom); a later state change is only recorded.
 *   {@link Receipts.final} ends it (done, failed, dropped, merged, refused, over a limit); the
 *   first final wins and any later one is counted as ignored, never shown twice.
 * - How it shows (`receipts:`): `auto` reacts with an IRCv3 `+draft/react` TAGMSG on the
 *   asker's msgid where the server relays client tags and the state needs no words (working,
 *   next in line, done), else a short NOTICE to the sender; `notice` always the NOTICE; `off`
 *   nothing. A failure always answers where the line was asked, in one PRIVMSG line (a person
 *   must learn that their request failed and what happens next), whatever the mode.
 * - Bounded: per sender at most `perWindow` receipts (3) per `windowMs` (1 s); the rest of the
 *   window is held and sent as one summary NOTICE when it ends, and while the sender keeps
 *   flooding, each following second brings only its summary. So every line's state is told
 *   within about a second, and a flood of mentions is never a flood of receipts. Receipts go
 *   through the transport's receipt lane, ahead of a reply backlog but under the same flood
 *   budget.
 */
import type { ReceiptMode } from "../config/schema.js";
import type { IrcTransport } from "../irc/irc-transport.js";
import type { Logger } from "../logger.js";
import { failureLine, FINAL_STATES, heldLine, reactionOf, receiptNotice, summaryNotice, type ReceiptState, type ReceiptStateName } from "./receipt-texts.js";

/** An addressed line being tracked. */
export interface ReceiptTicket {
  /** The prompt origin id (or a fresh id for a line that never became a prompt). */
  id: string;
  sender: string;
  /** Where answers go: the channel, or the sender for a DM. */
  replyTo: string;
  /** `#channel` or `DM`. */
  place: string;
  /** The sender's line id (IRCv3 msgid), when the server gave one. */
  msgid: string | null;
  text: string;
}

/** Counts for status and the bench: every addressed line ends in exactly one final state. */
export interface ReceiptStats {
  mode: ReceiptMode;
  /** Lines tracked (addressed lines that got a ticket). */
  lines: number;
  /** Lines whose first state was shown (or, with `off`, recorded). */
  acknowledged: number;
  /** Final states reached, by state. */
  final: Partial<Record<ReceiptStateName, number>>;
  /** Lines still open (waiting or in a turn). */
  open: number;
  /** Second final states that were ignored (should stay 0). */
  ignored: number;
  /** Lines told they are kept until the agent can run (not a final state: they run later). */
  held: number;
  /** Receipt lines sent, held into summaries, and refused by a full receipt lane. */
  sent: number;
  summarized: number;
  laneFull: number;
}

/** What {@link Receipts} needs. */
export interface ReceiptsOptions {
  mode: ReceiptMode;
  transport(): IrcTransport | undefined;
  logger: Logger;
  /** Receipts per sender per window before the rest is summarized (default 3). */
  perWindow?: number;
  /** The window (default 1 s). */
  windowMs?: number;
}

interface Window {
  sent: number;
  held: Map<ReceiptStateName, number>;
  timer: NodeJS.Timeout | null;
}

/** The receipts of one agent daemon. */
export class Receipts {
  private readonly open = new Map<string, ReceiptTicket & { acked: boolean; told?: string; held?: boolean }>();
  private readonly windows = new Map<string, Window>();
  /** Ids that reached their final state (the newest 10,000), so a second final is counted. */
  private readonly closed = new Set<string>();
  private readonly stats: ReceiptStats;
  private readonly perWindow: number;
  private readonly windowMs: number;

  constructor(private readonly o: ReceiptsOptions) {
    this.perWindow = o.perWindow ?? 3;
    this.windowMs = o.windowMs ?? 1_000;
    this.stats = { mode: o.mode, lines: 0, acknowledged: 0, final: {}, open: 0, ignored: 0, held: 0, sent: 0, summarized: 0, laneFull: 0 };
  }

  /** Starts tracking an addressed line. */
  track(ticket: ReceiptTicket): void {
    this.open.set(ticket.id, { ...ticket, acked: false });
    this.stats.lines++;
  }

  /** True when `id` is tracked and not final yet. */
  isOpen(id: string): boolean {
    return this.open.has(id);
  }

  /** The line's state now: shown when it is the first one, recorded otherwise. */
  ack(id: string, state: ReceiptState): void {
    const t = this.open.get(id);
    if (!t || t.acked) return;
    t.acked = true;
    this.stats.acknowledged++;
    this.show(t, state);
  }

  /**
   * A later state the asker must hear although the line was acknowledged already (it waits
   * because the agent went over budget): shown once per line and state, under the same
   * per-sender bound as every receipt.
   */
  tell(id: string, state: ReceiptState): void {
    const t = this.open.get(id);
    if (!t || t.told === state.state) return;
    t.told = state.state;
    if (!t.acked) {
      t.acked = true;
      this.stats.acknowledged++;
    }
    this.show(t, state);
  }

  /**
   * The line is kept while the agent cannot run (not signed in, circuit open): told once per
   * line, where it was asked (like a failure, whatever the mode), even when it was acknowledged
   * already; not final: it runs once someone fixes the agent, and then ends like any line.
   */
  held(id: string, state: Extract<ReceiptState, { state: "held" }>): void {
    const t = this.open.get(id);
    if (!t || t.held) return;
    t.held = true;
    if (!t.acked) this.stats.acknowledged++;
    t.acked = true;
    this.stats.held++;
    this.show(t, state);
  }

  /**
   * The line's final state: shown (unless its acknowledgement already said it all: a `done`
   * after an acknowledged line shows only as a reaction in `auto`), counted, and the ticket
   * closed. A second final state is ignored. `line` replaces the failure line's words;
   * `shown` says the daemon already told the sender in its own words.
   */
  final(id: string, state: ReceiptState, line?: string, shown = false): void {
    const t = this.open.get(id);
    if (!t) {
      if (this.closed.has(id)) this.stats.ignored++;
      return;
    }
    this.open.delete(id);
    this.closed.add(id);
    if (this.closed.size > 10_000) this.closed.delete(this.closed.values().next().value!);
    this.stats.final[state.state] = (this.stats.final[state.state] ?? 0) + 1;
    if (!t.acked) this.stats.acknowledged++;
    if (shown) return;
    // A successful turn speaks for itself (the reply); in auto a reaction marks it done.
    if (state.state === "done" && !(this.o.mode === "auto" && this.reacts(t))) return;
    this.show(t, state, line);
  }

  /** A line that ends at once (merged, refused, over a limit): tracked, acknowledged and final. */
  terminal(ticket: ReceiptTicket, state: ReceiptState, alreadyShown = false): void {
    this.stats.lines++;
    this.stats.acknowledged++;
    this.stats.final[state.state] = (this.stats.final[state.state] ?? 0) + 1;
    if (!alreadyShown) this.show(ticket, state);
  }

  /** Counts for status. */
  snapshot(): ReceiptStats {
    return { ...this.stats, final: { ...this.stats.final }, open: this.open.size };
  }

  /** Stops the summary timers (the daemon is stopping). */
  stop(): void {
    for (const w of this.windows.values()) if (w.timer) clearTimeout(w.timer);
    this.windows.clear();
  }

  private reacts(t: ReceiptTicket): boolean {
    return t.msgid !== null && (this.o.transport()?.clientTags ?? false);
  }

  private show(t: ReceiptTicket, state: ReceiptState, line?: string): void {
    const transport = this.o.transport();
    if (!transport) return;
    if (state.state === "failed") {
      // Failures always reach the asker, where they asked, in one line.
      this.send(transport, t.replyTo, { command: "PRIVMSG", text: line ?? failureLine(t.sender, state, t.text) }, "none", { sender: t.sender, state: "failed" });
      return;
    }
    if (state.state === "held") {
      // Like a failure, where they asked, whatever the mode; but bounded per sender (a flood of mentions to a broken agent).
      if (this.admit(t.sender, "held")) this.send(transport, t.replyTo, { command: "PRIVMSG", text: heldLine(t.sender, state, t.text) }, "none", { sender: t.sender, state: "held" });
      return;
    }
    if (this.o.mode === "off") return;
    if (!this.admit(t.sender, state.state)) return;
    const reaction = this.o.mode === "auto" && this.reacts(t) ? reactionOf(state) : null;
    // "done" waits behind the reply it marks; everything else goes ahead of waiting replies.
    const fold = { sender: t.sender, state: state.state };
    if (reaction) this.send(transport, t.replyTo, { tags: { "+draft/reply": t.msgid!, "+draft/react": reaction } }, state.state === "done" ? "messages" : "none", fold);
    else this.send(transport, t.sender, { command: "NOTICE", text: receiptNotice(t.place, state, t.text) }, "none", fold);
  }

  /**
   * Queues one receipt line. When the receipt lane is full, a receipt of a sender's line is
   * not lost: it is folded into that sender's next summary (`fold`), which the next window
   * sends (and, while the lane stays full, the one after).
   */
  private send(transport: IrcTransport, target: string, r: Parameters<IrcTransport["receipt"]>[1], after: "none" | "messages" = "none", fold?: { sender: string; state: ReceiptStateName }): boolean {
    if (transport.receipt(target, r, after)) {
      this.stats.sent++;
      return true;
    }
    this.stats.laneFull++;
    if (fold) this.hold(fold.sender, fold.state);
    else this.o.logger.warn("a receipt was not sent (the receipt lane is full or the target unusable)", { target });
    return false;
  }

  /** Holds one receipt for the sender's summary at the end of their window. */
  private hold(sender: string, state: ReceiptStateName): void {
    const key = sender.toLowerCase();
    const w = this.windows.get(key) ?? this.openWindow(sender, key, this.perWindow);
    w.held.set(state, (w.held.get(state) ?? 0) + 1);
    this.stats.summarized++;
  }

  /** The per-sender bound: true when this receipt may go out now; otherwise it is held for the summary. */
  private admit(sender: string, state: ReceiptStateName): boolean {
    const key = sender.toLowerCase();
    const w = this.windows.get(key) ?? this.openWindow(sender, key, 0);
    if (w.sent < this.perWindow) {
      w.sent++;
      return true;
    }
    this.hold(sender, state);
    return false;
  }

  private openWindow(sender: string, key: string, sent: number): Window {
    const w: Window = { sent, held: new Map(), timer: null };
    this.windows.set(key, w);
    w.timer = setTimeout(() => this.closeWindow(sender, key, w), this.windowMs);
    w.timer.unref?.();
    return w;
  }

  /** A window ends: its held receipts go as one summary, and a sender still flooding gets only summaries next window. */
  private closeWindow(sender: string, key: string, w: Window): void {
    if (this.windows.get(key) === w) this.windows.delete(key);
    if (w.held.size === 0) return;
    const transport = this.o.transport();
    const next = this.openWindow(sender, key, this.perWindow);
    // A summary the full lane refused is carried into the next window's (told, never lost).
    if (!transport || !this.send(transport, sender, { command: "NOTICE", text: summaryNotice(w.held) })) {
      for (const [state, n] of w.held) next.held.set(state, (next.held.get(state) ?? 0) + n);
    }
  }
}

/** True for a state that ends a line's life. */
export function isFinal(state: ReceiptStateName): boolean {
  return FINAL_STATES.includes(state);
}
