/**
 * The HTTP trigger and the trigger file end to end: the embedded IRC server, one real daemon
 * (the echo backend's real agent process), a human on IRC, and a real HTTP client (fetch)
 * against the daemon's real endpoint. Every bad request gets its 4xx naming the reason and
 * leaves nothing queued; the clock (DaemonTimings.now) is the test's, so "stale" and "a minute
 * later" need no waiting.
 */
import { writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { request } from "node:http";
import { startServer } from "@culture/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configToYaml } from "../src/config/config-to-yaml.js";
import { resolveConfig } from "../src/config/load-config.js";
import { signTrigger } from "../src/daemon/trigger-server.js";
import { agentStateDir } from "../src/paths.js";
import { connectRawClient, parseRawLine, type RawIrcClient } from "../src/testing/irc-servers.js";
import { eventually, startTestDaemon, type TestDaemon } from "./helpers/daemon-harness.js";

const SECRET = "s3cret-for-the-trigger-test-0123456789";

describe("trigger", () => {
  let server: { port: number; close(): Promise<void> };
  let d: TestDaemon;
  let alice: RawIrcClient;
  let url: string;
  let clock = Date.parse("2026-11-27T12:00:00Z");
  let accepted = 0;

  beforeAll(async () => {
    server = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
    d = await startTestDaemon({
      port: server.port,
      channels: ["#test", "#ops"],
      agent: { trigger: { secret: SECRET, per_minute: 4, max_body_bytes: 1024, window_seconds: 300 } },
      timings: { now: () => clock, triggerFilePollMs: 25 },
    });
    alice = await connectRawClient(server.port, "alice");
    await alice.join("#test");
    await alice.join("#ops");
    url = (d.daemon.status().trigger as { url: string }).url;
  });
  afterAll(async () => {
    await alice?.close();
    await d?.stop();
    await server?.close();
  });

  /** POSTs `body` signed as the client would (override any part to make it bad). */
  async function post(body: string, o: { ts?: number | string; sig?: string | null; method?: string; path?: string } = {}): Promise<{ status: number; error?: string; headers: Headers; json: Record<string, unknown> }> {
    const ts = String(o.ts ?? Math.floor(clock / 1000));
    const headers: Record<string, string> = { "Content-Type": "application/json", "X-Culture-Timestamp": ts };
    const sig = o.sig === undefined ? signTrigger(SECRET, ts, body) : o.sig;
    if (sig !== null) headers["X-Culture-Signature"] = sig;
    const target = o.path ? new URL(o.path, url).toString() : url;
    const res = await fetch(target, { method: o.method ?? "POST", headers, ...(o.method === "GET" ? {} : { body }) });
    const json = (await res.json()) as Record<string, unknown>;
    return { status: res.status, headers: res.headers, json, ...(typeof json.error === "string" ? { error: json.error } : {}) };
  }

  const heard = (channel: string, text: string) => (line: string) => {
    const p = parseRawLine(line);
    return p.command === "PRIVMSG" && p.params[0] === channel && (p.params[1] ?? "") === `I heard: ${text}`;
  };

  it("listens on 127.0.0.1 and queues a signed prompt with its source in the prompt line; the reply goes to the channel", async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/agents\/spark-bot\/trigger$/);
    const ok = await post(JSON.stringify({ prompt: "run the nightly check", source: "ci" }));
    expect(ok.status).toBe(202);
    expect(ok.json).toMatchObject({ queued: true, id: expect.any(String) });
    accepted++;
    await alice.waitFor(heard("#test", "[trigger ci via HTTP; the reply goes to #test] run the nightly check"));
    const ops = await post(JSON.stringify({ prompt: "page the on-call", channel: "#ops" }));
    expect(ops.status).toBe(202);
    accepted++;
    await alice.waitFor(heard("#ops", "[trigger http via HTTP; the reply goes to #ops] page the on-call"));
  });

  it.each([
    ["a bad signature", { sig: "sha256=" + "0".repeat(64) }, 401, /^bad signature: X-Culture-Signature does not match/],
    ["a signature made with another secret", { sig: signTrigger("another-secret-0123456789", Math.floor(Date.parse("2026-11-27T12:00:00Z") / 1000), '{"prompt":"x"}') }, 401, /^bad signature/],
    ["no signature", { sig: null }, 401, /^missing X-Culture-Signature/],
    ["a stale timestamp", { ts: Math.floor(Date.parse("2026-11-27T11:50:00Z") / 1000) }, 401, /^stale timestamp: 600s from the daemon's clock, at most 300s$/],
    ["a timestamp from the future", { ts: Math.floor(Date.parse("2026-11-27T12:06:00Z") / 1000) }, 401, /^stale timestamp: 360s/],
    ["a malformed timestamp", { ts: "yesterday" }, 401, /^missing or malformed X-Culture-Timestamp/],
    ["an unknown agent", { path: "/agents/spark-other/trigger" }, 404, /^unknown agent spark-other: this endpoint serves spark-bot$/],
    ["an unknown path", { path: "/" }, 404, /^unknown path \/: POST to \/agents\/spark-bot\/trigger$/],
    ["the wrong method", { method: "PUT" }, 405, /^method PUT not allowed: use POST$/],
  ])("refuses %s", async (_what, opts, status, error) => {
    const r = await post('{"prompt":"x"}', opts as Parameters<typeof post>[1]);
    expect(r.status).toBe(status);
    expect(r.error).toMatch(error);
    if (status === 405) expect(r.headers.get("allow")).toBe("POST");
  });

  it.each([
    ["a body that is not JSON", "run it", /^the body is not JSON/],
    ["no prompt", '{"source":"ci"}', /^prompt: a non-empty string is required$/],
    ["an unknown field", '{"prompt":"x","cmd":"rm -rf /"}', /^unknown field cmd/],
    ["a bad source", '{"prompt":"x","source":"a b]"}', /^source: /],
    ["a channel the agent is not in", '{"prompt":"x","channel":"#elsewhere"}', /^channel: #elsewhere is not one of the agent's channels \(#test, #ops\)$/],
  ])("refuses (400) %s, though signed", async (_what, body, error) => {
    const r = await post(body);
    expect(r.status).toBe(400);
    expect(r.error).toMatch(error);
  });

  it("refuses an oversized body (413), whether it says its length or not", async () => {
    const big = JSON.stringify({ prompt: "x".repeat(2000) });
    const r = await post(big);
    expect(r.status).toBe(413);
    expect(r.error).toBe(`body too large: ${big.length} bytes, at most 1024`);
    // Chunked (no Content-Length): reading stops past the limit.
    const ts = String(Math.floor(clock / 1000));
    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(url, { method: "POST", headers: { "X-Culture-Timestamp": ts, "X-Culture-Signature": signTrigger(SECRET, ts, big), "Transfer-Encoding": "chunked" } }, (res) => {
        let b = "";
        res.on("data", (c) => (b += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: b }));
      });
      req.on("error", reject);
      req.write(big.slice(0, 600));
      req.end(big.slice(600));
    });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body).error).toBe("body too large: more than 1024 bytes");
  });

  it("accepts a request once: the same request again is replayed (409)", async () => {
    const body = JSON.stringify({ prompt: "deploy done", source: "deployer" });
    const ts = Math.floor(clock / 1000);
    const first = await post(body, { ts });
    expect(first.status).toBe(202);
    accepted++;
    const again = await post(body, { ts });
    expect(again.status).toBe(409);
    expect(again.error).toBe("replayed: this exact request was already accepted");
    // Captured and re-sent with a fresh timestamp: the timestamp is signed, so the signature no longer fits.
    const fresh = await post(body, { ts: ts + 1, sig: signTrigger(SECRET, ts, body) });
    expect(fresh.status).toBe(401);
    expect(fresh.error).toMatch(/^bad signature/);
    await eventually(() => d.daemon.status().turn_count === accepted, "the deploy turn");
  });

  it("rate-limits (429 with Retry-After) per minute, and nothing refused was queued", async () => {
    // 3 accepted so far in this minute; the limit is 4.
    expect((await post(JSON.stringify({ prompt: "fourth" }))).status).toBe(202);
    accepted++;
    const over = await post(JSON.stringify({ prompt: "fifth" }));
    expect(over.status).toBe(429);
    expect(over.error).toMatch(/^rate limited: at most 4 triggers a minute; retry in \d+s$/);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    await eventually(() => d.daemon.status().turn_count === accepted && d.daemon.status().queued_prompts === 0, "the accepted turns");
    const s = d.daemon.status();
    expect(s.trigger).toMatchObject({ accepted });
    expect(s.journal).toMatchObject({ pending: 0 });
    clock += 61_000; // a minute later the endpoint takes prompts again
    expect((await post(JSON.stringify({ prompt: "a minute later" }))).status).toBe(202);
    accepted++;
    await eventually(() => d.daemon.status().turn_count === accepted, "the turn a minute later");
  });

  it("the trigger file in the state folder becomes a prompt and is consumed", async () => {
    const path = join(agentStateDir(d.nick, d.env), "tick_trigger");
    expect((d.daemon.status().trigger as { file: string }).file).toBe(path);
    writeFileSync(path, "the nightly build failed\n");
    await alice.waitFor(heard("#test", "[trigger file via tick_trigger; the reply goes to #test] the nightly build failed"));
    expect(existsSync(path)).toBe(false);
  });
});

describe("trigger config errors name the field", () => {
  const error = (trigger: Record<string, unknown>) => {
    try {
      resolveConfig({ agents: [{ nick: "spark-bot", channels: ["#test"], trigger }] }, { filepath: "/tmp/agents.yaml" });
    } catch (err) {
      return (err as Error).message;
    }
    return "no error";
  };
  it.each([
    [{ secret: "short" }, /agents\[0\]\.trigger\.secret: .*at least 16 characters/],
    [{ secret: SECRET, channel: "#elsewhere" }, /agents\[0\]\.trigger\.channel: .*#elsewhere is not one of this agent's channels/],
    [{ secret: SECRET, port: 70000 }, /agents\[0\]\.trigger\.port/],
    [{ secret: SECRET, url: "x" }, /agents\[0\]\.trigger.*url/],
  ])("%j", (trigger, expected) => {
    expect(error(trigger)).toMatch(expected);
  });
  it("culture config check's YAML hides the secret", () => {
    const yaml = configToYaml(resolveConfig({ agents: [{ nick: "spark-bot", trigger: { secret: SECRET } }] }, { filepath: "/tmp/agents.yaml" }));
    expect(yaml).not.toContain(SECRET);
    expect(yaml).toMatch(/trigger:\n\s+secret: <redacted>/);
  });
});
