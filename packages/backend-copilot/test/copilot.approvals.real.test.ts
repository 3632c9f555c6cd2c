/**
 * Approvals (issue #20) with the REAL Copilot runtime (BYOK against the scripted model API) in
 * culture's real daemon on the embedded IRC server. The model asks to run a risky shell
 * command that creates a marker file; with `permissions.mode: ask` the runtime's permission
 * request reaches the daemon's `permissionRequest` hook, whose tap answers it here:
 * allow runs it, deny keeps it from running and the reason reaches the model, an abort
 * withdraws the request (its signal aborts); with `bypass` nobody is asked. culture's own MCP
 * IRC tools are never asked for. Then without a tap: the daemon posts the request line on IRC
 * and an operator answers `approve` or `deny <reason>` there.
 */
import type { PermissionDecision, PermissionRequest } from "@culture/core";
import {
  connectRawClient,
  tapPermissionRequests,
  type DecidePermission,
  eventually,
  parseIrcPrompt,
  parseRawLine,
  shQuote,
  type ModelScript,
  type RawIrcClient,
  type ScriptedModelApi,
  type TestDaemon,
} from "@culture/core/testing";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it, onTestFailed } from "vitest";
import { createRealCopilotDaemon, makeCopilotHome, startModelApi, useRealWorld } from "./helpers/real-copilot.js";

const NICK = "spark-copilot";
const LONG = 90_000;
const REASON = "no new files in the home directory today; ask alice first";

const allow: PermissionDecision = { behavior: "allow", scope: "once", by: "alice" };

/**
 * On `make the marker`, runs `touch <marker>`; then reports that command's output (or its
 * denial) on IRC with `culture channel send` and ends the turn. On `say hi` the culture MCP
 * send tool says hi. Any other prompt is echoed with `culture channel send`.
 */
function markerScript(marker: string): ModelScript {
  return (req) => {
    const prompt = parseIrcPrompt(req.userTexts.findLast((t) => parseIrcPrompt(t)) ?? "");
    if (!prompt || req.tools.length === 0) return { text: "ok" };
    if (req.afterToolResult) {
      const output = req.toolResults.at(-1)!.output.split("\n")[0]!;
      const ofTheMarker = output === "marker made" || output.includes("rejected this tool call");
      return ofTheMarker ? { shell: `culture channel send ${shQuote(prompt.target)} ${shQuote(`result: ${output}`)}` } : { text: "done" };
    }
    if (prompt.text.includes("make the marker")) return { shell: `touch ${shQuote(marker)} && echo marker made` };
    if (prompt.text.includes("say hi")) {
      const send = req.tools.find((t) => /culture/.test(t) && /send$/.test(t));
      return send ? { tool: send, input: { target: prompt.target, message: "hi from mcp" } } : { text: "no culture send tool" };
    }
    return { shell: `culture channel send ${shQuote(prompt.target)} ${shQuote(`echo: ${prompt.text}`)}` };
  };
}

describe("approvals with the real Copilot runtime (BYOK)", { timeout: 240_000 }, () => {
  const { irc, cleanups } = useRealWorld();

  interface Setup {
    api: ScriptedModelApi;
    human: RawIrcClient;
    d: TestDaemon;
    marker: string;
    /** Every request the tap saw. */
    asked: PermissionRequest[];
  }

  /** An operator in #test, a scripted API, the daemon with a `permissionRequest` tap that records and asks `decide`; resolves once the agent has joined. */
  async function setup(agent: Record<string, unknown>, decide: DecidePermission): Promise<Setup> {
    const home = makeCopilotHome();
    cleanups.push(() => home.remove());
    const marker = join(home.dir, "marker");
    const api = await startModelApi(markerScript(marker));
    cleanups.push(() => api.close());
    const human = await connectRawClient(irc().port, "alice");
    cleanups.push(() => human.close());
    await human.join("#test");
    const d = await createRealCopilotDaemon({ ircPort: irc().port, api, home, nick: NICK, agent, config: { operators: ["alice"], operators_by_nick: true } });
    const asked = tapPermissionRequests(d.daemon.hooks, decide);
    cleanups.push(() => d.stop());
    void d.start().catch(() => undefined);
    onTestFailed(() => {
      console.error(`--- asked\n${asked.map((r) => `${r.tool} ${r.kind} ${r.summary}`).join("\n")}`);
      console.error(`--- model API requests\n${api.requests.map((r) => `${r.status ?? "open"} results=${JSON.stringify(r.model?.toolResults ?? [])} reply=${JSON.stringify(r.reply ?? null)}`).join("\n")}`);
    });
    await human.waitFor((_, p) => p.command === "JOIN" && p.nick === NICK && p.params[0] === "#test", 30_000);
    return { api, human, d, marker, asked };
  }

  const privmsg = (text: RegExp) => (line: string) => {
    const p = parseRawLine(line);
    return p.command === "PRIVMSG" && p.nick === NICK && p.params[0] === "#test" && text.test(p.params[1] ?? "");
  };
  const isMarkerCommand = (r: PermissionRequest) => r.kind === "shell" && (r.command ?? "").includes("touch");

  it("ask: an allowed shell command runs (the marker exists) and the reply reaches IRC", async () => {
    const { human, marker, asked } = await setup({ permissions: { mode: "ask" } }, () => allow);
    human.send(`PRIVMSG #test :@${NICK} make the marker`);
    await human.waitFor(privmsg(/^result: marker made$/), LONG);
    expect(existsSync(marker)).toBe(true);
    const request = asked.find(isMarkerCommand);
    expect(request).toMatchObject({
      tool: "bash",
      kind: "shell",
      command: `touch ${shQuote(marker)} && echo marker made`,
      summary: `run: touch ${shQuote(marker)} && echo marker made`,
    });
    expect(request?.signal).toBeInstanceOf(AbortSignal);
    expect(request?.signal?.aborted).toBe(false);
    // The reply itself was a shell command too (irc_tools both: the model chose bash), and it was asked for.
    expect(asked.some((r) => r.kind === "shell" && r.command?.startsWith("culture channel send"))).toBe(true);
  });

  it("ask: a denied shell command does not run, and the model's next request carries the reason", async () => {
    const { api, human, marker, asked } = await setup({ permissions: { mode: "ask" } }, (r) =>
      isMarkerCommand(r) ? { behavior: "deny", reason: REASON, by: "alice" } : allow,
    );
    human.send(`PRIVMSG #test :@${NICK} make the marker`);
    const reply = await human.waitFor(privmsg(/^result: /), LONG);
    expect(parseRawLine(reply).params[1]).toBe(`result: The user rejected this tool call. User feedback: ${REASON}`);
    expect(existsSync(marker)).toBe(false);
    expect(asked.filter(isMarkerCommand)).toHaveLength(1);
    const next = api.turns().find((t) => t.afterToolResult);
    expect(next?.toolResults.at(-1)?.output).toBe(`The user rejected this tool call. User feedback: ${REASON}`);
  });

  it("ask: an operator's abort withdraws a pending request (its signal aborts), the command never runs, and the next mention is answered", async () => {
    let withdrawnSeen = false;
    const { human, marker, asked } = await setup({ permissions: { mode: "ask" } }, (r) => {
      if (!isMarkerCommand(r)) return allow;
      // Nobody answers: the request waits until the agent withdraws it.
      return new Promise<PermissionDecision>((resolve) =>
        r.signal?.addEventListener("abort", () => {
          withdrawnSeen = true;
          resolve({ behavior: "deny", reason: "withdrawn", by: "agent" });
        }),
      );
    });
    human.send(`PRIVMSG #test :@${NICK} make the marker`);
    await eventually(() => asked.some(isMarkerCommand), "the agent to ask for the command", LONG);
    human.send(`PRIVMSG #test :@${NICK} abort`);
    await human.waitFor(privmsg(/aborted/), LONG);
    await eventually(() => withdrawnSeen, "the request's signal to abort");
    expect(asked.find(isMarkerCommand)?.signal?.aborted).toBe(true);
    human.send(`PRIVMSG #test :@${NICK} still there?`);
    await human.waitFor(privmsg(/^echo: @spark-copilot still there\?$/), LONG);
    expect(existsSync(marker)).toBe(false);
  });

  it("ask: culture's own MCP IRC tools are used without asking", async () => {
    const { human, asked } = await setup({ permissions: { mode: "ask" }, irc_tools: "mcp" }, () => ({ behavior: "deny", reason: "nothing is allowed", by: "alice" }));
    human.send(`PRIVMSG #test :@${NICK} say hi`);
    await human.waitFor(privmsg(/^hi from mcp$/), LONG);
    expect(asked).toEqual([]);
  });

  /** `ask`, with the agent's own replies (`culture channel send` in bash) allowed by the policy, so only the marker command is asked on IRC. */
  const askOnIrc = { permissions: { mode: "ask", allow: ["Bash(culture channel send *)"] } };

  /** Waits for the agent's request line in #test; returns its id and summary. */
  async function requestLine(c: RawIrcClient): Promise<{ id: string; summary: string }> {
    const line = parseRawLine(await c.waitFor(privmsg(/^\[APPROVAL /), LONG)).params[1] ?? "";
    const m = new RegExp(`^\\[APPROVAL ([0-9a-f]+)\\] wants to (.*) \\(bash\\)\\. Reply: @${NICK} approve \\1 \\| deny \\1 \\[reason\\] \\| always \\1$`).exec(line);
    expect(m, `a request line: ${line}`).not.toBeNull();
    return { id: m![1]!, summary: m![2]! };
  }

  it("IRC: an operator answers approve: the command runs and the agent replies", async () => {
    const { human, marker } = await setup(askOnIrc, () => undefined);
    human.send(`PRIVMSG #test :@${NICK} make the marker`);
    const req = await requestLine(human);
    expect(req.summary).toBe(`run "touch ${shQuote(marker)} && echo marker made"`);
    expect(existsSync(marker)).toBe(false);
    human.send(`PRIVMSG #test :@${NICK} approve ${req.id}`);
    await human.waitFor(privmsg(new RegExp(`^\\[APPROVAL ${req.id}\\] approved by alice$`)), LONG);
    await human.waitFor(privmsg(/^result: marker made$/), LONG);
    expect(existsSync(marker)).toBe(true);
  });

  it("IRC: an operator answers deny with a reason: nothing runs, and the model reads the reason", async () => {
    const { api, human, marker } = await setup(askOnIrc, () => undefined);
    human.send(`PRIVMSG #test :@${NICK} make the marker`);
    const req = await requestLine(human);
    human.send(`PRIVMSG #test :@${NICK} deny ${req.id} not in the home directory`);
    await human.waitFor(privmsg(new RegExp(`^\\[APPROVAL ${req.id}\\] denied by alice: not in the home directory$`)), LONG);
    await human.waitFor(privmsg(/^result: The user rejected this tool call\. User feedback: not in the home directory$/), LONG);
    expect(existsSync(marker)).toBe(false);
    expect(api.turns().find((t) => t.afterToolResult)?.toolResults.at(-1)?.output).toBe("The user rejected this tool call. User feedback: not in the home directory");
  });

  it("IRC: an operator's abort while the request line waits withdraws it, and nothing runs", async () => {
    const { human, marker, d } = await setup(askOnIrc, () => undefined);
    human.send(`PRIVMSG #test :@${NICK} make the marker`);
    const req = await requestLine(human);
    human.send(`PRIVMSG #test :@${NICK} abort`);
    await human.waitFor(privmsg(new RegExp(`^\\[APPROVAL ${req.id}\\] withdrawn by the agent$`)), LONG);
    await eventually(() => d.daemon.status().activity === "idle", "the aborted turn to end", LONG);
    expect(existsSync(marker)).toBe(false);
  });

  it("bypass: the marker command runs and nothing is asked", async () => {
    const { human, marker, asked } = await setup({ permissions: { mode: "bypass" } }, () => ({ behavior: "deny", reason: "should not be asked", by: "alice" }));
    human.send(`PRIVMSG #test :@${NICK} make the marker`);
    await human.waitFor(privmsg(/^result: marker made$/), LONG);
    expect(existsSync(marker)).toBe(true);
    expect(asked).toEqual([]);
  });

  it("bypass with a deny pattern (issue #24): rm -rf of a folder is rejected by the policy with the reason, the folder survives, nobody is asked on IRC", async () => {
    const { api, human, marker, asked } = await setup({ permissions: { deny: ["Bash(rm -rf*)"] } }, () => undefined);
    const victim = join(dirname(marker), "victim");
    mkdirSync(victim);
    writeFileSync(join(victim, "keep.txt"), "precious\n");
    const base = markerScript(marker);
    api.setScript((req) => {
      const prompt = parseIrcPrompt(req.userTexts.findLast((t) => parseIrcPrompt(t)) ?? "");
      if (prompt?.text.includes("wipe") && !req.afterToolResult) return { shell: `rm -rf ${shQuote(victim)}` };
      return base(req);
    });
    human.send(`PRIVMSG #test :@${NICK} wipe the victim`);
    const reply = await human.waitFor(privmsg(/^result: /), LONG);
    expect(parseRawLine(reply).params[1]).toBe("result: The user rejected this tool call. User feedback: the permissions.deny pattern Bash(rm -rf*) forbids this");
    expect(existsSync(join(victim, "keep.txt"))).toBe(true);
    expect(asked.filter((r) => r.kind === "shell").map((r) => r.command)[0]).toBe(`rm -rf ${shQuote(victim)}`);
    expect(human.lines.some((l) => /\[APPROVAL /.test(l))).toBe(false);
  });
});
