/**
 * Alerts to humans (DESIGN.md section 8): every enabled event goes, at the same time, to an
 * IRC channel (`webhooks.irc_channel`, `#alerts`) and, when `webhooks.url` is set, to an HTTP
 * webhook. IRC is the fallback that is always there: its copy is handed to `sendIrc` before
 * the HTTP request even starts, and an HTTP failure, refusal or slow server is only logged —
 * never retried, never thrown, never in the way of the IRC copy.
 *
 * `fire()` resolves once both deliveries have settled (at most `webhooks.timeout_seconds`
 * for the HTTP POST); callers that must not wait use `void alerts.fire(...)`.
 */
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { AsyncSeriesWaterfallHook } from "tapable";
import type { AlertEvent, WebhooksConfig } from "../config/schema.js";
import { errorMessage } from "../errors.js";
import type { AlertPayload, AlertSeverity } from "../events.js";
import type { DaemonHooks } from "../hooks.js";
import type { Logger } from "../logger.js";
import { tapAlertDedupe } from "./alert-dedupe.js";

/** The specification's severity of each event. */
export const DEFAULT_ALERT_SEVERITY: Readonly<Record<AlertEvent, AlertSeverity>> = Object.freeze({
  agent_spiraling: "warning",
  agent_error: "error",
  agent_question: "info",
  agent_timeout: "warning",
  agent_complete: "info",
  // A person must act before the agent can go on.
  approval_requested: "warning",
  approval_resolved: "info",
  budget_warning: "warning",
  // A cap reached: the agent stops taking turns until the period resets or an operator acts.
  budget_exceeded: "error",
});

/** The header carrying the HMAC-SHA256 of the exact request body (`sha256=<hex>`), when `webhooks.secret` is set. */
export const SIGNATURE_HEADER = "X-Culture-Signature";

/** Options of {@link Alerts}. */
export interface AlertsOptions {
  /** The agent the alerts are about. */
  nick: string;
  webhooks: WebhooksConfig;
  logger: Logger;
  /** The daemon's hooks: alerts run through `hooks.alert`. Without them, a private `alert` hook is used. */
  hooks?: DaemonHooks;
  /** Posts one line to an IRC channel (the daemon joins it). Errors are logged. */
  sendIrc: (channel: string, text: string) => void | Promise<void>;
  /** Identical alerts (event + content) within this many ms are collapsed; 0 disables. Default 60000. */
  dedupeWindowMs?: number;
  /** Milliseconds since the epoch (timestamps, de-duplication). Default `Date`. */
  clock?: { now(): number };
}

/** Options of one {@link Alerts.fire}. */
export interface FireOptions {
  /** The text for the IRC copy when it differs from `content` (the escalation message). */
  ircContent?: string;
  /** Overrides the event's default severity. */
  severity?: AlertSeverity;
}

/** Delivers alerts to IRC and the webhook. */
export class Alerts {
  private readonly nick: string;
  private readonly webhooks: WebhooksConfig;
  private readonly logger: Logger;
  private readonly hook: AsyncSeriesWaterfallHook<[AlertPayload | null]>;
  private readonly sendIrc: AlertsOptions["sendIrc"];
  private readonly clock: { now(): number };

  constructor(options: AlertsOptions) {
    this.nick = options.nick;
    this.webhooks = options.webhooks;
    this.logger = options.logger;
    this.sendIrc = options.sendIrc;
    this.clock = options.clock ?? Date;
    this.hook = options.hooks?.alert ?? new AsyncSeriesWaterfallHook<[AlertPayload | null]>(["alert"], "alert");
    const windowMs = options.dedupeWindowMs ?? 60_000;
    if (windowMs > 0) tapAlertDedupe(this.hook, { windowMs, clock: this.clock, logger: this.logger });
  }

  /**
   * Fires one alert: nothing when `event` is not in `webhooks.events`; otherwise the payload
   * runs through the `alert` hook (a tap may rewrite it or return null to drop it; repeats are
   * collapsed there), then goes to IRC at once and to the webhook concurrently. Never rejects.
   */
  async fire(event: AlertEvent, content: string, options: FireOptions = {}): Promise<void> {
    if (!this.webhooks.events.includes(event)) {
      this.logger.debug("alert not sent: event not in webhooks.events", { event });
      return;
    }
    const payload: AlertPayload = {
      event,
      nick: this.nick,
      severity: options.severity ?? DEFAULT_ALERT_SEVERITY[event],
      content,
      ...(options.ircContent !== undefined ? { ircContent: options.ircContent } : {}),
      timestamp: Math.floor(this.clock.now() / 1000),
    };
    let alert: AlertPayload | null;
    try {
      alert = await this.hook.promise(payload);
    } catch (err) {
      // The daemon's hooks report failing taps themselves; a private hook cannot fail. Deliver anyway.
      this.logger.error(`the alert hook failed; delivering the alert unchanged: ${errorMessage(err)}`);
      alert = payload;
    }
    if (!alert) {
      this.logger.debug("alert dropped by the alert hook", { event });
      return;
    }
    const irc = this.deliverIrc(alert); // starts now, before the HTTP request
    const http = this.webhooks.url ? this.postWebhook(alert, this.webhooks.url) : Promise.resolve();
    await Promise.all([irc, http]);
  }

  private async deliverIrc(alert: AlertPayload): Promise<void> {
    const channel = this.webhooks.irc_channel;
    try {
      await this.sendIrc(channel, alert.ircContent ?? alert.content);
    } catch (err) {
      this.logger.warn(`posting the alert to ${channel} failed: ${errorMessage(err)}`, { event: alert.event });
    }
  }

  private async postWebhook(alert: AlertPayload, url: string): Promise<void> {
    const body = JSON.stringify({
      content: alert.content,
      event: alert.event,
      nick: alert.nick,
      severity: alert.severity,
      timestamp: alert.timestamp,
    });
    const headers: Record<string, string> = {
      "Content-Type": "application/json",
      "User-Agent": `culture/${coreVersion()}`,
    };
    if (this.webhooks.secret) headers[SIGNATURE_HEADER] = signWebhookBody(body, this.webhooks.secret);
    const where = redactUrl(url);
    const seconds = this.webhooks.timeout_seconds;
    try {
      const res = await fetch(url, { method: "POST", headers, body, signal: AbortSignal.timeout(seconds * 1000) });
      await res.arrayBuffer().catch(() => undefined); // drain, so the connection is released
      if (res.ok) this.logger.debug("webhook delivered", { event: alert.event, status: res.status });
      else this.logger.warn(`the webhook at ${where} answered HTTP ${res.status} ${res.statusText}; not retried`, { event: alert.event });
    } catch (err) {
      const why =
        (err as { name?: string }).name === "TimeoutError"
          ? `no answer within ${seconds}s (webhooks.timeout_seconds)`
          : describeFetchError(err);
      this.logger.warn(`the webhook POST to ${where} failed: ${why}; not retried`, { event: alert.event });
    }
  }
}

/** `sha256=<hex HMAC-SHA256 of body keyed by secret>`: the {@link SIGNATURE_HEADER} value. */
export function signWebhookBody(body: string, secret: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** A webhook URL without its path and query (Discord and Slack put the token there). */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname === "/" && !u.search ? u.origin : `${u.origin}/…`;
  } catch {
    return "(invalid URL)";
  }
}

/** fetch's "fetch failed" with the useful part (ECONNREFUSED, ENOTFOUND, ...) from its cause. */
function describeFetchError(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return `${cause.code}${cause.message ? ` (${cause.message})` : ""}`;
  return errorMessage(err);
}

let version: string | undefined;

/** @culture/core's version, from the nearest package.json named @culture/core above this module (src/ or dist/). */
function coreVersion(): string {
  if (version !== undefined) return version;
  version = "0.0.0";
  let dir = new URL(".", import.meta.url);
  for (let i = 0; i < 5; i++) {
    try {
      const pkg = JSON.parse(readFileSync(new URL("package.json", dir), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "@culture/core" && pkg.version) return (version = pkg.version);
    } catch {
      // not here; look one level up
    }
    dir = new URL("..", dir);
  }
  return version;
}
