/** The agent daemon's timings and limits (all configurable so slow paths run fast in tests). */

/** Timings and limits the daemon uses; all configurable so slow paths run fast in tests. */
export interface DaemonTimings {
  /** How long an interrupted turn may take to end before the runner is restarted. */
  interruptGraceMs: number;
  /** IRC reconnect backoff bounds. */
  reconnectMinMs: number;
  reconnectMaxMs: number;
  /** How long the first connection may take. */
  connectTimeoutMs: number;
  /** How many mentions/DMs are kept while paused or busy. */
  promptQueueLimit: number;
  /** How many of them may come from one sender. */
  perSenderLimit: number;
  /** Agent messages in a channel since the last human one after which agents' mentions are ignored. */
  maxAgentHops: number;
  /** Compact the prompt journal past this size. */
  journalMaxBytes: number;
  /** How long an agent a killed daemon left running gets between SIGTERM and SIGKILL. */
  leftoverGraceMs: number;
  /** The daemon's clock for schedules, triggers and budget periods (tests inject one they can move). */
  now: () => number;
  /** The longest a schedule waits before it looks at the clock again (a moved or suspended clock is noticed within this). */
  scheduleCheckMaxMs: number;
  /** How often the trigger file is looked for. */
  triggerFilePollMs: number;
  /** A turn whose model-API retries have waited this long tells its asker it is delayed (retry-notice.ts). */
  retryNoticeMs: number;
}

/** The production values of {@link DaemonTimings}. */
export const DEFAULT_TIMINGS: DaemonTimings = {
  interruptGraceMs: 10_000,
  reconnectMinMs: 1_000,
  reconnectMaxMs: 60_000,
  connectTimeoutMs: 15_000,
  promptQueueLimit: 200,
  perSenderLimit: 20,
  maxAgentHops: 4,
  journalMaxBytes: 1024 * 1024,
  leftoverGraceMs: 5_000,
  now: () => Date.now(),
  scheduleCheckMaxMs: 60_000,
  triggerFilePollMs: 1_000,
  retryNoticeMs: 30_000,
};
