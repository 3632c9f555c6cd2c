/**
 * Collapses repeated identical alerts (same event, same content) within a time window. It is
 * written as a tap on the `alert` hook, like any plugin, and runs after every other tap
 * (stage {@link ALERT_DEDUPE_STAGE}), so it compares what would actually be delivered.
 */
import type { AsyncSeriesWaterfallHook } from "tapable";
import type { AlertPayload } from "../events.js";
import type { Logger } from "../logger.js";

/** The tap's name on the `alert` hook. */
export const ALERT_DEDUPE_PLUGIN = "AlertDedupePlugin";
/** The tap's stage: after taps at the default stage (0), so rewrites are seen first. */
export const ALERT_DEDUPE_STAGE = 1000;

/** Options of {@link tapAlertDedupe}. */
export interface AlertDedupeOptions {
  /** An alert identical to one let through less than this long ago is dropped. */
  windowMs: number;
  clock?: { now(): number };
  logger?: Logger;
}

/** Taps `hook` so that an identical alert within `windowMs` of the last one let through becomes `null` (dropped). */
export function tapAlertDedupe(hook: AsyncSeriesWaterfallHook<[AlertPayload | null]>, options: AlertDedupeOptions): void {
  const clock = options.clock ?? Date;
  /** event + content -> when it was last let through. */
  const lastSent = new Map<string, number>();
  hook.tapPromise({ name: ALERT_DEDUPE_PLUGIN, stage: ALERT_DEDUPE_STAGE }, async (alert) => {
    if (!alert) return alert;
    const now = clock.now();
    for (const [key, at] of lastSent) if (now - at >= options.windowMs) lastSent.delete(key);
    const key = `${alert.event}\0${alert.content}`;
    if (lastSent.has(key)) {
      options.logger?.info("collapsed a repeated alert", { event: alert.event, window_ms: options.windowMs });
      return null;
    }
    lastSent.set(key, now);
    return alert;
  });
}
