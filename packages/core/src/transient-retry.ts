/**
 * Trying a model call again after a transient failure (agent-failure.ts: rate limited,
 * overloaded, a 5xx, a dropped connection), the same way in every backend: exponential
 * backoff, a bounded number of retries, and each retry announced to the daemon
 * (`RunnerContext.retrying`), which tells the asker once the waits get long
 * (daemon/retry-notice.ts).
 *
 * A backend whose agent retries by itself (Claude Code's `system/api_retry`, Codex's
 * `willRetry`, the Copilot runtime's `model.call_failure`) only announces those retries
 * ({@link announceRetry}); culture's own retries ({@link retryTransient},
 * {@link retryDelayMs}) are for failures that reach the backend, so nothing is retried twice
 * over at the same level.
 */
import type { AgentFailureReason } from "./agent-failure.js";
import type { RetryAnnouncement } from "./daemon/retry-notice.js";

/** How often and how slowly to retry. */
export interface RetryPolicy {
  /** Retries after the first try (0: none). */
  retries: number;
  /** The first wait; each retry doubles it. */
  baseDelayMs: number;
  /** No wait is longer than this. */
  maxDelayMs: number;
}

/** A failure worth retrying, in culture's words. */
export interface TransientFailure {
  /** Why (agent-failure.ts); `unknown` is announced as `server_error`. */
  reason: AgentFailureReason;
  /** The agent's or API's words. */
  detail: string;
}

/** The wait before retry number `retry` (0 for the first): `baseDelayMs * 2^retry`, at most `maxDelayMs`. */
export function retryDelayMs(policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs">, retry: number): number {
  return Math.max(0, Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry)));
}

/**
 * Tells the daemon a model call is being retried (by the backend or by its agent). `retrying`
 * is `RunnerContext.retrying` (absent without a daemon). Never throws.
 */
export function announceRetry(
  retrying: ((retry: RetryAnnouncement) => void) | undefined,
  failure: TransientFailure,
  attempt: number | null,
  delayMs: number | null,
): void {
  try {
    retrying?.({ reason: failure.reason === "unknown" ? "server_error" : failure.reason, detail: failure.detail.trim() || "API error", attempt, delayMs });
  } catch {
    // The daemon's notice is best effort: it never fails the turn.
  }
}

/** What {@link retryTransient} needs from its backend. */
export interface RetryTransientOptions<T = unknown> {
  policy: RetryPolicy;
  /** The failure in `err` when another try may help (and the backend is not stopping), else null: `err` is thrown. */
  transient(err: unknown): TransientFailure | null;
  /** `RunnerContext.retrying`; absent for calls whose asker must not hear of them (a silent turn). */
  retrying?: (retry: RetryAnnouncement) => void;
  /** The runner's backoff (its interrupt() and stop() cut the wait short). Default: a plain timer. */
  backoff?: RetryBackoff;
  /**
   * What the call returns when an interrupt cut the wait short (an ACP turn's "cancelled").
   * Without it, or when stop() cut the wait, the failure is thrown.
   */
  interrupted?(): T;
  /** Called before each wait (for the backend's log). */
  onRetry?(failure: TransientFailure, retry: number, delayMs: number): void;
}

/**
 * Runs `run`, and again after a backoff while it throws a transient failure, at most
 * `policy.retries` more times; each retry is announced. Throws the last error, or returns
 * `interrupted()` when an interrupt cut a wait short.
 */
export async function retryTransient<T>(run: (attempt: number) => Promise<T>, o: RetryTransientOptions<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run(attempt);
    } catch (err) {
      const failure = attempt < o.policy.retries ? o.transient(err) : null;
      if (!failure) throw err;
      const delayMs = retryDelayMs(o.policy, attempt);
      o.onRetry?.(failure, attempt + 1, delayMs);
      announceRetry(o.retrying, failure, attempt + 1, delayMs);
      const waited = o.backoff ? await o.backoff.wait(delayMs) : await sleep(delayMs);
      if (!waited) {
        if (o.interrupted && o.backoff?.cutBy === "interrupt") return o.interrupted();
        throw err;
      }
    }
  }
}

/** Who cut a {@link RetryBackoff} wait short. */
export type BackoffCut = "interrupt" | "stop";

/**
 * A runner's wait before it retries (the `backoff` of {@link retryTransient}), which its
 * interrupt() and stop() cut short. A turn interrupted
 * while it waits then ends as interrupted, not with the failure it was waiting out, and no
 * retry starts after the operator said stop.
 */
export class RetryBackoff {
  private readonly cuts = new Set<(by: BackoffCut) => void>();
  /** Who cut the last wait short; null when it ran its time (or none has run). */
  cutBy: BackoffCut | null = null;

  /** Resolves true after `ms`, false when {@link cancel} cut the wait short. */
  wait(ms: number): Promise<boolean> {
    this.cutBy = null;
    return new Promise((resolve) => {
      const cut = (by: BackoffCut): void => {
        clearTimeout(timer);
        this.cuts.delete(cut);
        this.cutBy = by;
        resolve(false);
      };
      const timer = setTimeout(() => {
        this.cuts.delete(cut);
        resolve(true);
      }, ms);
      this.cuts.add(cut);
    });
  }

  /** Cuts every wait in progress short; false when none was. */
  cancel(by: BackoffCut): boolean {
    if (this.cuts.size === 0) return false;
    for (const cut of [...this.cuts]) cut(by);
    return true;
  }
}

function sleep(ms: number): Promise<true> {
  return new Promise((resolve) => setTimeout(() => resolve(true), ms));
}
