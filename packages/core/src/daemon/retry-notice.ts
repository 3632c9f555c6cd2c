/**
 * The asker of a turn hears when the model API keeps failing for a while and the agent keeps
 * retrying (rate limited, overloaded, a 5xx): a backend announces each retry it makes (or its
 * agent makes) through `RunnerContext.retrying`, and once the waits of one turn add up to
 * `retryNoticeMs` the asker's line gets the receipt `delayed: ...; I keep trying` (once per
 * line). Short retries stay quiet: most transient failures are over in seconds.
 */
import { failureReasonText, type AgentFailureReason } from "../agent-failure.js";
import type { PromptOrigin } from "../events.js";
import type { Logger } from "../logger.js";
import type { Receipts } from "./receipts.js";

/** One retry a backend announced. */
export interface RetryAnnouncement {
  /** Why (agent-failure.ts), e.g. `overloaded`. */
  reason: AgentFailureReason;
  /** The agent's or API's words. */
  detail: string;
  /** Which retry this is (1 for the first), when known. */
  attempt: number | null;
  /** How long until it is tried again, when known. */
  delayMs: number | null;
}

/** What the notices need from the daemon. */
export interface RetryNoticeOptions {
  logger: Logger;
  /** The turn in flight's origin, or null. */
  turn(): PromptOrigin | null;
  receipts: Pick<Receipts, "tell" | "isOpen">;
  /** Waits of one turn that add up to this tell its asker. */
  noticeAfterMs: number;
  now?: () => number;
}

/** Adds up each turn's retry waits and tells the asker once (see the module comment). */
export class RetryNotices {
  private turnId: string | null = null;
  private firstAt = 0;
  private waited = 0;
  private told = false;
  private count = 0;

  constructor(private readonly o: RetryNoticeOptions) {}

  /** Retries announced since the daemon started. */
  get retries(): number {
    return this.count;
  }

  /** A backend is retrying. Never throws. */
  retrying(r: RetryAnnouncement): void {
    this.count++;
    const origin = this.o.turn();
    const now = (this.o.now ?? Date.now)();
    this.o.logger.info("the model API failed for now; retrying", { reason: r.reason, attempt: r.attempt, delay_ms: r.delayMs, detail: r.detail.slice(0, 200) });
    if (!origin) return;
    if (origin.id !== this.turnId) {
      this.turnId = origin.id;
      this.firstAt = now;
      this.waited = 0;
      this.told = false;
    }
    this.waited += Math.max(0, r.delayMs ?? 0);
    // Time already spent retrying counts too: the waits announced may be short but many.
    const delayed = Math.max(this.waited, now - this.firstAt + Math.max(0, r.delayMs ?? 0));
    if (this.told || delayed < this.o.noticeAfterMs || !this.o.receipts.isOpen(origin.id)) return;
    this.told = true;
    const next = r.delayMs !== null ? `; next try in ${Math.max(1, Math.round(r.delayMs / 1000))}s` : "";
    this.o.receipts.tell(origin.id, { state: "delayed", why: `${failureReasonText(r.reason)} (${oneLine(r.detail)})${next}` });
  }
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
