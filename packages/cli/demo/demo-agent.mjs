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
 * It ships inside the `culture` package as dist/demo-agent.js (this file with the ACP SDK's
 * client bundled in; examples/demo-agent.mjs in the repository runs this file). It speaks ACP
 * through @agentclientprotocol/sdk (newline-delimited JSON-RPC on stdio), and finds the culture
 * CLI of its own package (bin/culture.cjs, run with the same node), else `culture` on PATH.
 * The daemon sets CULTURE_NICK in its environment.
 */
import * as acp from "@agentclientprotocol/sdk";
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";

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

function runCulture(args) {
  const { file, prefix } = cultureCommand();
  return new Promise((resolve) => {
    execFile(file, [...prefix, ...args], { env: process.env, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ ok: !error, output: (error ? stderr || error.message : stdout).trim() });
    });
  });
}

async function update(client, sessionId, upd) {
  await client.notify(acp.methods.client.session.update, { sessionId, update: upd });
}

async function reply(client, sessionId, text) {
  await update(client, sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
}

async function handlePrompt(client, sessionId, prompt) {
  const irc = parseIrcPrompt(prompt);
  if (!irc) {
    // The system prompt (or anything that is not from IRC): acknowledge, say nothing on IRC.
    await reply(client, sessionId, "Ready.");
    return;
  }
  const text = `${irc.sender}: ${answer(irc.sender, irc.text)}`;
  // Talk through culture like a real agent would, and show the call as a tool call.
  const toolCallId = `send-${randomUUID().slice(0, 8)}`;
  const args = ["channel", "send", irc.target, text];
  await update(client, sessionId, {
    sessionUpdate: "tool_call",
    toolCallId,
    title: `culture channel send ${irc.target}`,
    kind: "execute",
    status: "in_progress",
    rawInput: { command: ["culture", ...args] },
  });
  const sent = await runCulture(args);
  await update(client, sessionId, {
    sessionUpdate: "tool_call_update",
    toolCallId,
    status: sent.ok ? "completed" : "failed",
    rawOutput: { output: sent.output },
  });
  if (!sent.ok) process.stderr.write(`demo-agent: culture channel send failed: ${sent.output}\n`);
  await reply(client, sessionId, text);
}

const sessions = new Set();

const app = acp
  .agent({ name: "culture-demo-agent" })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: 1,
    agentCapabilities: { loadSession: false },
    authMethods: [],
    agentInfo: { name: "culture-demo-agent", version: "1.0.0" },
  }))
  .onRequest(acp.methods.agent.session.new, () => {
    const sessionId = `demo-${randomUUID()}`;
    sessions.add(sessionId);
    return { sessionId };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    if (!sessions.has(params.sessionId)) throw acp.RequestError.sessionNotFound(params.sessionId);
    const prompt = params.prompt.map((block) => (block.type === "text" ? block.text : "")).join("");
    await handlePrompt(client, params.sessionId, prompt);
    return { stopReason: "end_turn" };
  })
  // Every turn is quick: there is nothing to cancel.
  .onNotification(acp.methods.agent.session.cancel, () => undefined);

/** Serves ACP on stdio until stdin closes, then exits. */
export function serveStdio() {
  const connection = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
  connection.closed.then(() => process.exit(0));
}

// Started as a program (not imported by a test): serve ACP on stdio until stdin closes.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) serveStdio();
