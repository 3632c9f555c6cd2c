/**
 * The IRC tools as MCP tools with a real ACP agent (OpenCode, Gemini CLI): the runner registers
 * `culture mcp` (stdio) in the `mcpServers` of `session/new`, the agent starts it, the scripted
 * model calls the culture send tool under the name the agent offers it (no shell command), the
 * reply appears on IRC, and a supervisor whisper rides on the next tool result.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { parseIrcPrompt, type ModelScript } from "@culture/core/testing";
import { idle, startRealAcpRig, type RealAcpAgentName, type RealAcpRig } from "./real-acp-rig.js";

/** The send tool as the agent names it (OpenCode `culture_send`, Gemini CLI `mcp_culture_send`). */
export const sendTool = (tools: string[]) => tools.find((t) => /culture/.test(t) && /send$/.test(t));

const mcpReplyScript: ModelScript = (req) => {
  if (req.tools.length === 0 || req.afterToolResult) return { text: "done" };
  const prompt = parseIrcPrompt(req.lastUserText);
  const tool = sendTool(req.tools);
  if (!prompt || !tool) return { text: "ok" };
  const n = req.userTexts.filter((t) => parseIrcPrompt(t)).length;
  return { tool, input: { target: prompt.target, message: `mcp echo: ${prompt.text} (prompt ${n})` } };
};

/** A tool result's text: Gemini CLI wraps an MCP tool's output as JSON (`{"output": "..."}`). */
export function resultText(output: string | undefined): string | undefined {
  try {
    const parsed = JSON.parse(output ?? "") as { output?: unknown };
    return typeof parsed.output === "string" ? parsed.output : output;
  } catch {
    return output;
  }
}

/** The MCP IRC tools suite of one real ACP agent. */
export function describeRealAcpMcpTools(agent: RealAcpAgentName): void {
  describe(`the real ${agent}'s IRC tools through culture mcp (irc_tools: mcp)`, { timeout: 240_000 }, () => {
    let rig: RealAcpRig;

    beforeAll(async () => {
      rig = await startRealAcpRig({ agent, script: mcpReplyScript, nick: `mcp-${agent}`, entry: { irc_tools: "mcp" } });
    }, 120_000);
    afterAll(async () => {
      await rig?.close();
    }, 60_000);

    it("the model calls the culture send MCP tool, the reply is on IRC, and a whisper rides on the next tool result", async () => {
      onTestFailed(() => {
        console.error(
          `--- model API requests\n${rig.api.requests
            .map((r) => `${r.method} ${r.path} ${r.status ?? "open"} tools=${r.model?.tools.join(",") ?? "-"} results=${JSON.stringify(r.model?.toolResults ?? [])} reply=${JSON.stringify(r.reply ?? null)}`)
            .join("\n")}`,
        );
      });
      rig.olga.send(`PRIVMSG #test :@${rig.nick} hello there`);
      await rig.said("#test", new RegExp(`^mcp echo: @${rig.nick} hello there \\(prompt 1\\)$`));
      await idle(rig, "the first turn to end");
      // The agent prompt names the MCP tools and only them.
      const system = rig.api.turns().flatMap((t) => t.userTexts).find((t) => t.includes("MCP tools"));
      expect(system).toMatch(/Talk on IRC with your `culture` MCP tools: send .* Do not use shell commands for IRC\./s);
      const first = rig.api.turns().find((t) => t.afterToolResult && t.tools.length > 0);
      const name = sendTool(first?.tools ?? []);
      console.log(`${agent} offers the send tool as ${name}`);
      expect(name).toBeDefined();
      expect(resultText(first?.toolResults.at(-1)?.output)).toMatch(/sent to #test/);
      expect(rig.api.requests.some((r) => r.reply && "shell" in r.reply)).toBe(false);

      const ipc = (rig.d.daemon as unknown as { ipc: { sendWhisper(w: { action: string; message: string }): void } }).ipc;
      ipc.sendWhisper({ action: "CORRECTION", message: "keep replies short" });
      rig.olga.send(`PRIVMSG #test :@${rig.nick} again`);
      await rig.said("#test", new RegExp(`^mcp echo: @${rig.nick} again \\(prompt 2\\)$`));
      await idle(rig, "the second turn to end");
      const second = rig.api.turns().filter((t) => t.afterToolResult && t.tools.length > 0).at(-1);
      console.log(`${agent}'s tool result as the model sees it: ${JSON.stringify(second?.toolResults.at(-1)?.output)}`);
      expect(resultText(second?.toolResults.at(-1)?.output)).toMatch(/sent to #test\n\[SUPERVISOR\/CORRECTION\] keep replies short/);
    });
  });
}
