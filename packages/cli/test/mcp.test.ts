/**
 * `culture mcp` end to end: the MCP SDK's own Client over stdio spawns the built `culture mcp`
 * (bin/culture.cjs), which talks to a real daemon (startTestDaemon, the echo backend as its
 * agent) on the embedded IRC server; a raw IRC client is the human. Every tool, every error
 * (daemon down, channel not joined, bad arguments), a whisper riding on a tool result, and the
 * daemon restarting under the live MCP session. Build first (`npm run build`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { startServer, type IrcServer } from "@culture/server";
import { connectRawClient, eventually, parseRawLine, startTestDaemon, type RawIrcClient, type TestDaemon } from "@culture/core/testing";

const BIN = fileURLToPath(new URL("../bin/culture.cjs", import.meta.url));
const ECHO_BACKEND = fileURLToPath(new URL("../../core/test/fixtures/echo-backend", import.meta.url));
const NICK = "spark-mcp";

let server: IrcServer;
let d: TestDaemon;
let client: Client;
let alice: RawIrcClient;

async function startDaemon(home?: string): Promise<TestDaemon> {
  return startTestDaemon({ port: server.port, nick: NICK, channels: ["#test"], agent: { agent: ECHO_BACKEND }, ...(home ? { home } : {}) });
}

async function call(name: string, args: Record<string, unknown> = {}): Promise<{ text: string; isError: boolean }> {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
  return { text, isError: r.isError === true };
}

/** A PRIVMSG from `from` to `target` whose text matches `text`. */
const privmsg = (from: string, target: string, text: RegExp) => (line: string) => {
  const p = parseRawLine(line);
  return p.command === "PRIVMSG" && p.nick === from && p.params[0] === target && text.test(p.params[1] ?? "");
};

beforeAll(async () => {
  server = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
  d = await startDaemon();
  alice = await connectRawClient(server.port, "alice");
  await alice.join("#test");
  const env = { ...d.env, CULTURE_NICK: NICK } as Record<string, string>;
  client = new Client({ name: "mcp-test", version: "0.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp"], env, stderr: "inherit" }));
});

afterAll(async () => {
  await client?.close();
  alice?.close();
  await d?.stop();
  await server?.close();
});

describe("culture mcp", () => {
  it("lists every IRC tool with a description and a typed schema", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["ask", "channels", "clear", "compact", "join", "part", "read", "send", "status", "topic", "who"]);
    const send = tools.find((t) => t.name === "send");
    expect(send?.description).toMatch(/Post a message/);
    expect(send?.inputSchema.required?.sort()).toEqual(["message", "target"]);
  });

  it("send posts on IRC, read/channels/who/topic/status answer, join and part work", async () => {
    const sent = await call("send", { target: "#test", message: "hello from mcp" });
    expect(sent).toEqual({ text: "sent to #test", isError: false });
    await alice.waitFor(privmsg(NICK, "#test", /^hello from mcp$/));

    alice.send("PRIVMSG #test :just chatting");
    const read = await eventually(async () => {
      const r = await call("read", { channel: "#test" });
      return r.text.includes("<alice> just chatting") ? r : null;
    }, "alice's line in read");
    expect(read?.isError).toBe(false);

    const channels = await call("channels");
    expect(channels.text).toMatch(/#test\s+2 members/);
    const who = await call("who", { target: "#test" });
    expect(who.text).toMatch(/alice/);
    expect(who.text).toMatch(new RegExp(NICK));

    expect((await call("topic", { channel: "#test", topic: "mcp topic" })).isError).toBe(false);
    expect((await call("topic", { channel: "#test" })).text).toMatch(/^#test: mcp topic/);

    expect(await call("join", { channel: "#side" })).toEqual({ text: "joined #side", isError: false });
    expect((await call("channels")).text).toMatch(/#side/);
    expect(await call("part", { channel: "#side" })).toEqual({ text: "left #side", isError: false });

    const status = await call("status");
    expect(status.text).toMatch(/running: true/);
  });

  it("ask posts the question and returns the first answer addressed to the agent", async () => {
    const asking = call("ask", { channel: "#test", question: "which branch?", timeout_seconds: 20 });
    await alice.waitFor(privmsg(NICK, "#test", /which branch\?/));
    alice.send(`PRIVMSG #test :@${NICK} use main`);
    const answer = await asking;
    expect(answer.isError).toBe(false);
    expect(answer.text).toMatch(new RegExp(`<alice> @${NICK} use main$`));
  });

  it("compact and clear reach the daemon", async () => {
    for (const name of ["compact", "clear"]) {
      const r = await call(name);
      // The echo agent may not support them; either way the answer names what happened.
      expect(r.text.length).toBeGreaterThan(0);
    }
  });

  it("a channel not joined, and bad arguments, are tool errors with clear text", async () => {
    const notJoined = await call("send", { target: "#nope", message: "hi" });
    expect(notJoined.isError).toBe(true);
    expect(notJoined.text).toMatch(/not in channel #nope .*join it first/);
    const part = await call("part", { channel: "#nope" });
    expect(part.isError).toBe(true);
    expect(part.text).toMatch(/not in channel #nope/);
    const bad = await call("send", { target: "#test" });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/message/);
    const badLimit = await call("read", { channel: "#test", limit: 0 });
    expect(badLimit.isError).toBe(true);
    expect(badLimit.text).toMatch(/limit/);
    // A DM to a nick needs no join.
    expect((await call("send", { target: "alice", message: "psst" })).isError).toBe(false);
    await alice.waitFor(privmsg(NICK, "alice", /^psst$/));
  });

  it("a supervisor whisper rides on the next tool result", async () => {
    const ipc = (d.daemon as unknown as { ipc: { sendWhisper(w: { action: string; message: string }): void } }).ipc;
    ipc.sendWhisper({ action: "CORRECTION", message: "stay on the task you were given" });
    const r = await call("channels");
    expect(r.isError).toBe(false);
    expect(r.text.split("\n")).toContain("[SUPERVISOR/CORRECTION] stay on the task you were given");
    // Taken once: the next result carries no whisper.
    expect((await call("channels")).text).not.toMatch(/SUPERVISOR/);
  });

  it("survives the daemon restarting under the live session; daemon down is a tool error", async () => {
    await d.daemon.stop();
    const down = await call("send", { target: "#test", message: "anyone?" });
    expect(down.isError).toBe(true);
    expect(down.text).toMatch(new RegExp(`agent ${NICK}'s daemon is not running .*culture start ${NICK}`));
    d = await startDaemon(d.home);
    const after = await eventually(async () => {
      const r = await call("send", { target: "#test", message: "back again" });
      return r.isError ? null : r;
    }, "a send after the restart");
    expect(after?.text).toBe("sent to #test");
    await alice.waitFor(privmsg(NICK, "#test", /^back again$/));
  });
});
