import { isCultureError, type Logger, createLogger } from "@culture/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AppServerClient, AppServerRequestError } from "../src/app-server-client.js";
import { createHarness, type Harness } from "./helpers/fake-codex-harness.js";

let h: Harness;
const clients: AppServerClient[] = [];
beforeEach(() => {
  h = createHarness();
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.kill();
  h.cleanup();
});

async function spawn(command: string[], logger: Logger = h.logger, requestTimeoutMs?: number): Promise<AppServerClient> {
  const client = await AppServerClient.spawn({
    command,
    cwd: h.directory,
    env: h.env(),
    logger,
    ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
  });
  clients.push(client);
  return client;
}

/** A node one-liner as a "server". */
const node = (script: string) => [process.execPath, "-e", script];

describe("AppServerClient", () => {
  it("sends initialize then the initialized notification, without a jsonrpc field", async () => {
    const client = await spawn([h.codex, "app-server"]);
    const result = await client.initialize({ name: "culture", title: "culture", version: "0" });
    expect(result.userAgent).toBe("fake-codex/0.0.0");
    await new Promise((r) => setTimeout(r, 50));
    expect(h.events().map(({ pid: _pid, ...e }) => e)).toEqual([
      { id: 1, method: "initialize", params: { clientInfo: { name: "culture", title: "culture", version: "0" }, capabilities: null } },
      { method: "initialized" },
    ]);
  });

  it("rejects with AppServerRequestError (and its code) when the server answers with an error", async () => {
    const client = await spawn([h.codex, "app-server"]);
    const err = await client.request("thread/start", { cwd: h.directory, approvalPolicy: "never", sandbox: "read-only" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppServerRequestError);
    expect(err).toMatchObject({ method: "thread/start", code: -32600, message: "Not initialized" });
  });

  it("times a request out with E_AGENT_PROTOCOL when the server never answers", async () => {
    const client = await spawn(node("process.stdin.resume()"), h.logger, 100);
    const err = await client.initialize({ name: "culture", title: "culture", version: "0" }).catch((e: unknown) => e);
    expect(isCultureError(err, "E_AGENT_PROTOCOL")).toBe(true);
    expect((err as Error).message).toContain("no answer within 100 ms");
  });

  it("rejects pending requests with E_AGENT_EXITED when the process dies", async () => {
    const client = await spawn(node("process.stdin.once('data', () => process.exit(5))"));
    const err = await client.initialize({ name: "culture", title: "culture", version: "0" }).catch((e: unknown) => e);
    expect(isCultureError(err, "E_AGENT_EXITED")).toBe(true);
    expect((err as Error).message).toContain("exited with code 5 during initialize");
    expect(client.exitCode).toBe(5);
  });

  it("rejects a result of the wrong shape with E_AGENT_PROTOCOL", async () => {
    const script = `require('readline').createInterface({input: process.stdin}).on('line', (l) => { const m = JSON.parse(l); console.log(JSON.stringify({ id: m.id, result: { thread: 'not an object' } })); });`;
    const client = await spawn(node(script));
    const err = await client.request("thread/start", { cwd: "/", approvalPolicy: "never", sandbox: "read-only" }).catch((e: unknown) => e);
    expect(isCultureError(err, "E_AGENT_PROTOCOL")).toBe(true);
    expect((err as Error).message).toContain("unexpected result");
  });

  it("logs bad lines with the line and keeps reading; refuses server requests without a handler", async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: "debug", write: (l) => lines.push(l) });
    const script = [
      "const rl = require('readline').createInterface({input: process.stdin});",
      "console.log('{not json');",
      "console.log(JSON.stringify({ id: 'srv-1', method: 'item/tool/requestUserInput', params: {} }));",
      "rl.on('line', (l) => { const m = JSON.parse(l); if (m.method === 'initialize') console.log(JSON.stringify({ id: m.id, result: {} })); else if (m.id === 'srv-1') console.log(JSON.stringify({ id: 99, result: m })); });",
    ].join("\n");
    const client = await spawn(node(script), logger);
    await client.initialize({ name: "culture", title: "culture", version: "0" });
    // The refusal came back to the "server", which echoed it in an (unexpected) response.
    for (let i = 0; i < 100 && !lines.some((l) => l.includes("not waiting for")); i++) await new Promise((r) => setTimeout(r, 20));
    expect(lines.some((l) => l.includes("protocol error") && l.includes("{not json"))).toBe(true);
    expect(lines.some((l) => l.includes("not waiting for") && l.includes("id=99"))).toBe(true);
  });
});
