/**
 * The IRC tools as MCP tools with the REAL Copilot runtime (BYOK against the scripted API): the
 * backend registers `culture mcp` (stdio) through the SDK's `mcpServers` session option, the
 * scripted model calls the culture send tool (under the name the runtime offers it) instead of
 * bash, the reply appears on IRC, and a supervisor whisper comes back in the tool result.
 */
import { connectRawClient, eventually, parseIrcPrompt, parseRawLine, type ModelScript, type TestDaemon } from "@culture/core/testing";
import { describe, expect, it, onTestFailed } from "vitest";
import { makeCopilotHome, startModelApi, startRealCopilotDaemon, useRealWorld } from "./helpers/real-copilot.js";

const NICK = "spark-copilot";

/** The send tool as the runtime names it (found in the offered tools, e.g. `culture-send`). */
const sendTool = (tools: string[]) => tools.find((t) => /culture/.test(t) && /send$/.test(t));

const mcpReplyScript: ModelScript = (req) => {
  if (req.afterToolResult) return { text: "done" };
  const prompt = parseIrcPrompt(req.lastUserText);
  const tool = sendTool(req.tools);
  if (!prompt || !tool) return { text: "ok" };
  const n = req.userTexts.filter((t) => parseIrcPrompt(t)).length;
  return { tool, input: { target: prompt.target, message: `mcp echo: ${prompt.text} (prompt ${n})` } };
};

describe("the copilot backend's MCP IRC tools with the real Copilot runtime", { timeout: 240_000 }, () => {
  const { irc, cleanups } = useRealWorld();

  it("the model calls the culture send MCP tool, the reply is on IRC, and a whisper rides on the next tool result", async () => {
    const api = await startModelApi(mcpReplyScript);
    cleanups.push(() => api.close());
    const home = makeCopilotHome();
    cleanups.push(() => home.remove());
    const alice = await connectRawClient(irc().port, "alice");
    cleanups.push(() => alice.close());
    await alice.join("#test");
    const d: TestDaemon = await startRealCopilotDaemon({ ircPort: irc().port, api, home, nick: NICK, agent: { irc_tools: "mcp" } });
    cleanups.push(() => d.stop());
    onTestFailed(() => {
      console.error(`--- model API requests\n${api.requests.map((r) => `${r.method} ${r.path} ${r.status ?? "open"} tools=${r.model?.tools.join(",") ?? "-"} results=${JSON.stringify(r.model?.toolResults ?? [])} reply=${JSON.stringify(r.reply ?? null)}`).join("\n")}`);
    });
    const privmsg = (text: RegExp) => (line: string) => {
      const p = parseRawLine(line);
      return p.command === "PRIVMSG" && p.nick === NICK && p.params[0] === "#test" && text.test(p.params[1] ?? "");
    };

    alice.send(`PRIVMSG #test :@${NICK} hello there`);
    await alice.waitFor(privmsg(/^mcp echo: @spark-copilot hello there \(prompt 1\)$/), 90_000);
    await eventually(() => d.daemon.status().activity === "idle", "the first turn to end", 60_000);
    const first = api.turns().find((t) => t.afterToolResult);
    const name = sendTool(first?.tools ?? []);
    console.log(`the runtime offers the send tool as ${name}`);
    expect(name).toBeDefined();
    expect(first?.toolResults.at(-1)?.output).toMatch(/sent to #test/);
    expect(api.requests.some((r) => r.reply && "shell" in r.reply)).toBe(false);

    const ipc = (d.daemon as unknown as { ipc: { sendWhisper(w: { action: string; message: string }): void } }).ipc;
    ipc.sendWhisper({ action: "CORRECTION", message: "keep replies short" });
    alice.send(`PRIVMSG #test :@${NICK} again`);
    await alice.waitFor(privmsg(/^mcp echo: @spark-copilot again \(prompt 2\)$/), 90_000);
    await eventually(() => d.daemon.status().activity === "idle", "the second turn to end", 60_000);
    const second = api.turns().filter((t) => t.afterToolResult).at(-1);
    expect(second?.toolResults.at(-1)?.output).toMatch(/sent to #test\n\[SUPERVISOR\/CORRECTION\] keep replies short/);
  });
});
