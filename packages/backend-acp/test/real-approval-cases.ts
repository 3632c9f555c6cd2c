/**
 * Approvals (issue #20) with a real ACP agent (OpenCode, Gemini CLI): with `permissions.mode:
 * ask` the agent asks before it runs a shell command, culture routes the request to the
 * daemon's `permissionRequest` hook, and answers the agent with its own allow or reject
 * option. The scripted model asks for `touch <marker>`, then reports on IRC with culture's send
 * MCP tool (never asked for). A tap answers, or (no tap answer) an operator on IRC. In bypass
 * mode nothing is asked.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { agentCli, eventually, parseIrcPrompt, parseRawLine, tapPermissionRequests, type ModelScript } from "@culture/core/testing";
import type { PermissionDecision, PermissionRequest } from "@culture/core";
import { idle, startRealAcpRig, type RealAcpAgentName, type RealAcpRig } from "./real-acp-rig.js";
import { resultText, sendTool } from "./real-mcp-cases.js";

const DENIAL = "[culture] Permission denied";

/** `@nick make <file>`: `touch <file>`, then `after <file>` on IRC through the send tool. */
const approvalScript: ModelScript = (req) => {
  if (req.tools.length === 0 || req.lastUserText.startsWith(DENIAL)) return { text: "understood" };
  const current = parseIrcPrompt(req.userTexts.filter((t) => parseIrcPrompt(t)).at(-1) ?? "");
  const file = /make (\S+)/.exec(current?.text ?? "")?.[1];
  const send = sendTool(req.tools);
  if (!current || !file || !send) return { text: "ok" };
  if (!req.afterToolResult) return { shell: `touch ${file}` };
  if (/sent to/.test(resultText(req.toolResults.at(-1)?.output) ?? "")) return { text: "done" };
  return { tool: send, input: { target: current.target, message: `after ${file}` } };
};

/** The approvals suite of one real ACP agent. */
export function describeRealAcpApprovals(agent: RealAcpAgentName): void {
  describe(`the real ${agent} asks culture for its tools (permissions: ask)`, { timeout: 240_000 }, () => {
    let rig: RealAcpRig;
    let asked: PermissionRequest[] = [];
    /** The tap's answer; undefined leaves it to the daemon's policy (mode ask: an operator on IRC). */
    let answer: PermissionDecision | undefined = { behavior: "allow", scope: "once", by: "test" };

    beforeAll(async () => {
      // Gemini CLI starts in its yolo mode here: culture must switch it to default to be asked at all.
      const yolo = agent === "gemini" ? { acp_command: [agentCli("gemini").bin!, "--acp", "--approval-mode", "yolo"] } : {};
      rig = await startRealAcpRig({ agent, script: approvalScript, nick: `ask-${agent}`, entry: { irc_tools: "mcp", permissions: { mode: "ask" }, ...yolo } });
      asked = tapPermissionRequests(rig.d.daemon.hooks, () => answer);
    }, 120_000);
    afterAll(async () => {
      await rig?.close();
    }, 60_000);

    const dump = () =>
      onTestFailed(() => {
        console.error(`--- asked\n${JSON.stringify(asked, null, 1)}\n--- model API requests\n${rig.api.requests
          .map((r) => `${r.path} tools=${r.model?.tools.length ?? "-"} user=${JSON.stringify(r.model?.lastUserText ?? "").slice(0, 200)} results=${JSON.stringify(r.model?.toolResults.at(-1) ?? null)} reply=${JSON.stringify(r.reply ?? null)}`)
          .join("\n")}`);
      });

    it("allowed: the command runs and the reply reaches IRC; OpenCode never asks for culture's send tool, Gemini CLI's is asked for as kind other", async () => {
      dump();
      rig.olga.send(`PRIVMSG #test :@${rig.nick} make marker-allowed`);
      await rig.said("#test", /^after marker-allowed$/);
      await idle(rig);
      expect(existsSync(join(rig.d.home, "marker-allowed"))).toBe(true);
      console.log(`${agent} asked: ${JSON.stringify(asked.map(({ signal: _s, ...r }) => r))}`);
      expect(asked[0]).toMatchObject({ kind: "shell", command: expect.stringContaining("touch marker-allowed") });
      // OpenCode does not ask for MCP tools. Gemini CLI does, and ACP names no MCP server in a
      // request (its title and call id are the model's), so culture's send tool is not exempt
      // there: it is asked for as a kind-other request (issue #24).
      if (agent === "opencode") expect(asked).toHaveLength(1);
      else expect(asked.slice(1).map((r) => `${r.kind}:${r.tool}`)).toEqual(["other:other"]);
      expect(asked[0]!.summary).toMatch(/^run: .*touch marker-allowed/);
    });

    it("denied with a reason: the command does not run and the model's next prompt carries the reason", async () => {
      dump();
      answer = { behavior: "deny", reason: "no marker files today", by: "olga" };
      const from = rig.api.requests.length;
      rig.olga.send(`PRIVMSG #test :@${rig.nick} make marker-denied`);
      await eventually(() => rig.api.requests.slice(from).some((r) => r.model?.lastUserText.startsWith(DENIAL)), "the denial prompt to reach the model", 90_000);
      await idle(rig);
      expect(existsSync(join(rig.d.home, "marker-denied"))).toBe(false);
      const denial = rig.api.requests.slice(from).find((r) => r.model?.lastUserText.startsWith(DENIAL))!.model!.lastUserText;
      console.log(`${agent}'s model got: ${denial}`);
      expect(denial).toMatch(/touch marker-denied.* was denied by olga: no marker files today/);
    });

    it("an operator answers approve on IRC: the command runs and the agent replies", async () => {
      dump();
      answer = undefined;
      rig.olga.send(`PRIVMSG #test :@${rig.nick} make marker-irc`);
      const line = await rig.said("#test", /^\[APPROVAL /, 60_000);
      const text = parseRawLine(line).params[1] ?? "";
      console.log(`${agent}'s request line: ${text}`);
      const m = new RegExp(`^\\[APPROVAL ([0-9a-f]+)\\] wants to run "touch marker-irc" \\(\\S+\\)\\. Reply: @${rig.nick} approve \\1 \\| deny \\1 \\[reason\\] \\| always \\1$`).exec(text);
      expect(m, text).not.toBeNull();
      expect(existsSync(join(rig.d.home, "marker-irc"))).toBe(false);
      rig.olga.send(`PRIVMSG #test :@${rig.nick} approve ${m![1]}`);
      await rig.said("#test", new RegExp(`^\\[APPROVAL ${m![1]}\\] approved by olga$`), 30_000);
      if (agent === "gemini") {
        // Gemini CLI's call of culture's send tool is asked for too (ACP names no MCP server): approve it.
        const send = parseRawLine(await rig.said("#test", /^\[APPROVAL [0-9a-f]+\] wants to "use a tool of kind other/, 60_000)).params[1] ?? "";
        rig.olga.send(`PRIVMSG #test :@${rig.nick} approve ${/^\[APPROVAL ([0-9a-f]+)\]/.exec(send)![1]}`);
      }
      await rig.said("#test", /^after marker-irc$/);
      await idle(rig);
      expect(existsSync(join(rig.d.home, "marker-irc"))).toBe(true);
    });
  });

  describe(`the real ${agent} in bypass mode asks nobody`, { timeout: 240_000 }, () => {
    let rig: RealAcpRig;
    let asked: PermissionRequest[] = [];

    beforeAll(async () => {
      rig = await startRealAcpRig({ agent, script: approvalScript, nick: `bypass-${agent}`, entry: { irc_tools: "mcp" } });
      asked = tapPermissionRequests(rig.d.daemon.hooks, () => ({ behavior: "deny", reason: "should not be asked", by: "test" }));
    }, 120_000);
    afterAll(async () => {
      await rig?.close();
    }, 60_000);

    it("the command runs and the permissionRequest hook is never called", async () => {
      rig.olga.send(`PRIVMSG #test :@${rig.nick} make marker-bypass`);
      await rig.said("#test", /^after marker-bypass$/);
      await idle(rig);
      expect(existsSync(join(rig.d.home, "marker-bypass"))).toBe(true);
      expect(asked).toEqual([]);
    });
  });

  describe(`the real ${agent} with a deny pattern in bypass mode, the default (issue #24)`, { timeout: 240_000 }, () => {
    let rig: RealAcpRig;
    let asked: PermissionRequest[] = [];
    /** `@nick wipe <dir>`: `rm -rf <dir>`; then, told why it was denied, it says so on IRC. */
    const wipeScript: ModelScript = (req) => {
      const current = parseIrcPrompt(req.userTexts.filter((t) => parseIrcPrompt(t)).at(-1) ?? "");
      const send = sendTool(req.tools);
      if (req.tools.length === 0 || !current || !send) return { text: "ok" };
      if (req.lastUserText.startsWith(DENIAL)) {
        if (req.afterToolResult) return { text: "understood" };
        return { tool: send, input: { target: current.target, message: "told: denied" } };
      }
      const dir = /wipe (\S+)/.exec(current.text)?.[1];
      if (!dir || req.afterToolResult) return { text: "done" };
      return { shell: `rm -rf ${dir}` };
    };

    beforeAll(async () => {
      rig = await startRealAcpRig({ agent, script: wipeScript, nick: `deny-${agent}`, entry: { irc_tools: "mcp", permissions: { deny: ["Bash(rm -rf*)"] } } });
      asked = tapPermissionRequests(rig.d.daemon.hooks, () => undefined);
    }, 120_000);
    afterAll(async () => {
      await rig?.close();
    }, 60_000);

    it("rm -rf of a folder is denied by the policy: the folder survives, the model is told why, nobody is asked on IRC", async () => {
      const victim = join(rig.d.home, "victim");
      mkdirSync(victim);
      writeFileSync(join(victim, "keep.txt"), "precious\n");
      const from = rig.api.requests.length;
      rig.olga.send(`PRIVMSG #test :@${rig.nick} wipe victim`);
      await rig.said("#test", /^told: denied$/, 90_000);
      await idle(rig);
      expect(existsSync(join(victim, "keep.txt"))).toBe(true);
      expect(asked[0]).toMatchObject({ kind: "shell", command: expect.stringContaining("rm -rf victim") });
      const denial = rig.api.requests.slice(from).find((r) => r.model?.lastUserText.startsWith(DENIAL))!.model!.lastUserText;
      console.log(`${agent}'s model got: ${denial}`);
      expect(denial).toMatch(/rm -rf victim.* was denied by policy: the permissions\.deny pattern Bash\(rm -rf\*\) forbids this/);
      expect(rig.olga.lines.some((l) => /\[APPROVAL /.test(l))).toBe(false);
    });
  });
}
