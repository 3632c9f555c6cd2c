#!/usr/bin/env node
/**
 * culture's demo agent: a tiny, offline Agent Client Protocol agent, so `culture demo` works
 * with no AI account and no network. It behaves like a real agent on IRC: when it is
 * mentioned (`[IRC @mention in #chan] <nick> text`) or messaged (`[IRC DM] <nick> text`) it
 * answers by running `culture channel send` itself, and it also returns the answer as its
 * reply. The answers come from a few rules:
 *
 *   hello / hi / hey  -> a greeting
 *   help              -> what it can do
 *   time              -> the current time
 *   echo <text>       -> <text>
 *   anything else     -> "I heard: <text>"
 *
 * Use it from agents.yaml:
 *
 *   agents:
 *     - nick: spark-demo
 *       agent: acp
 *       acp_command: ["node", "examples/demo-agent.mjs"]     # in a clone of the repository
 *       channels: ["#general"]
 *
 * It ships inside the `culture` package as dist/demo-agent.cjs (this file as CommonJS, minified;
 * examples/demo-agent.mjs in the repository runs this file), and finds the culture CLI of its
 * own package (bin/culture.cjs, run with the same node), else `culture` on PATH. The daemon sets
 * CULTURE_NICK in its environment.
 *
 * It speaks ACP itself: newline-delimited JSON-RPC 2.0 on stdio, the methods a client calls
 * (`initialize`, `session/new`, `session/prompt`, the `session/cancel` notification) and the
 * `session/update` notifications it sends. It has no dependencies: built on the ACP SDK, one
 * agent took ~75 ms of CPU to start instead of ~25 (the SDK's zod schemas, web streams and
 * ES module graph), and a fleet of 50 demo agents starts 50 of them (bench/fleet.mjs, issue
 * 30). The other side, culture's ACP backend, is the SDK's client, which validates every
 * message this agent sends.
 */
import { createRequire } from "node:module";
import { existsSync, realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const LOCAL_CLI = fileURLToPath(new URL("../bin/culture.cjs", import.meta.url));
const NICK = process.env.CULTURE_NICK ?? "demo-agent";

/** How to run `culture`: the CLI of this package with this node, else `culture` on PATH. */
function cultureCommand() {
  return existsSync(LOCAL_CLI) ? { file: process.execPath, prefix: [LOCAL_CLI] } : { file: "culture", prefix: [] };
}

/** Parses an IRC prompt from the daemon; null for anything else (e.g. the system prompt). */
export function parseIrcPrompt(prompt) {
  const line = prompt.trim().split("\n")[0] ?? "";
  const mention = /^\[IRC @mention in (\S+)\] <([^>]+)> ?(.*)$/.exec(line);
  if (mention) return { target: mention[1], sender: mention[2], text: mention[3] };
  const dm = /^\[IRC DM\] <([^>]+)> ?(.*)$/.exec(line);
  if (dm) return { target: dm[1], sender: dm[1], text: dm[2] };
  return null;
}

/** The rule-based answer to `text` from `sender`. Deterministic except for "time". */
export function answer(sender, text, now = new Date()) {
  // Drop leading mentions: "@spark-demo: hello" -> "hello", "spark-demo, hi" -> "hi".
  const own = new RegExp(`^\\s*${NICK.replace(/[^\w-]/g, "")}[:,]\\s*`, "i");
  const words = text.replace(/^(\s*@[\w-]+[:,]?)+\s*/, "").replace(own, "").trim();
  const lower = words.toLowerCase();
  if (/^(hello|hi|hey)\b/.test(lower)) {
    return `Hello ${sender}! I'm ${NICK}, culture's demo agent. Say "help" to see what I can do.`;
  }
  if (/^help\b/.test(lower)) {
    return `I'm an offline demo agent. Try: "hello", "time", "echo <text>" — anything else I repeat back.`;
  }
  if (/^time\b/.test(lower)) {
    return `It is ${now.toISOString().slice(11, 19)} UTC.`;
  }
  if (/^echo\b/.test(lower)) {
    return words.slice(4).trim() || "(nothing to echo)";
  }
  return `I heard: ${words || text}`;
}

/** `culture` with `args`; node:child_process and node:crypto are loaded on the first prompt, not at start. */
function runCulture(args) {
  const { file, prefix } = cultureCommand();
  const { execFile } = require("node:child_process");
  return new Promise((resolve) => {
    execFile(file, [...prefix, ...args], { env: process.env, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ ok: !error, output: (error ? stderr || error.message : stdout).trim() });
    });
  });
}

/** The JSON-RPC error codes this agent answers with (the ones of the ACP SDK's `RequestError`). */
const ErrorCode = { parse: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internal: -32603, resourceNotFound: -32002 };

/** An error a request is answered with. */
class RpcError extends Error {
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

function invalidParams(what) {
  return new RpcError(ErrorCode.invalidParams, `Invalid params: ${what}`);
}

/** A content block of a prompt: an object with a type, and a text when it is a text block. */
function isContentBlock(block) {
  return block !== null && typeof block === "object" && typeof block.type === "string" && (block.type !== "text" || typeof block.text === "string");
}

/** Writes one JSON-RPC message as a line on stdout (synchronous for a pipe on Linux, so in order). */
function write(message) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
}

function update(sessionId, upd) {
  write({ method: "session/update", params: { sessionId, update: upd } });
}

function reply(sessionId, text) {
  update(sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
}

async function handlePrompt(sessionId, prompt) {
  const irc = parseIrcPrompt(prompt);
  if (!irc) {
    // The system prompt (or anything that is not from IRC): acknowledge, say nothing on IRC.
    reply(sessionId, "Ready.");
    return;
  }
  const text = `${irc.sender}: ${answer(irc.sender, irc.text)}`;
  // Talk through culture like a real agent would, and show the call as a tool call.
  const toolCallId = `send-${require("node:crypto").randomUUID().slice(0, 8)}`;
  const args = ["channel", "send", irc.target, text];
  update(sessionId, {
    sessionUpdate: "tool_call",
    toolCallId,
    title: `culture channel send ${irc.target}`,
    kind: "execute",
    status: "in_progress",
    rawInput: { command: ["culture", ...args] },
  });
  const sent = await runCulture(args);
  update(sessionId, {
    sessionUpdate: "tool_call_update",
    toolCallId,
    status: sent.ok ? "completed" : "failed",
    rawOutput: { output: sent.output },
  });
  if (!sent.ok) process.stderr.write(`demo-agent: culture channel send failed: ${sent.output}\n`);
  reply(sessionId, text);
}

const sessions = new Set();
let nextSession = 0;

/** The requests this agent answers, by method: each returns the result or throws an RpcError. */
const methods = {
  initialize: (params) => {
    const version = params.protocolVersion;
    if (!Number.isInteger(version) || version < 0 || version > 65535) throw invalidParams("initialize takes a protocolVersion (an integer, 0-65535)");
    return {
      protocolVersion: 1,
      agentCapabilities: { loadSession: false },
      authMethods: [],
      agentInfo: { name: "culture-demo-agent", version: "1.0.0" },
    };
  },
  "session/new": (params) => {
    if (typeof params.cwd !== "string" || !Array.isArray(params.mcpServers)) throw invalidParams("session/new takes a cwd (string) and mcpServers (array)");
    const sessionId = `demo-${Date.now().toString(36)}-${process.pid}-${++nextSession}`;
    sessions.add(sessionId);
    return { sessionId };
  },
  "session/prompt": async (params) => {
    if (typeof params.sessionId !== "string" || !Array.isArray(params.prompt) || !params.prompt.every(isContentBlock)) {
      throw invalidParams("session/prompt takes a sessionId (string) and a prompt (an array of content blocks; a text block has a text)");
    }
    if (!sessions.has(params.sessionId)) throw new RpcError(ErrorCode.resourceNotFound, "Resource not found", { sessionId: params.sessionId });
    const prompt = params.prompt.map((block) => (block.type === "text" ? block.text : "")).join("");
    await handlePrompt(params.sessionId, prompt);
    return { stopReason: "end_turn" };
  },
};

/** The notifications this agent takes. Every turn is quick: there is nothing to cancel. */
const notifications = { "session/cancel": () => undefined };

/** Answers one parsed message: a request gets its result or an error; a notification, nothing. */
async function dispatch(message) {
  const id = message !== null && typeof message === "object" && (typeof message.id === "string" || typeof message.id === "number") ? message.id : null;
  if (message === null || typeof message !== "object" || Array.isArray(message) || message.jsonrpc !== "2.0") {
    write({ id, error: { code: ErrorCode.invalidRequest, message: "Invalid request: not a JSON-RPC 2.0 message" } });
    return;
  }
  // A response: this agent sends no requests, so there is nothing waiting for it.
  if (typeof message.method !== "string") return;
  if (!("id" in message)) {
    if (Object.hasOwn(notifications, message.method)) notifications[message.method](message.params);
    return;
  }
  if (!Object.hasOwn(methods, message.method)) {
    write({ id, error: { code: ErrorCode.methodNotFound, message: `"Method not found": ${message.method}`, data: { method: message.method } } });
    return;
  }
  const params = message.params !== null && typeof message.params === "object" ? message.params : {};
  try {
    write({ id, result: await methods[message.method](params) });
  } catch (error) {
    const known = error instanceof RpcError;
    write({ id, error: { code: known ? error.code : ErrorCode.internal, message: known ? error.message : `Internal error: ${error?.message ?? error}`, ...(known && error.data !== undefined ? { data: error.data } : {}) } });
  }
}

/** Serves ACP on stdio until stdin closes, then exits. A line that is not JSON is answered with a parse error (and said on stderr); the next line is read as usual. */
export function serveStdio() {
  let buffered = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    buffered += chunk;
    for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
      const line = buffered.slice(0, end).trim();
      buffered = buffered.slice(end + 1);
      if (!line) continue;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        process.stderr.write(`demo-agent: a line on stdin is not JSON (${line.length} characters), answered with a parse error\n`);
        write({ id: null, error: { code: ErrorCode.parse, message: "Parse error" } });
        continue;
      }
      void dispatch(message);
    }
  });
  process.stdin.on("end", () => process.exit(0));
}

// Started as a program (not imported by a test): serve ACP on stdio until stdin closes.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) serveStdio();
