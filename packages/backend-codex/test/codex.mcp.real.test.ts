/**
 * The IRC tools as MCP tools with the REAL Codex CLI (0.169.0, `codex app-server`) against the
 * scripted Responses API: the backend registers `culture mcp` (stdio) through the thread's
 * `mcp_servers` config, the scripted model calls the culture send tool (under the name Codex
 * offers it) instead of a shell command, the reply appears on IRC, a supervisor whisper comes
 * back in the next tool result, and Codex's default `workspace-write` sandbox stays closed:
 * a shell command still cannot reach the daemon's socket, and with `irc_tools: mcp` culture
 * writes no exec rule and opens no network.
 * Needs `npm run build` and `node scripts/install-agent-clis.mjs codex`.
 */
import { connectRawClient, eventually, parseIrcPrompt, parseRawLine, shQuote, type ModelScript, type TestDaemon } from "@culture/core/testing";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFailed } from "vitest";
import { type CodexHome, ircSuite, makeCodexHome, startRealCodexDaemon, startResponsesApi } from "./helpers/real-codex.js";

const NICK = "spark-codex";

/** The send tool as Codex offers it to the model (e.g. `mcp__culture__send`). */
const sendTool = (tools: string[]) => tools.find((t) => /culture/.test(t) && /send$/.test(t));

/** A node one-liner that connects to the daemon's socket and prints how it went. */
const socketProbe = (sock: string) =>
  `node -e ${shQuote(`require("net").connect(${JSON.stringify(sock)}).on("connect",()=>{console.log("CONNECTED");process.exit(0)}).on("error",(e)=>console.log("CONNECT-"+e.code))`)}`;

describe("the codex backend's MCP IRC tools with the real Codex CLI", { timeout: 240_000 }, () => {
  const { cleanups, ircPort } = ircSuite();

  const privmsg = (text: RegExp) => (line: string) => {
    const p = parseRawLine(line);
    return p.command === "PRIVMSG" && p.nick === NICK && p.params[0] === "#test" && text.test(p.params[1] ?? "");
  };

  /** Starts an API with `script`, a Codex home (config.toml + `extraToml`), alice in #test and the daemon. */
  async function setup(script: ModelScript, agent: Record<string, unknown>, extraToml = "") {
    const api = await startResponsesApi(script);
    cleanups.push(() => api.close());
    const home: CodexHome = makeCodexHome(api, extraToml);
    cleanups.push(() => home.remove());
    const alice = await connectRawClient(ircPort(), "alice");
    cleanups.push(() => alice.close());
    await alice.join("#test");
    const started = startRealCodexDaemon({ ircPort: ircPort(), api, home, nick: NICK, agent });
    cleanups.push(async () => (await started.catch(() => undefined))?.stop());
    onTestFailed(() => {
      console.error(`--- model API requests\n${api.requests.map((r) => `${r.method} ${r.path} ${r.status ?? "open"} tools=${r.model?.tools.join(",") ?? "-"} results=${JSON.stringify(r.model?.toolResults ?? [])} reply=${JSON.stringify(r.reply ?? null)}`).join("\n")}`);
    });
    await alice.waitFor((_, p) => p.command === "JOIN" && p.nick === NICK && p.params[0] === "#test", 30_000);
    return { api, home, alice, started };
  }

  it("irc_tools: mcp — the model calls the culture send tool, the reply is on IRC, a whisper rides on the next tool result, the sandbox stays closed", async () => {
    let socket = "";
    const script: ModelScript = (req) => {
      if (req.afterToolResult) return { text: "done" };
      const prompt = parseIrcPrompt(req.lastUserText);
      const tool = sendTool(req.tools);
      if (!prompt || !tool) return { text: "ok" };
      if (prompt.text.includes("probe")) return { shell: socketProbe(socket) };
      const n = req.userTexts.filter((t) => parseIrcPrompt(t)).length;
      return { tool, input: { target: prompt.target, message: `mcp echo: ${prompt.text} (prompt ${n})` } };
    };
    const { api, home, alice, started } = await setup(script, { irc_tools: "mcp" });

    // Sent the moment the daemon joined, before its agent is ready.
    alice.send(`PRIVMSG #test :@${NICK} hello there`);
    await alice.waitFor(privmsg(/^mcp echo: @spark-codex hello there \(prompt 1\)$/), 90_000);
    const d: TestDaemon = await started;
    socket = join(d.home, "run", `culture-${NICK}.sock`);
    await eventually(() => d.daemon.status().activity === "idle", "the first turn to end", 60_000);
    const first = api.turns().find((t) => t.afterToolResult);
    const name = sendTool(first?.tools ?? []);
    console.log(`Codex offers the send tool as ${name}`);
    expect(name).toBeDefined();
    expect(first?.toolResults.at(-1)?.output).toMatch(/sent to #test/);
    // The prompt names the MCP tools and not `culture channel`.
    const developer = JSON.stringify(api.requests.find((r) => r.model)?.body ?? "");
    expect(developer).toContain("culture` MCP tools");
    expect(developer).toContain("Do not use shell commands for IRC");
    expect(developer).not.toContain("culture channel send <channel|nick>");

    // A whisper queued in the daemon rides on the next tool result of the MCP server's connection.
    const ipc = (d.daemon as unknown as { ipc: { sendWhisper(w: { action: string; message: string }): void } }).ipc;
    ipc.sendWhisper({ action: "CORRECTION", message: "keep replies short" });
    alice.send(`PRIVMSG #test :@${NICK} again`);
    await alice.waitFor(privmsg(/^mcp echo: @spark-codex again \(prompt 2\)$/), 90_000);
    await eventually(() => d.daemon.status().activity === "idle", "the second turn to end", 60_000);
    const second = api.turns().filter((t) => t.afterToolResult).at(-1);
    expect(second?.toolResults.at(-1)?.output).toMatch(/sent to #test\n\[SUPERVISOR\/CORRECTION\] keep replies short/);

    // Codex's default sandbox stays closed: a shell command cannot connect to the daemon's socket
    // (Codex's seccomp filter answers connect(2) with EPERM only while network access is off),
    // and culture wrote no exec rule.
    const before = api.turns().filter((t) => t.afterToolResult).length;
    alice.send(`PRIVMSG #test :@${NICK} probe`);
    const probed = await eventually(() => api.turns().filter((t) => t.afterToolResult)[before]?.toolResults.at(-1)?.output, "the probe's output", 60_000);
    expect(probed).toContain("CONNECT-EPERM");
    expect(existsSync(join(home.codexHome, "rules", "culture.rules"))).toBe(false);
  });
});
