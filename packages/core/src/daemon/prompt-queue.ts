/**
 * The prompts waiting for the agent, fair by construction:
 *
 * - Three classes, served in order: `system` (the daemon's own: resume after a crash,
 *   /compact), `priority` (operators' prompts and every DM), `chatter` (channel mentions by
 *   anyone else). FIFO within a class.
 * - Per-sender limit: one sender has at most `perSenderLimit` prompts waiting; more from them
 *   are refused (not queued) until the agent has caught up. A prompt identical to one the same
 *   sender already has waiting (same place, same text) is folded into it.
 * - When the whole queue is full, a new prompt evicts the newest prompt of the sender with
 *   the most waiting in the lowest class that is not above the newcomer's; if there is none
 *   (everything waiting matters more), the newcomer is refused. So spam from one user can
 *   never push out an operator's prompt or a DM.
 *
 * Refusals are returned, not logged: the daemon reports an overflow once per episode.
 */
import type { PromptOrigin } from "../events.js";

/** The classes of prompts, most important first. */
export type PromptClass = "system" | "priority" | "chatter";
const CLASSES: PromptClass[] = ["system", "priority", "chatter"];

/** A prompt waiting for its turn. */
export interface QueuedPrompt {
  origin: PromptOrigin;
  text: string;
  klass: PromptClass;
  /** True when the prompt is in the durable journal (it is marked done when its turn ends). */
  journaled?: boolean;
}

/** What {@link PromptQueue.push} did. */
export type PushResult =
  | { accepted: true; evicted: QueuedPrompt | null }
  | { accepted: false; reason: "sender_limit" | "full" | "duplicate" };

/** Limits of {@link PromptQueue}. */
export interface PromptQueueLimits {
  /** All prompts waiting. */
  limit: number;
  /** Prompts waiting from one sender. */
  perSenderLimit: number;
}

/** The fair prompt queue. */
export class PromptQueue {
  private readonly lanes: Record<PromptClass, QueuedPrompt[]> = { system: [], priority: [], chatter: [] };

  constructor(private readonly limits: PromptQueueLimits) {}

  /** Prompts waiting. */
  get length(): number {
    return this.lanes.system.length + this.lanes.priority.length + this.lanes.chatter.length;
  }

  /** Prompts waiting per class. */
  counts(): Record<PromptClass, number> {
    return { system: this.lanes.system.length, priority: this.lanes.priority.length, chatter: this.lanes.chatter.length };
  }

  /** Prompts waiting from `sender` (any class). */
  countFrom(sender: string): number {
    const key = fold(sender);
    let n = 0;
    for (const c of CLASSES) for (const p of this.lanes[c]) if (p.origin.sender !== null && fold(p.origin.sender) === key) n++;
    return n;
  }

  /**
   * Checks whether `prompt` would be accepted, without changing anything (the daemon journals
   * a prompt before it queues it, and only what will be queued).
   */
  check(prompt: QueuedPrompt): PushResult {
    const sender = prompt.origin.sender;
    if (prompt.klass !== "system" && sender !== null) {
      if (this.isDuplicate(prompt)) return { accepted: false, reason: "duplicate" };
      if (this.countFrom(sender) >= this.limits.perSenderLimit) return { accepted: false, reason: "sender_limit" };
    }
    if (this.length < this.limits.limit || prompt.klass === "system") return { accepted: true, evicted: null };
    const victim = this.victimFor(prompt);
    return victim ? { accepted: true, evicted: victim } : { accepted: false, reason: "full" };
  }

  /** Queues `prompt` at the back of its class (see the module comment for the rules). */
  push(prompt: QueuedPrompt): PushResult {
    const result = this.check(prompt);
    if (!result.accepted) return result;
    if (result.evicted) this.remove(result.evicted);
    this.lanes[prompt.klass].push(prompt);
    return result;
  }

  /**
   * Queues `prompt` at the back of its class without any limit: for prompts a previous daemon
   * accepted (from the journal), which must not be refused now.
   */
  restore(prompt: QueuedPrompt): void {
    this.lanes[prompt.klass].push(prompt);
  }

  /** Puts `prompt` at the front of its class (a prompt that could not be run yet goes back). */
  unshift(prompt: QueuedPrompt): void {
    this.lanes[prompt.klass].unshift(prompt);
  }

  /** Takes the next prompt: system first, then priority, then chatter. */
  shift(): QueuedPrompt | undefined {
    for (const c of CLASSES) {
      const p = this.lanes[c].shift();
      if (p) return p;
    }
    return undefined;
  }

  /** The 1-based place of the prompt with origin `id` in delivery order, or 0 when it is not waiting. */
  positionOf(id: string): number {
    let n = 0;
    for (const c of CLASSES)
      for (const p of this.lanes[c]) {
        n++;
        if (p.origin.id === id) return n;
      }
    return 0;
  }

  /** Everything waiting, in delivery order (not removed). */
  waiting(): QueuedPrompt[] {
    return CLASSES.flatMap((c) => this.lanes[c]);
  }

  /** Removes and returns everything waiting, in delivery order. */
  clear(): QueuedPrompt[] {
    const all = CLASSES.flatMap((c) => this.lanes[c]);
    for (const c of CLASSES) this.lanes[c] = [];
    return all;
  }

  private isDuplicate(prompt: QueuedPrompt): boolean {
    const { sender, channel, kind } = prompt.origin;
    const key = fold(sender!);
    return this.lanes[prompt.klass].some(
      (p) => p.origin.kind === kind && p.origin.channel === channel && p.origin.sender !== null && fold(p.origin.sender) === key && p.text === prompt.text,
    );
  }

  /** The prompt a full queue gives up for `incoming`, or null. */
  private victimFor(incoming: QueuedPrompt): QueuedPrompt | null {
    // Lowest class first, never above the newcomer's own class.
    for (const c of [...CLASSES].reverse()) {
      if (CLASSES.indexOf(c) < CLASSES.indexOf(incoming.klass) || c === "system") break;
      const lane = this.lanes[c];
      if (lane.length === 0) continue;
      const bySender = new Map<string, number>();
      for (const p of lane) {
        const k = p.origin.sender === null ? "" : fold(p.origin.sender);
        bySender.set(k, (bySender.get(k) ?? 0) + 1);
      }
      let worst = "";
      let most = 0;
      for (const [k, n] of bySender) if (n > most) [worst, most] = [k, n];
      // Within the newcomer's own class, only someone holding more than the newcomer's sender
      // would (after this prompt) gives one up; otherwise the newcomer is refused.
      const mine = incoming.origin.sender === null ? "" : fold(incoming.origin.sender);
      if (c === incoming.klass && most <= (bySender.get(mine) ?? 0) + 1) return null;
      for (let i = lane.length - 1; i >= 0; i--) {
        const p = lane[i]!;
        if ((p.origin.sender === null ? "" : fold(p.origin.sender)) === worst) return p;
      }
    }
    return null;
  }

  private remove(prompt: QueuedPrompt): void {
    const lane = this.lanes[prompt.klass];
    const i = lane.indexOf(prompt);
    if (i >= 0) lane.splice(i, 1);
  }
}

/** IRC nicks compare case-insensitively. */
function fold(nick: string): string {
  return nick.toLowerCase();
}
