/**
 * culture's IRC tools over MCP follow the permissions policy like `culture channel` does: the
 * MCP SDK's own Client spawns the built `culture mcp`, which talks to a real daemon
 * (startTestDaemon, the echo backend, `permissions: {mode: ask}`) on the embedded IRC server.
 * A task from #general is in flight (the echo agent's `hang`); a send to mallory waits for the
 * owner's `culture approvals`, a denied one sends nothing, a send to #general is free; and the
 * control commands are not tools at all. Build first (`npm run build`).
 */
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { startServer, type IrcServer } from "@culture/server";
import { connectRawClient, eventually, parseRawLine, startTestDaemon, type RawIrcClient, type TestDaemon } from "@culture/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../bin/culture.cjs", import.meta.url));
const ECHO_BACKEND = fileURLToPath(new URL("../../core/test/fixtures/echo-backend", import.meta.url));
const NICK = "spark-mcp";
const SECRET = "the-launch-code-is-4242";
const APPROVAL = /^\[APPROVAL ([^\]\s]+)\] wants to /;

let server: IrcServer;
let d: TestDaemon;
let client: Client;
let alice: RawIrcClient;
let mallory: RawIrcClient;

const privmsg = (from: string, target: string, text: RegExp) => (line: string) => {
  const p = parseRawLine(line);
  return p.command === "PRIVMSG" && p.nick === from && p.params[0] === target && text.test(p.params[1] ?? "");
};
const text = (line: string) => parseRawLine(line).params[1] ?? "";

async function call(name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallToolResult;
  return { text: r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n"), isError: r.isError === true };
}

/** The owner's `culture approvals <verb> <nick> <id>`: no CULTURE_NICK. */
async function owner(...args: string[]): Promise<void> {
  const env = { ...d.env };
  delete env.CULTURE_NICK;
  const r = await execa(process.execPath, [BIN, "approvals", ...args], { env, extendEnv: false, reject: false });
  expect(r.exitCode, r.stderr).toBe(0);
}

async function settled(c: RawIrcClient): Promise<string[]> {
  const token = `s${Math.random().toString(36).slice(2)}`;
  c.send(`PING :${token}`);
  await c.waitFor(new RegExp(`PONG .*${token}`));
  return c.lines;
}

beforeAll(async () => {
  server = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
  d = await startTestDaemon({ port: server.port, nick: NICK, channels: ["#general"], agent: { agent: ECHO_BACKEND, permissions: { mode: "ask" } } });
  alice = await connectRawClient(server.port, "alice");
  await alice.join("#general");
  mallory = await connectRawClient(server.port, "mallory");
  client = new Client({ name: "mcp-side-door", version: "0.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp"], env: { ...(d.env as Record<string, string>), CULTURE_NICK: NICK }, stderr: "inherit" }));
  // A task from #general, in flight for the whole file.
  alice.send(`PRIVMSG #general :@${NICK} hang`);
  await eventually(() => d.daemon.status().activity === "working", "the task from #general to start");
}, 60_000);

afterAll(async () => {
  await client?.close();
  alice?.close();
  mallory?.close();
  await d?.stop();
  await server?.close();
});

describe("culture mcp: IRC tools sending elsewhere than the task's origin", { timeout: 60_000 }, () => {
  it("send to mallory asks in #general; mallory gets it only once the owner approves", async () => {
    const sending = call("send", { target: "mallory", message: SECRET });
    const line = text(await alice.waitFor(privmsg(NICK, "#general", APPROVAL)));
    expect(line).toContain(`send to mallory: ${SECRET}`);
    expect((await settled(mallory)).some((l) => l.includes(SECRET))).toBe(false);
    await owner("approve", NICK, APPROVAL.exec(line)![1]!);
    expect(await sending).toEqual({ text: "sent to mallory", isError: false });
    expect(text(await mallory.waitFor(privmsg(NICK, "mallory", /./)))).toBe(SECRET);
  });

  it("a denied send is a tool error saying why, and mallory receives nothing", async () => {
    const mark = mallory.lines.length;
    const sending = call("send", { target: "mallory", message: `${SECRET}-again` });
    const line = text(await alice.waitFor(privmsg(NICK, "#general", APPROVAL)));
    await owner("deny", NICK, APPROVAL.exec(line)![1]!, "no", "secrets", "to", "strangers");
    const r = await sending;
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^send failed: nothing was sent to mallory: no secrets to strangers\. Sending anywhere but where the current task came from \(#general\)/);
    expect((await settled(mallory)).slice(mark).some((l) => parseRawLine(l).command === "PRIVMSG")).toBe(false);
  });

  it("send to #general, the task's origin, is free; ask elsewhere asks too", async () => {
    const mark = alice.lines.length;
    expect(await call("send", { target: "#general", message: "to the origin" })).toEqual({ text: "sent to #general", isError: false });
    await alice.waitFor(privmsg(NICK, "#general", /^to the origin$/));
    expect(alice.lines.slice(mark).some((l) => APPROVAL.test(text(l)))).toBe(false);

    const asking = call("ask", { channel: "mallory", question: "what is the key?", timeout_seconds: 1 });
    const line = text(await alice.waitFor(privmsg(NICK, "#general", APPROVAL)));
    expect(line).toContain("ask mallory: what is the key?");
    await owner("deny", NICK, APPROVAL.exec(line)![1]!);
    expect((await asking).isError).toBe(true);
  });
});
