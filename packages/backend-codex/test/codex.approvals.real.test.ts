/**
 * Approvals (issue #20) with the REAL Codex CLI (0.169.0, `codex app-server`) in culture's real
 * daemon on the embedded IRC server, against the scripted Responses API. The model asks to run
 * a risky shell command that creates a marker file; with `permissions.mode: ask` the thread runs
 * with `approvalPolicy: "untrusted"`, Codex's `item/commandExecution/requestApproval` reaches
 * the daemon's `permissionRequest` hook, and its tap answers here: allow runs the command, deny
 * keeps it from running and the reason reaches the model (steered into the turn), an operator's
 * abort withdraws the request (its signal aborts); with `bypass` nobody is asked. culture's own
 * MCP IRC tools are never asked for, even when the user's Codex config makes Codex ask.
 * Needs `npm run build` and `node scripts/install-agent-clis.mjs codex`.
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
  type ModelReply,
  type ModelScript,
  type RawIrcClient,
  type ScriptedModelApi,
  type TestDaemon,
} from "@culture/core/testing";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFailed } from "vitest";
import { createRealCodexDaemon, ircSuite, makeCodexHome, startResponsesApi } from "./helpers/real-codex.js";

const NICK = "spark-codex";
const LONG = 90_000;
const REASON = "no new files in the home directory today; ask alice first";
const DENIED = "[culture] Your request was denied";

const allow: PermissionDecision = { behavior: "allow", scope: "once", by: "alice" };

/**
 * On `make the marker`, runs `touch <marker> && echo marker made` with Codex's shell tool; then
 * reports how it went on IRC with the culture MCP send tool: `result: marker made`, or the
 * denial culture steered into the turn. Any other prompt is echoed with the send tool.
 */
function markerScript(marker: string): ModelScript {
  return (req) => {
    const prompt = parseIrcPrompt(req.userTexts.findLast((t) => parseIrcPrompt(t)) ?? "");
    const send = req.tools.find((t) => /culture/.test(t) && /send$/.test(t));
    if (!prompt || !send) return { text: "ok" };
    const say = (message: string): ModelReply => ({ tool: send, input: { target: prompt.target, message } });
    const denial = req.userTexts.findLast((t) => t.startsWith(DENIED));
    const last = req.toolResults.at(-1)?.output ?? "";
    if (req.afterToolResult && /sent to/.test(last)) return { text: "done" };
    if (denial && req.userTexts.indexOf(denial) > req.userTexts.indexOf(req.userTexts.findLast((t) => parseIrcPrompt(t))!)) return say(`result: ${denial}`);
    if (req.afterToolResult) return say(`result: ${last.includes("marker made") ? "marker made" : last.split("\n")[0]}`);
    if (prompt.text.includes("make the marker")) return { shell: `touch ${shQuote(marker)} && echo marker made` };
    return say(`echo: ${prompt.text}`);
  };
}

describe("approvals with the real Codex CLI", { timeout: 240_000 }, () => {
  const { cleanups, ircPort } = ircSuite();

  interface Setup {
    api: ScriptedModelApi;
    human: RawIrcClient;
    d: TestDaemon;
    marker: string;
    /** Every request the tap saw. */
    asked: PermissionRequest[];
  }

  /** An operator in #test, a scripted API, the daemon with a `permissionRequest` tap that records and asks `decide`; resolves once the agent has joined. */
  async function setup(agent: Record<string, unknown>, decide: DecidePermission, extraToml = ""): Promise<Setup> {
    const api = await startResponsesApi(markerScript(""));
    cleanups.push(() => api.close());
    const home = makeCodexHome(api, extraToml);
    cleanups.push(() => home.remove());
    const human = await connectRawClient(ircPort(), "alice");
    cleanups.push(() => human.close());
    await human.join("#test");
    const d = await createRealCodexDaemon({ ircPort: ircPort(), api, home, nick: NICK, agent, config: { operators: ["alice"], operators_by_nick: true } });
    // In the agent's directory: the workspace-write sandbox lets the command write there.
    const marker = join(d.home, "marker");
    api.setScript(markerScript(marker));
    const asked = tapPermissionRequests(d.daemon.hooks, decide);
    cleanups.push(() => d.stop());
    void d.start().catch(() => undefined);
    onTestFailed(() => {
      console.error(`--- asked\n${asked.map((r) => `${r.tool} ${r.kind} ${r.summary}`).join("\n")}`);
      console.error(`--- model API requests\n${api.requests.map((r) => `${r.status ?? "open"} users=${JSON.stringify(r.model?.userTexts.slice(-2) ?? [])} results=${JSON.stringify(r.model?.toolResults.slice(-1) ?? [])} reply=${JSON.stringify(r.reply ?? null)}`).join("\n")}`);
    });
    await human.waitFor((_, p) => p.command === "JOIN" && p.nick === NICK && p.params[0] === "#test", 30_000);
    return { api, human, d, marker, asked };
  }

  const privmsg = (text: RegExp) => (line: string) => {
    const p = parseRawLine(line);
    return p.command === "PRIVMSG" && p.nick === NICK && p.params[0] === "#test" && text.test(p.params[1] ?? "");
  };
  const isMarkerCommand = (r: PermissionRequest) => r.kind === "shell" && (r.command ?? "").includes("touch");

  it("ask: an allowed shell command runs (the marker exists) and the reply reaches IRC; the MCP send is not asked for", async () => {
    const { human, marker, asked } = await setup({ permissions: { mode: "ask" } }, () => allow);
    human.send(`PRIVMSG #test :@${NICK} make the marker`);
    await human.waitFor(privmsg(/^result: marker made$/), LONG);
    expect(existsSync(marker)).toBe(true);
    const request = asked.find(isMarkerCommand);
    expect(request).toMatchObject({ tool: "exec_command", kind: "shell", summary: expect.stringContaining(`run: `) });
    // The command as the model wrote it, without Codex's `/bin/bash -c "..."` around it.
    expect(request?.command).toBe(`touch ${shQuote(marker)} && echo marker made`);
    expect(request?.signal).toBeInstanceOf(AbortSignal);
    expect(request?.signal?.aborted).toBe(false);
    expect(asked).toHaveLength(1);
  });

  it("ask: a denied shell command does not run, and the model's next request carries the reason", async () => {
    const { api, human, marker, asked } = await setup({ permissions: { mode: "ask" } }, (r) =>
      isMarkerCommand(r) ? { behavior: "deny", reason: REASON, by: "alice" } : allow,
    );
    human.send(`PRIVMSG #test :@${NICK} make the marker`);
    const reply = await human.waitFor(privmsg(/^result: /), LONG);
    console.log(`the agent reported: ${parseRawLine(reply).params[1]}`);
    expect(parseRawLine(reply).params[1]).toContain(REASON);
    expect(existsSync(marker)).toBe(false);
    expect(asked.filter(isMarkerCommand)).toHaveLength(1);
    const asking = api.requests.findIndex((r) => r.reply && "shell" in r.reply);
    const next = api.requests[asking + 1]?.model;
    console.log(`the next request: tool results ${JSON.stringify(next?.toolResults.slice(-1))}, last user text ${JSON.stringify(next?.userTexts.at(-1))}`);
    expect(next?.userTexts.some((t) => t.includes(REASON))).toBe(true);
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
    await eventually(() => withdrawnSeen, "the request's signal to abort", LONG);
    human.send(`PRIVMSG #test :@${NICK} still there?`);
    await human.waitFor(privmsg(/^echo: @spark-codex still there\?$/), LONG);
    expect(existsSync(marker)).toBe(false);
  });

  it("ask: when the user's Codex config makes Codex ask before culture's MCP tools, culture allows them itself", async () => {
    const toml = `\n[mcp_servers.culture.tools.send]\napproval_mode = "prompt"\n`;
    const { human, asked } = await setup({ permissions: { mode: "ask" }, irc_tools: "mcp" }, () => ({ behavior: "deny", reason: "nothing is allowed", by: "alice" }), toml);
    human.send(`PRIVMSG #test :@${NICK} hello`);
    await human.waitFor(privmsg(/^echo: @spark-codex hello$/), LONG);
    expect(asked).toEqual([]);
  });

  /** Waits for the agent's request line in #test; returns its id and summary. */
  async function requestLine(human: RawIrcClient): Promise<{ id: string; summary: string }> {
    const line = await human.waitFor(privmsg(/^\[APPROVAL /), LONG);
    console.log(`the request line: ${parseRawLine(line).params[1]}`);
    const m = new RegExp(`^\\[APPROVAL ([0-9a-f]+)\\] wants to (.*) \\(exec_command\\)\\. Reply: @${NICK} approve \\1 \\| deny \\1 \\[reason\\] \\| always \\1$`).exec(parseRawLine(line).params[1] ?? "");
    expect(m, `a request line: ${line}`).not.toBeNull();
    return { id: m![1]!, summary: m![2]! };
  }

  it("ask: an operator answers approve on IRC: the command runs and the agent replies", async () => {
    const { human, marker } = await setup({ permissions: { mode: "ask" } }, () => undefined);
    human.send(`PRIVMSG #test :@${NICK} make the marker`);
    const req = await requestLine(human);
    expect(req.summary).toBe(`run "touch ${shQuote(marker)} && echo marker made"`);
    expect(existsSync(marker)).toBe(false);
    human.send(`PRIVMSG #test :@${NICK} approve ${req.id}`);
    await human.waitFor(privmsg(new RegExp(`^\\[APPROVAL ${req.id}\\] approved by alice$`)), LONG);
    await human.waitFor(privmsg(/^result: marker made$/), LONG);
    expect(existsSync(marker)).toBe(true);
  });

  it("ask: an operator answers deny with a reason on IRC: nothing runs, and the model's next request carries the reason", async () => {
    const { api, human, marker } = await setup({ permissions: { mode: "ask" } }, () => undefined);
    human.send(`PRIVMSG #test :@${NICK} make the marker`);
    const req = await requestLine(human);
    human.send(`PRIVMSG #test :@${NICK} deny ${req.id} not in this project`);
    await human.waitFor(privmsg(new RegExp(`^\\[APPROVAL ${req.id}\\] denied by alice: not in this project$`)), LONG);
    await human.waitFor(privmsg(/^result: .*not in this project/), LONG);
    expect(existsSync(marker)).toBe(false);
    const asking = api.requests.findIndex((r) => r.reply && "shell" in r.reply);
    expect(api.requests[asking + 1]?.model?.userTexts.some((t) => t.includes("not in this project"))).toBe(true);
  });

  it("bypass: the marker command runs and nothing is asked", async () => {
    const { human, marker, asked } = await setup({ permissions: { mode: "bypass" } }, () => ({ behavior: "deny", reason: "should not be asked", by: "alice" }));
    human.send(`PRIVMSG #test :@${NICK} make the marker`);
    await human.waitFor(privmsg(/^result: marker made$/), LONG);
    expect(existsSync(marker)).toBe(true);
    expect(asked).toEqual([]);
  });

  it("bypass with a deny pattern (issue #24): rm -rf of a folder is declined by the policy with the reason, the folder survives, nobody is asked on IRC", async () => {
    const { api, human, d, asked } = await setup({ permissions: { deny: ["Bash(rm -rf*)"] } }, () => undefined);
    const victim = join(d.home, "victim");
    mkdirSync(victim);
    writeFileSync(join(victim, "keep.txt"), "precious\n");
    const marker = markerScript(join(d.home, "marker"));
    api.setScript((req) => {
      const prompt = parseIrcPrompt(req.userTexts.findLast((t) => parseIrcPrompt(t)) ?? "");
      if (prompt?.text.includes("wipe") && !req.afterToolResult && !req.userTexts.some((t) => t.startsWith(DENIED))) return { shell: `rm -rf ${shQuote(victim)}` };
      return marker(req);
    });
    human.send(`PRIVMSG #test :@${NICK} wipe the victim`);
    await human.waitFor(privmsg(/^result: .*the permissions\.deny pattern Bash\(rm -rf\*\) forbids this/), LONG);
    expect(existsSync(join(victim, "keep.txt"))).toBe(true);
    expect(asked.filter((r) => r.kind === "shell").map((r) => r.command)).toEqual([`rm -rf ${shQuote(victim)}`]);
    expect(human.lines.some((l) => /\[APPROVAL /.test(l))).toBe(false);
  });
});
