/**
 * One catalogue, one outcome: every command of the catalogue of the agent's IRC commands
 * (core's irc-commands/) run through the real `culture channel` CLI and through the real
 * `culture mcp` server (the MCP SDK's Client over stdio), against one real daemon
 * (startTestDaemon, the echo backend) on the embedded IRC server, must end the same way: both
 * succeed with the same text, or both fail — and when the daemon refused, with the same
 * sentence. Error cases included: an offline nick, a channel not joined, a missing channel,
 * bad arguments. A last test speaks the reference skill client's wire format (raw JSON lines,
 * its field aliases) to the same daemon. Build first (`npm run build`).
 */
import { execFile } from "node:child_process";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { IRC_COMMANDS } from "@culture/core/channel-commands";
import { socketPath } from "@culture/core/paths";
import { startServer, type IrcServer } from "@culture/server";
import { connectRawClient, eventually, parseRawLine, startTestDaemon, type RawIrcClient, type TestDaemon } from "@culture/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../bin/culture.cjs", import.meta.url));
const ECHO_BACKEND = fileURLToPath(new URL("../../core/test/fixtures/echo-backend", import.meta.url));
const NICK = "spark-parity";

let server: IrcServer;
let d: TestDaemon;
let mcp: Client;
let alice: RawIrcClient;

/** What one way of calling a command ended with. */
interface Outcome {
  /** ok: succeeded; refused: the daemon answered ok:false; usage: the client refused the arguments. */
  kind: "ok" | "refused" | "usage";
  /** The answer's text (ok), or the daemon's own sentence (refused), or the client's message (usage). */
  text: string;
}

async function viaCli(command: string, args: string[]): Promise<Outcome> {
  const env = { ...d.env, CULTURE_NICK: NICK, TZ: "UTC" } as Record<string, string>;
  const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [BIN, "channel", command, ...args], { env, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr });
    });
  });
  if (r.code === 0) return { kind: "ok", text: r.stdout.trimEnd() };
  if (r.code === 1) return { kind: "refused", text: r.stderr.trimEnd().replace(`culture channel ${command}: `, "") };
  if (r.code === 2) return { kind: "usage", text: r.stderr };
  throw new Error(`culture channel ${command} exited ${r.code}: ${r.stderr}`);
}

async function viaMcp(tool: string, args: Record<string, unknown>): Promise<Outcome> {
  const r = (await mcp.callTool({ name: tool, arguments: args }, undefined, { timeout: 30_000 })) as CallToolResult;
  const text = r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
  if (r.isError !== true) return { kind: "ok", text };
  // The daemon's refusals come back as `<tool> failed: <sentence>`; the SDK's own argument
  // validation (bad arguments never reach the daemon) as an MCP error naming the field.
  return text.startsWith(`${tool} failed: `) ? { kind: "refused", text: text.slice(tool.length + 9) } : { kind: "usage", text };
}

/** One row: a command called both ways, and what both must end with. */
interface Row {
  name: string;
  command: string;
  cli: string[];
  mcp: Record<string, unknown>;
  kind: Outcome["kind"];
  /** Both texts must match (for usage errors: the field or argument named). */
  text: RegExp;
  /** The MCP tool answers where the CLI prints nothing (send). */
  mcpOnly?: RegExp;
  /** Runs before each way (e.g. a line to read). */
  before?: () => Promise<void>;
  /** Runs while the call is in flight (e.g. an answer to ask). */
  during?: () => Promise<void>;
  /** Only the keys of `key: value` lines are compared (values that change between calls). */
  keysOnly?: boolean;
}

const privmsg = (from: string, target: string, text: RegExp) => (line: string) => {
  const p = parseRawLine(line);
  return p.command === "PRIVMSG" && p.nick === from && p.params[0] === target && text.test(p.params[1] ?? "");
};

/** Alice says `text` in #test and the daemon has buffered it, after all else was read (a read gets only hers). */
async function aliceSays(text: string): Promise<void> {
  await viaCli("read", ["#test", "1000"]);
  alice.send(`PRIVMSG #test :${text}`);
  const buffer = (d.daemon as unknown as { buffer: { unread(key: string): number } }).buffer;
  await eventually(async () => (buffer.unread("#test") > 0 ? true : null), "alice's line in the daemon's buffer");
}

const ROWS: Row[] = [
  { name: "send to a joined channel", command: "send", cli: ["#test", "hello", "parity"], mcp: { target: "#test", message: "hello parity" }, kind: "ok", text: /^$/, mcpOnly: /^sent to #test$/ },
  { name: "send to an online nick", command: "send", cli: ["alice", "psst"], mcp: { target: "alice", message: "psst" }, kind: "ok", text: /^$/, mcpOnly: /^sent to alice$/ },
  {
    name: "send to an offline nick",
    command: "send",
    cli: ["nobody-here", "hi"],
    mcp: { target: "nobody-here", message: "hi" },
    kind: "refused",
    text: /^nobody-here is not on IRC now \(WHO found no one by that nick\); nothing was sent\./,
  },
  { name: "send to a channel not joined", command: "send", cli: ["#nope", "hi"], mcp: { target: "#nope", message: "hi" }, kind: "refused", text: /^not in channel #nope \(you are in: [^)]*#test[^)]*\); join it first/ },
  { name: "send without a message", command: "send", cli: ["#test"], mcp: { target: "#test" }, kind: "usage", text: /message/ },
  { name: "read a joined channel", command: "read", cli: ["#test"], mcp: { channel: "#test" }, kind: "ok", text: /^\[\d\d:\d\d:\d\d\] <alice> a line to read$/, before: () => aliceSays("a line to read") },
  { name: "read with a limit", command: "read", cli: ["#test", "1"], mcp: { channel: "#test", limit: 1 }, kind: "ok", text: /^\[\d\d:\d\d:\d\d\] <alice> first$/, before: async () => { await aliceSays("first"); alice.send("PRIVMSG #test :second"); } },
  { name: "read a channel not joined", command: "read", cli: ["#nope"], mcp: { channel: "#nope" }, kind: "refused", text: /^not in channel #nope/ },
  { name: "read an empty DM conversation", command: "read", cli: ["DM:nobody-here"], mcp: { channel: "DM:nobody-here" }, kind: "ok", text: /^\(no new messages in DM:nobody-here\)$/ },
  { name: "read with a bad limit", command: "read", cli: ["#test", "0"], mcp: { channel: "#test", limit: 0 }, kind: "usage", text: /limit/ },
  {
    name: "ask and get an answer",
    command: "ask",
    cli: ["#test", "--timeout", "20", "which branch?"],
    mcp: { channel: "#test", question: "which branch?", timeout_seconds: 20 },
    kind: "ok",
    text: new RegExp(`^\\[\\d\\d:\\d\\d:\\d\\d\\] <alice> @${NICK} use main$`),
    during: async () => {
      await alice.waitFor(privmsg(NICK, "#test", /^which branch\?$/));
      alice.send(`PRIVMSG #test :@${NICK} use main`);
    },
  },
  { name: "ask with nobody answering", command: "ask", cli: ["#test", "--timeout", "1", "anyone?"], mcp: { channel: "#test", question: "anyone?", timeout_seconds: 1 }, kind: "ok", text: /^\(no answer within 1s\)$/ },
  { name: "ask an offline nick", command: "ask", cli: ["nobody-here", "hi?"], mcp: { channel: "nobody-here", question: "hi?" }, kind: "refused", text: /^nobody-here is not on IRC now .*nothing was asked/ },
  { name: "ask a channel not joined", command: "ask", cli: ["#nope", "hi?"], mcp: { channel: "#nope", question: "hi?" }, kind: "refused", text: /^not in channel #nope/ },
  { name: "join a channel", command: "join", cli: ["#side"], mcp: { channel: "#side" }, kind: "ok", text: /^joined #side$/ },
  { name: "part it again", command: "part", cli: ["#side"], mcp: { channel: "#side" }, kind: "ok", text: /^left #side$/, before: async () => void (await viaCli("join", ["#side"])) },
  { name: "join a nick (not a channel)", command: "join", cli: ["alice"], mcp: { channel: "alice" }, kind: "refused", text: /^"alice" is not a channel name/ },
  { name: "join without a channel", command: "join", cli: [], mcp: {}, kind: "usage", text: /channel/ },
  { name: "part a channel not joined", command: "part", cli: ["#nope"], mcp: { channel: "#nope" }, kind: "refused", text: /^not in channel #nope/ },
  { name: "channels", command: "channels", cli: [], mcp: {}, kind: "ok", text: /^#test\s+2 members$/m },
  { name: "who a channel", command: "who", cli: ["#test"], mcp: { target: "#test" }, kind: "ok", text: new RegExp(`alice[\\s\\S]*${NICK}|${NICK}[\\s\\S]*alice`) },
  { name: "who an offline nick", command: "who", cli: ["nobody-here"], mcp: { target: "nobody-here" }, kind: "ok", text: /^\(no one found for nobody-here\)$/ },
  { name: "topic set", command: "topic", cli: ["#test", "parity", "topic"], mcp: { channel: "#test", topic: "parity topic" }, kind: "ok", text: new RegExp(`^#test: parity topic \\(set by ${NICK}\\)$`) },
  { name: "topic get", command: "topic", cli: ["#test"], mcp: { channel: "#test" }, kind: "ok", text: new RegExp(`^#test: parity topic \\(set by ${NICK}\\)$`) },
  { name: "topic of a missing channel", command: "topic", cli: ["#nosuch"], mcp: { channel: "#nosuch" }, kind: "refused", text: /#nosuch/ },
  { name: "topic set on a channel not joined", command: "topic", cli: ["#nope", "x"], mcp: { channel: "#nope", topic: "x" }, kind: "refused", text: /^not in channel #nope/ },
  { name: "compact", command: "compact", cli: [], mcp: {}, kind: "ok", text: /./ },
  { name: "clear", command: "clear", cli: [], mcp: {}, kind: "ok", text: /./ },
  { name: "status", command: "status", cli: [], mcp: {}, kind: "ok", text: /^running: true$/m, keysOnly: true },
  { name: "status with an argument", command: "status", cli: ["extra"], mcp: { extra: 1 }, kind: "ok", text: /running: true/m, keysOnly: true },
];

beforeAll(async () => {
  server = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
  d = await startTestDaemon({ port: server.port, nick: NICK, channels: ["#test"], agent: { agent: ECHO_BACKEND } });
  alice = await connectRawClient(server.port, "alice");
  await alice.join("#test");
  mcp = new Client({ name: "parity-test", version: "0.0.0" });
  await mcp.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp"], env: { ...d.env, CULTURE_NICK: NICK, TZ: "UTC" } as Record<string, string>, stderr: "inherit" }));
});

afterAll(async () => {
  await mcp?.close();
  await alice?.close();
  await d?.stop();
  await server?.close();
});

describe("the catalogue of IRC commands: culture channel and culture mcp agree", () => {
  it("the table covers every command of the catalogue, and the MCP server lists exactly those tools", async () => {
    const names = IRC_COMMANDS.map((c) => c.name).sort();
    expect([...new Set(ROWS.map((r) => r.command))].sort()).toEqual(names);
    expect((await mcp.listTools()).tools.map((t) => t.name).sort()).toEqual(names);
  });

  it.each(ROWS.map((r) => [r.name, r] as const))("%s", async (_name, row) => {
    const run = async (call: () => Promise<Outcome>): Promise<Outcome> => {
      await row.before?.();
      const [out] = await Promise.all([call(), row.during?.()]);
      return out;
    };
    // The 'status with an argument' row: the CLI refuses the extra word (usage), the MCP SDK
    // drops unknown arguments; the catalogue gives status no arguments either way.
    const cli = await run(() => viaCli(row.command, row.cli));
    const tool = await run(() => viaMcp(row.command, row.mcp));
    if (row.name === "status with an argument") {
      expect(cli.kind).toBe("usage");
      expect(cli.text).toMatch(/unexpected argument: extra/);
      expect(tool.kind).toBe("ok");
      return;
    }
    expect({ cli: cli.kind, mcp: tool.kind }, `${cli.text}\n---\n${tool.text}`).toEqual({ cli: row.kind, mcp: row.kind });
    expect(cli.text).toMatch(row.text);
    if (row.mcpOnly) expect(tool.text).toMatch(row.mcpOnly);
    else expect(tool.text).toMatch(row.text);
    // The same sentence: a refusal is the daemon's, and an answer is formatted once.
    if (row.kind === "refused" || (row.kind === "ok" && !row.mcpOnly && !row.keysOnly)) expect(clockless(tool.text)).toBe(clockless(cli.text));
    if (row.keysOnly) expect(keys(tool.text)).toEqual(keys(cli.text));
  });

  it("speaks the reference skill client's wire format: type, id, the fields, its aliases", async () => {
    const path = socketPath(NICK, d.env);
    const answers = await rawRequests(path, [
      { type: "irc_send", id: "1", channel: "#test", message: "from the reference client" },
      { type: "irc_read", id: "2", channel: "#test", limit: "5" },
      { type: "irc_ask", id: "3", channel: "#test", message: "quick?", timeout: 1 },
      { type: "irc_who", id: "4", target: "#test" },
      { type: "irc_channels", id: "5" },
      { type: "irc_topic", id: "6", channel: "#test" },
      { type: "irc_send", id: "7", channel: "#test" },
      { type: "irc_read", id: "8", channel: "#test", limit: 0 },
      { type: "irc_send", id: "9", channel: "nobody-here", message: "hi" },
      { type: "nope", id: "10" },
    ]);
    expect(answers.map((a) => [a.id, a.ok])).toEqual([
      ["1", true], ["2", true], ["3", true], ["4", true], ["5", true], ["6", true], ["7", false], ["8", false], ["9", false], ["10", false],
    ]);
    for (const a of answers) expect(a.type).toBe("response");
    expect(answers[0]?.data).toMatchObject({ channel: "#test", queued: false });
    expect(answers[2]?.data).toMatchObject({ answer: null, timed_out: true });
    expect(answers[3]?.data?.members).toEqual(expect.arrayContaining([expect.objectContaining({ nick: "alice" })]));
    expect(answers[6]?.error).toBe('missing field "message" (a string)');
    expect(answers[7]?.error).toBe('field "limit" must be at least 1, got 0');
    expect(answers[8]?.error).toMatch(/^nobody-here is not on IRC now/);
    expect(answers[9]?.error).toBe("Unknown message type: 'nope'");
  });
});

/** The text without its `[HH:MM:SS]` stamps (the two calls see different lines' times). */
function clockless(text: string): string {
  return text.replace(/\[\d\d:\d\d:\d\d\]/g, "[--:--:--]");
}

function keys(text: string): string[] {
  return text.split("\n").map((l) => l.split(":")[0] ?? "");
}

interface RawAnswer {
  type: string;
  id: string;
  ok: boolean;
  data?: Record<string, unknown>;
  error?: string;
}

/** Writes JSON lines on one connection, as the reference client does, and reads one answer per request. */
function rawRequests(path: string, requests: Array<Record<string, unknown>>): Promise<RawAnswer[]> {
  return new Promise((resolve, reject) => {
    const s = connect(path);
    const answers: RawAnswer[] = [];
    let buf = "";
    s.setEncoding("utf8");
    s.on("error", reject);
    s.on("data", (chunk: string) => {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!line.trim()) continue;
        const msg = JSON.parse(line) as RawAnswer;
        if (msg.type !== "response") continue; // whispers
        answers.push(msg);
        if (answers.length === requests.length) {
          s.destroy();
          resolve(answers);
        }
      }
    });
    s.on("connect", () => {
      for (const r of requests) s.write(`${JSON.stringify(r)}\n`);
    });
  });
}
