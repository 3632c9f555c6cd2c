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
export interface RetryTransientOptions {
  policy: RetryPolicy;
  /** The failure in `err` when another try may help (and the backend is not stopping), else null: `err` is thrown. */
  transient(err: unknown): TransientFailure | null;
  /** `RunnerContext.retrying`; absent for calls whose asker must not hear of them (a silent turn). */
  retrying?: (retry: RetryAnnouncement) => void;
  /** Waits `ms`; resolves false when the wait was cut short (stop, interrupt): the failure is thrown then. Default: a timer. */
  wait?(ms: number): Promise<boolean>;
  /** Called before each wait (for the backend's log). */
  onRetry?(failure: TransientFailure, retry: number, delayMs: number): void;
}

/**
 * Runs `run`, and again after a backoff while it throws a transient failure, at most
 * `policy.retries` more times; each retry is announced. Throws the last error.
 */
export async function retryTransient<T>(run: (attempt: number) => Promise<T>, o: RetryTransientOptions): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run(attempt);
    } catch (err) {
      const failure = attempt < o.policy.retries ? o.transient(err) : null;
      if (!failure) throw err;
      const delayMs = retryDelayMs(o.policy, attempt);
      o.onRetry?.(failure, attempt + 1, delayMs);
      announceRetry(o.retrying, failure, attempt + 1, delayMs);
      const waited = o.wait ? await o.wait(delayMs) : await sleep(delayMs);
      if (!waited) throw err;
    }
  }
}

function sleep(ms: number): Promise<true> {
  return new Promise((resolve) => setTimeout(() => resolve(true), ms));
}
