/**
 * The HTTP trigger (docs/schedules.md "Triggers"): `POST /agents/<nick>/trigger` on the agent's
 * own daemon (127.0.0.1 by default) queues a prompt for the agent. Served by each daemon, not
 * one shared server: a daemon is the only process that can queue its agent's prompts, and
 * culture has no other long-running process per machine to host it.
 *
 * A request is accepted only when every check passes, in this order, each refusal a 4xx whose
 * JSON `error` names the reason; nothing is queued before the last check:
 *
 * 1. path `/agents/<nick>/trigger` (404 `unknown agent`), method POST (405 with `Allow: POST`);
 * 2. body at most `max_body_bytes` (413; reading stops there);
 * 3. `X-Culture-Timestamp` (epoch seconds) within `window_seconds` of the daemon's clock (401 `stale timestamp`);
 * 4. `X-Culture-Signature: sha256=<hex>` = HMAC-SHA256 keyed by the agent's secret of
 *    `<timestamp>.<body>` (the webhooks' scheme with the timestamp signed in, so a captured
 *    request cannot be re-sent with a fresh time), compared in constant time (401 `bad signature`);
 * 5. not seen before: every accepted signature is remembered for the window (409 `replayed`);
 * 6. the body is JSON `{"prompt": "...", "source"?: "...", "channel"?: "..."}` (400);
 * 7. the rate limit shared with the trigger file (429 with `Retry-After`);
 * 8. the agent's queue accepts it (503 otherwise). 202 `{"queued": true, "id": ...}`.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { TriggerConfig } from "../config/trigger-schema.js";
import { errorMessage } from "../errors.js";
import type { Logger } from "../logger.js";

/** The header with the request's time, epoch seconds. */
export const TRIGGER_TIMESTAMP_HEADER = "X-Culture-Timestamp";
/** The header with `sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`. */
export const TRIGGER_SIGNATURE_HEADER = "X-Culture-Signature";

/** The signature of a trigger request (what a client sends in {@link TRIGGER_SIGNATURE_HEADER}). */
export function signTrigger(secret: string, timestamp: number | string, body: string | Buffer): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest("hex")}`;
}

/** What a trigger asks for, checked. */
export interface TriggerRequest {
  prompt: string;
  /** Who sent it (`github`, `monitor`), shown in the prompt line; default `http`. */
  source: string;
  /** Where the reply goes, or null for the configured one. */
  channel: string | null;
}

/** What the server needs from the daemon. */
export interface TriggerServerOptions {
  nick: string;
  config: TriggerConfig & { secret: string };
  logger: Logger;
  now: () => number;
  /** The agent's channels: a request's `channel` must be one of them (or a nick). */
  channels: readonly string[];
  /** Counts one prompt against the shared rate limit; returns seconds to wait when over it, else 0. */
  take(): number;
  /** Queues the prompt; returns why the queue refused it, or null and the prompt's id. */
  queue(req: TriggerRequest): { refused: string } | { id: string };
}

/** One agent's HTTP trigger endpoint. */
export class TriggerServer {
  private server: Server | null = null;
  /** Signatures accepted within the window: signature -> when it expires (ms). */
  private readonly seen = new Map<string, number>();
  private counts = { accepted: 0, refused: 0 };

  constructor(private readonly o: TriggerServerOptions) {}

  /** Listens on the configured host and port. */
  async start(): Promise<void> {
    const server = createServer((req, res) => void this.onRequest(req, res).catch((err) => this.reply(res, 500, { error: `internal error: ${errorMessage(err)}` })));
    server.requestTimeout = 10_000;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.o.config.port, this.o.config.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    this.server = server;
    this.o.logger.info(`trigger endpoint listening on ${this.url}`);
  }

  /** `http://host:port/agents/<nick>/trigger`, once listening. */
  get url(): string | null {
    const a = this.server?.address() as AddressInfo | null | undefined;
    if (!a) return null;
    const host = a.family === "IPv6" ? `[${a.address}]` : a.address;
    return `http://${host}:${a.port}/agents/${this.o.nick}/trigger`;
  }

  /** Requests accepted and refused so far (status). */
  get stats(): { accepted: number; refused: number } {
    return { ...this.counts };
  }

  /** Stops listening and drops open connections. */
  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections?.();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0]!;
    const m = /^\/agents\/([^/]+)\/trigger\/?$/.exec(path);
    if (!m) return this.refuse(res, 404, `unknown path ${path}: POST to /agents/${this.o.nick}/trigger`);
    const nick = decodeURIComponent(m[1]!);
    if (nick.toLowerCase() !== this.o.nick.toLowerCase()) return this.refuse(res, 404, `unknown agent ${nick}: this endpoint serves ${this.o.nick}`);
    if (req.method !== "POST") return this.refuse(res, 405, `method ${req.method} not allowed: use POST`, { Allow: "POST" });
    const max = this.o.config.max_body_bytes;
    const declared = Number(req.headers["content-length"] ?? NaN);
    if (declared > max) return this.refuse(res, 413, `body too large: ${declared} bytes, at most ${max}`);
    const body = await readBody(req, max);
    if (body === null) return this.refuse(res, 413, `body too large: more than ${max} bytes`);
    const stamp = header(req, TRIGGER_TIMESTAMP_HEADER);
    if (!stamp || !/^\d{1,12}$/.test(stamp)) return this.refuse(res, 401, `missing or malformed ${TRIGGER_TIMESTAMP_HEADER} (epoch seconds)`);
    const skew = Math.abs(this.o.now() / 1000 - Number(stamp));
    if (skew > this.o.config.window_seconds) return this.refuse(res, 401, `stale timestamp: ${Math.round(skew)}s from the daemon's clock, at most ${this.o.config.window_seconds}s`);
    const signature = header(req, TRIGGER_SIGNATURE_HEADER);
    if (!signature) return this.refuse(res, 401, `missing ${TRIGGER_SIGNATURE_HEADER} (sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">)`);
    if (!sameSignature(signature, signTrigger(this.o.config.secret, stamp, body))) return this.refuse(res, 401, `bad signature: ${TRIGGER_SIGNATURE_HEADER} does not match the body and timestamp for this agent's secret`);
    this.forgetExpired();
    if (this.seen.has(signature)) return this.refuse(res, 409, "replayed: this exact request was already accepted");
    const parsed = parseTrigger(body);
    if ("error" in parsed) return this.refuse(res, 400, parsed.error);
    const ch = parsed.channel;
    if (ch && /^[#&]/.test(ch) && !this.o.channels.some((c) => c.toLowerCase() === ch.toLowerCase())) return this.refuse(res, 400, `channel: ${ch} is not one of the agent's channels (${this.o.channels.join(", ")})`);
    const wait = this.o.take();
    if (wait > 0) return this.refuse(res, 429, `rate limited: at most ${this.o.config.per_minute} triggers a minute; retry in ${wait}s`, { "Retry-After": String(wait) });
    const queued = this.o.queue(parsed);
    if ("refused" in queued) return this.refuse(res, 503, `the agent's queue refused the prompt: ${queued.refused}`);
    this.seen.set(signature, this.o.now() + this.o.config.window_seconds * 2000);
    this.counts.accepted++;
    this.o.logger.info(`trigger from ${parsed.source} queued`, { id: queued.id, bytes: body.length });
    this.reply(res, 202, { queued: true, id: queued.id });
  }

  private refuse(res: ServerResponse, status: number, error: string, headers: Record<string, string> = {}): void {
    this.counts.refused++;
    this.o.logger.warn(`trigger refused (${status}): ${error}`);
    this.reply(res, status, { error }, headers);
  }

  private reply(res: ServerResponse, status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): void {
    if (res.headersSent) return;
    // A refused request's unread body is not waited for: the connection closes after the answer.
    res.writeHead(status, { "Content-Type": "application/json", ...(status >= 400 ? { Connection: "close" } : {}), ...headers });
    res.end(`${JSON.stringify(body)}\n`);
  }

  private forgetExpired(): void {
    const now = this.o.now();
    for (const [sig, until] of this.seen) if (until <= now) this.seen.delete(sig);
  }
}

/** The body as a trigger request, or why it is not one. */
export function parseTrigger(body: Buffer): TriggerRequest | { error: string } {
  let data: unknown;
  try {
    data = JSON.parse(body.toString("utf8"));
  } catch {
    return { error: 'the body is not JSON: send {"prompt": "...", "source": "..."}' };
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) return { error: 'the body must be a JSON object: {"prompt": "..."}' };
  const o = data as Record<string, unknown>;
  const unknown = Object.keys(o).filter((k) => !["prompt", "source", "channel"].includes(k));
  if (unknown.length) return { error: `unknown field${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} (allowed: prompt, source, channel)` };
  if (typeof o.prompt !== "string" || o.prompt.trim() === "") return { error: "prompt: a non-empty string is required" };
  if (o.source !== undefined && (typeof o.source !== "string" || !/^[A-Za-z0-9_.:-]{1,40}$/.test(o.source))) return { error: "source: up to 40 letters, digits, '.', '_', ':' or '-'" };
  if (o.channel !== undefined && (typeof o.channel !== "string" || !/^[#&]?[^\s,\x07\0\r\n]{1,49}$/.test(o.channel))) return { error: "channel: a channel name like #dev, or a nick" };
  return { prompt: o.prompt.replace(/\r\n?/g, "\n").trim(), source: (o.source as string | undefined) ?? "http", channel: (o.channel as string | undefined) ?? null };
}

/** Reads at most `max` bytes; null when the body is longer. */
async function readBody(req: IncomingMessage, max: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function header(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name.toLowerCase()];
  return typeof v === "string" ? v.trim() : null;
}

function sameSignature(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
