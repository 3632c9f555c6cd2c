/**
 * The egress bridge of `network: off` (docs/sandbox.md): which origins an agent may reach, and
 * the proxy's rules, attacked over its real Unix socket with raw requests (no sandbox needed).
 * sandbox-egress.bwrap.test.ts runs the whole bridge inside bubblewrap.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { isLoopbackHost, modelApiOrigins, parseEgressOrigin } from "../src/sandbox/egress-origins.js";
import { startEgressProxy, type EgressProxy } from "../src/sandbox/egress-proxy.js";
import { egressForwarderConfig } from "../src/sandbox/egress-forwarder.js";

describe("model API origins", () => {
  it.each([
    ["https://api.anthropic.com", { host: "api.anthropic.com", port: 443 }],
    ["http://127.0.0.1:8080/v1", { host: "127.0.0.1", port: 8080 }],
    ["HTTPS://API.OpenAI.com./v1", { host: "api.openai.com", port: 443 }],
    ["localhost:11434", { host: "localhost", port: 11434 }],
    ["http://[::1]:9000", { host: "::1", port: 9000 }],
  ])("%s is %j", (text, origin) => {
    expect(parseEgressOrigin(text)).toEqual(origin);
  });

  it.each([
    ["https://user:pw@api.anthropic.com", /user name or password/],
    ["api.anthropic.com", /no port/],
    ["ftp://files.example", /no port/],
    ["http://", /not a URL|no host/],
  ])("refuses %s", (text, why) => {
    expect(() => parseEgressOrigin(text)).toThrow(why);
  });

  it("takes the env's base URLs, sandbox.allow and the backend's defaults, once each", () => {
    const origins = modelApiOrigins({
      backend: "claude",
      env: { ANTHROPIC_BASE_URL: "http://127.0.0.1:4000", OPENAI_BASE_URL: undefined },
      allow: ["https://api.anthropic.com/", "proxy.corp:8443"],
    });
    expect(origins).toEqual([
      { host: "127.0.0.1", port: 4000 },
      { host: "api.anthropic.com", port: 443 },
      { host: "proxy.corp", port: 8443 },
    ]);
    expect(modelApiOrigins({ backend: "acp", env: {}, command: ["/usr/lib/node_modules/.bin/gemini", "--acp"] })).toEqual([
      { host: "generativelanguage.googleapis.com", port: 443 },
    ]);
    expect(modelApiOrigins({ backend: "acp", env: {}, command: ["opencode", "acp"] })).toEqual([]);
  });

  it("tells loopback origins (tunnelled inside) from the others", () => {
    expect(["127.0.0.1", "127.5.0.1", "localhost", "LOCALHOST.", "::1", "[::1]"].every(isLoopbackHost)).toBe(true);
    expect(["128.0.0.1", "localhost.evil.com", "10.0.0.1", "::2", "api.openai.com"].some(isLoopbackHost)).toBe(false);
    expect(egressForwarderConfig("/s", [{ host: "127.0.0.1", port: 1 }, { host: "api.openai.com", port: 443 }])).toEqual({
      socket: "/s",
      tunnels: [{ host: "127.0.0.1", port: 1 }],
    });
  });
});

describe("the egress proxy on its Unix socket", () => {
  let dir: string;
  let model: Server;
  let secret: Server;
  let modelPort: number;
  let secretPort: number;
  let proxy: EgressProxy;
  const logged: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "egress-"));
    model = await listen((req, res) => res.end(`model ok ${req.method} ${req.url} host=${req.headers.host}`));
    secret = await listen((_req, res) => res.end("SECRET"));
    modelPort = (model.address() as AddressInfo).port;
    secretPort = (secret.address() as AddressInfo).port;
    proxy = await startEgressProxy({
      socketPath: join(dir, "egress.sock"),
      allow: [{ host: "127.0.0.1", port: modelPort }],
      agent: "spark-test",
      log: (l) => logged.push(l),
    });
  });
  afterAll(async () => {
    await proxy?.close();
    model?.close();
    secret?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("listens on a socket only its owner can use (0600)", () => {
    expect(statSync(proxy.socketPath).mode & 0o777).toBe(0o600);
  });

  it("tunnels CONNECT to an allowed origin", async () => {
    const out = await raw(proxy.socketPath, `CONNECT 127.0.0.1:${modelPort} HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`);
    expect(out).toMatch(/^HTTP\/1\.1 200 Connection Established/);
    expect(out).toContain("model ok GET /v1/x host=a");
  });

  it("forwards an absolute-form http request to an allowed origin (the upper-case, trailing-dot host is the same host)", async () => {
    const out = await raw(proxy.socketPath, `POST http://127.0.0.1:${modelPort}/v1/messages?beta=1 HTTP/1.1\r\nHost: evil\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
    expect(out).toMatch(/^HTTP\/1\.1 200/);
    expect(out).toContain(`model ok POST /v1/messages?beta=1 host=127.0.0.1:${modelPort}`);
  });

  it.each([
    ["CONNECT to another port on the same host", () => `CONNECT 127.0.0.1:${secretPort} HTTP/1.1\r\n\r\n`, /^HTTP\/1\.1 403/],
    ["CONNECT to another host, same port", () => `CONNECT 127.0.0.2:${modelPort} HTTP/1.1\r\n\r\n`, /^HTTP\/1\.1 403/],
    ["CONNECT with a user-info trick", () => `CONNECT 127.0.0.1:${modelPort}@127.0.0.1:${secretPort} HTTP/1.1\r\n\r\n`, /^HTTP\/1\.1 400/],
    ["CONNECT with a path", () => `CONNECT 127.0.0.1:${modelPort}/x HTTP/1.1\r\n\r\n`, /^HTTP\/1\.1 400/],
    ["CONNECT without a port", () => `CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n`, /^HTTP\/1\.1 400/],
    ["absolute-form to another port", () => `GET http://127.0.0.1:${secretPort}/ HTTP/1.1\r\nHost: 127.0.0.1:${modelPort}\r\nConnection: close\r\n\r\n`, /^HTTP\/1\.1 403/],
    ["absolute-form with user info naming the allowed origin", () => `GET http://127.0.0.1:${modelPort}@127.0.0.1:${secretPort}/ HTTP/1.1\r\nConnection: close\r\n\r\n`, /^HTTP\/1\.1 403/],
    ["origin-form with the allowed Host header", () => `GET / HTTP/1.1\r\nHost: 127.0.0.1:${modelPort}\r\nConnection: close\r\n\r\n`, /^HTTP\/1\.1 400/],
    ["https:// in absolute form", () => `GET https://127.0.0.1:${modelPort}/ HTTP/1.1\r\nConnection: close\r\n\r\n`, /^HTTP\/1\.1 400/],
  ])("refuses %s, with a log line", async (_name, request, status) => {
    const before = proxy.refusals.length;
    const out = await raw(proxy.socketPath, request());
    expect(out).toMatch(status);
    expect(out).not.toContain("SECRET");
    expect(proxy.refusals.length).toBe(before + 1);
    expect(logged.at(-1)).toMatch(new RegExp(`^sandbox egress refused for spark-test: .* network: off lets through only 127\\.0\\.0\\.1:${modelPort}\\)$`));
  });

  it("checks every request of a kept-alive connection: an allowed first request does not open the way for a second", async () => {
    const out = await raw(
      proxy.socketPath,
      `GET http://127.0.0.1:${modelPort}/one HTTP/1.1\r\nHost: a\r\n\r\nGET http://127.0.0.1:${secretPort}/two HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`,
    );
    expect(out).toContain("model ok GET /one");
    expect(out).toMatch(/HTTP\/1\.1 403/);
    expect(out).not.toContain("SECRET");
  });

  it("logs the refusal in one line that says what was refused and what is allowed", () => {
    expect(logged).toContain(
      `sandbox egress refused for spark-test: CONNECT 127.0.0.1:${secretPort} (not a model API origin of this agent; network: off lets through only 127.0.0.1:${modelPort})`,
    );
  });
});

function listen(handler: Parameters<typeof createServer>[1]): Promise<Server> {
  const server = createServer(handler!);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/** Writes `request` to the socket and collects everything until the server closes (or 3 s of quiet). */
function raw(socketPath: string, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(socketPath);
    let out = "";
    let timer = setTimeout(() => s.destroy(), 3000);
    s.on("data", (d) => {
      out += d.toString("latin1");
      clearTimeout(timer);
      timer = setTimeout(() => s.destroy(), 1000);
    });
    s.on("close", () => {
      clearTimeout(timer);
      resolve(out);
    });
    s.on("error", reject);
    s.write(request);
  });
}
