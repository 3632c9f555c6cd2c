/**
 * The IRC tools as MCP tools with the REAL Claude Code CLI: the daemon registers its
 * in-process `culture` MCP server with the Agent SDK, the scripted model calls
 * `mcp__culture__send` (the name Claude Code gives the tool) instead of the shell, the reply
 * appears on IRC, and a supervisor whisper comes back in the tool result the model sees next.
 */
import { eventually, parseIrcPrompt, type ModelScript } from "@culture/core/testing";
import { describe, expect, it, onTestFailed } from "vitest";
import { human as connectHuman, ircSuite, privmsg, saidTo, startRealClaude, type RealClaude } from "./real-claude-harness.js";

const NICK = "spark-claude";

/** Answers every IRC prompt with the MCP send tool (never the shell), then `done`. */
const mcpReplyScript: ModelScript = (req) => {
  if (req.afterToolResult) return { text: "done" };
  const prompt = parseIrcPrompt(req.lastUserText);
  if (!prompt || req.tools.length === 0) return { text: "ok" };
  const n = req.userTexts.filter((t) => parseIrcPrompt(t)).length;
  return { tool: "mcp__culture__send", input: { target: prompt.target, message: `mcp echo: ${prompt.text} (prompt ${n})` } };
};

describe("the claude backend's MCP IRC tools with the real Claude Code CLI", () => {
  const { cleanups, ircPort } = ircSuite();

  it("the model calls mcp__culture__send, the reply is on IRC, and a whisper rides on the next tool result", async () => {
    const alice = await connectHuman(ircPort(), "alice");
    cleanups.push(async () => alice.close());
    const a: RealClaude = await startRealClaude({ ircPort: ircPort(), nick: NICK, script: mcpReplyScript, agent: { irc_tools: "mcp" } });
    cleanups.push(() => a.stop());
    onTestFailed(() => {
      console.error(`--- daemon log (last 60 lines)\n${a.lines.slice(-60).join("\n")}`);
      console.error(`--- model API requests\n${a.api.requests.map((r) => `${r.method} ${r.path} ${r.status ?? "open"} tools=${r.model?.tools.join(",") ?? "-"} results=${JSON.stringify(r.model?.toolResults ?? [])} reply=${JSON.stringify(r.reply ?? null)}`).join("\n")}`);
    });

    alice.send(`PRIVMSG #test :@${NICK} hello there`);
    await alice.waitFor(privmsg(NICK, "#test", /^mcp echo: @spark-claude hello there \(prompt 1\)$/), 60_000);
    await eventually(() => a.d.daemon.status().activity === "idle", "the first turn to end", 30_000);
    const first = a.api.turns().find((t) => t.afterToolResult);
    // Claude Code 2.1 defers MCP tools (ToolSearch): they are named in the request, not in its tools array.
    const body = JSON.stringify(first?.body);
    for (const name of ["mcp__culture__send", "mcp__culture__read", "mcp__culture__ask"]) expect(body).toContain(name);
    expect(first?.system).toMatch(/culture` MCP tools/);
    expect(first?.toolResults.at(-1)?.output).toBe("sent to #test");
    // No shell command was run for IRC.
    expect(a.api.requests.some((r) => r.reply && "shell" in r.reply)).toBe(false);

    const ipc = (a.d.daemon as unknown as { ipc: { sendWhisper(w: { action: string; message: string }): void } }).ipc;
    ipc.sendWhisper({ action: "CORRECTION", message: "keep replies short" });
    alice.send(`PRIVMSG #test :@${NICK} again`);
    await alice.waitFor(privmsg(NICK, "#test", /^mcp echo: @spark-claude again \(prompt 2\)$/), 60_000);
    await eventually(() => a.d.daemon.status().activity === "idle", "the second turn to end", 30_000);
    const second = a.api.turns().filter((t) => t.afterToolResult).at(-1);
    expect(second?.toolResults.at(-1)?.output).toBe("sent to #test\n[SUPERVISOR/CORRECTION] keep replies short");
    expect(saidTo(alice.lines, NICK, "#test")).toEqual(["mcp echo: @spark-claude hello there (prompt 1)", "mcp echo: @spark-claude again (prompt 2)"]);
  });
});
