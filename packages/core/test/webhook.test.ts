// The webhook half of alerts, against a real HTTP server on 127.0.0.1: the body and headers,
// the HMAC signature, the events filter, and failures (refused, slow, HTTP 500) that must
// never hold up or break the IRC copy.
import { createHmac, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { errorText, escalationText, questionText, spiralingText } from "../src/alerts/alert-texts.js";
import { Alerts } from "../src/alerts/alerts.js";
import { webhooksSchema, type WebhooksConfig } from "../src/config/schema.js";
import { createDaemonHooks } from "../src/hooks.js";
import { createLogger } from "../src/logger.js";

const NICK = "spark-culture";
const CORE_VERSION = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;

interface Received {
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A real HTTP server recording every request; `respond` decides the answer (or never answers). */
async function webhookServer(respond: (req: Received, res: ServerResponse) => void = (_r, res) => res.writeHead(204).end()) {
  const requests: Received[] = [];
  const arrivals: (() => void)[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      const r = { method: req.method ?? "", headers: req.headers, body };
      requests.push(r);
      for (const a of arrivals.splice(0)) a();
      respond(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  const arrived = async (count: number) => {
    while (requests.length < count) await new Promise<void>((r) => arrivals.push(r));
  };
  return { url: `http://127.0.0.1:${port}/hooks/culture?token=abc`, requests, arrived };
}

/** A URL on which nothing listens (a port we bound and released). */
async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/webhook`;
}

function setup(webhooks: Partial<WebhooksConfig>, extra: { hooks?: ReturnType<typeof createDaemonHooks> } = {}) {
  const irc: string[] = [];
  const logs: string[] = [];
  const clock = { t: 1_700_000_123_456, now() { return this.t; } };
  const alerts = new Alerts({
    nick: NICK,
    webhooks: { ...webhooksSchema.parse({}), ...webhooks },
    logger: createLogger({ level: "debug", write: (l) => logs.push(l) }),
    sendIrc: (_channel, text) => {
      irc.push(text);
    },
    clock,
    ...(extra.hooks ? { hooks: extra.hooks } : {}),
  });
  return { alerts, irc, logs, clock };
}

describe("webhook delivery", () => {
  it("POSTs the JSON payload with culture's headers, alongside the IRC copy", async () => {
    const server = await webhookServer();
    const { alerts, irc, clock } = setup({ url: server.url });
    const reason = "Retried cmake 4 times";
    await alerts.fire("agent_spiraling", spiralingText(NICK, "benchmark nemotron", reason), { ircContent: escalationText(NICK, "benchmark nemotron", reason) });

    expect(server.requests).toHaveLength(1);
    const req = server.requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["user-agent"]).toBe(`culture/${CORE_VERSION}`);
    expect(req.headers["x-culture-signature"]).toBeUndefined();
    const payload = JSON.parse(req.body) as Record<string, unknown>;
    expect(Object.keys(payload)).toEqual(["content", "event", "nick", "severity", "timestamp"]);
    expect(payload).toEqual({
      content: '[SPIRALING] spark-culture stuck on task "benchmark nemotron". Retried cmake 4 times. Awaiting guidance.',
      event: "agent_spiraling",
      nick: NICK,
      severity: "warning",
      timestamp: Math.floor(clock.t / 1000),
    });
    // IRC gets the escalation text a human answers; the webhook the [SPIRALING] text.
    expect(irc).toEqual([escalationText(NICK, "benchmark nemotron", reason)]);
  });

  it("signs the exact body with HMAC-SHA256 when a secret is set", async () => {
    const server = await webhookServer();
    const secret = "s3cret-key";
    const { alerts } = setup({ url: server.url, secret });
    await alerts.fire("agent_question", questionText(NICK, "Delete 47 files. Proceed?"));
    const req = server.requests[0]!;
    const header = String(req.headers["x-culture-signature"]);
    expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
    const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(req.body).digest("hex")}`);
    expect(timingSafeEqual(Buffer.from(header), expected)).toBe(true);
    // A different secret does not verify.
    const wrong = Buffer.from(`sha256=${createHmac("sha256", "other").update(req.body).digest("hex")}`);
    expect(timingSafeEqual(Buffer.from(header), wrong)).toBe(false);
  });

  it("sends nothing for events not in webhooks.events", async () => {
    const server = await webhookServer();
    const { alerts, irc } = setup({ url: server.url, events: ["agent_spiraling", "agent_error"] });
    await alerts.fire("agent_question", questionText(NICK, "q?"));
    await alerts.fire("agent_complete", "[COMPLETE] done");
    expect(server.requests).toHaveLength(0);
    expect(irc).toHaveLength(0);
    await alerts.fire("agent_error", errorText(NICK, 1));
    expect(server.requests).toHaveLength(1);
    expect(irc).toHaveLength(1);
  });

  it("still posts to IRC when the webhook refuses connections, and logs the failure", async () => {
    const { alerts, irc, logs } = setup({ url: await refusedUrl() });
    await alerts.fire("agent_error", errorText(NICK, 1));
    expect(irc).toEqual([errorText(NICK, 1)]);
    expect(logs.some((l) => l.includes("WARN") && l.includes("webhook POST") && l.includes("ECONNREFUSED") && l.includes("not retried"))).toBe(true);
    // The URL's path and query (where Discord and Slack keep tokens) are not logged.
    expect(logs.some((l) => l.includes("/webhook"))).toBe(false);
  });

  it("does not wait for a slow webhook before posting to IRC, and gives up after timeout_seconds", async () => {
    let ircSentBeforeRequestArrived: boolean | null = null;
    const server = await webhookServer(() => {
      // Never answers.
    });
    const { alerts, irc, logs } = setup({ url: server.url, timeout_seconds: 1 });
    const firing = alerts.fire("agent_error", errorText(NICK, 1));
    // The server holds the request: the IRC copy must already be out.
    await server.arrived(1);
    ircSentBeforeRequestArrived = irc.length === 1;
    await firing;
    expect(ircSentBeforeRequestArrived).toBe(true);
    expect(irc).toEqual([errorText(NICK, 1)]);
    expect(logs.some((l) => l.includes("WARN") && l.includes("no answer within 1s"))).toBe(true);
  });

  it("logs an HTTP error status without retrying", async () => {
    const server = await webhookServer((_r, res) => res.writeHead(500, "Internal Server Error").end("oops"));
    const { alerts, irc, logs } = setup({ url: server.url });
    await alerts.fire("agent_error", errorText(NICK, 1));
    expect(server.requests).toHaveLength(1);
    expect(irc).toHaveLength(1);
    expect(logs.some((l) => l.includes("answered HTTP 500"))).toBe(true);
  });

  it("collapses duplicates for the webhook too, and carries the alert hook's rewrite", async () => {
    const server = await webhookServer();
    const hooks = createDaemonHooks();
    hooks.alert.tap("Tagger", (a) => (a ? { ...a, content: `${a.content} [prod]` } : a));
    hooks.alert.tap("Muter", (a) => (a?.event === "agent_complete" ? null : a));
    const { alerts, clock } = setup({ url: server.url }, { hooks });
    await alerts.fire("agent_error", errorText(NICK, 1));
    await alerts.fire("agent_error", errorText(NICK, 1));
    await alerts.fire("agent_complete", "[COMPLETE] done");
    expect(server.requests.map((r) => (JSON.parse(r.body) as { content: string }).content)).toEqual([`${errorText(NICK, 1)} [prod]`]);
    clock.t += 60_000;
    await alerts.fire("agent_error", errorText(NICK, 1));
    expect(server.requests).toHaveLength(2);
  });
});
