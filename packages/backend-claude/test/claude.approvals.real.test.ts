/**
 * Approvals (issue #20) with the REAL Claude Code CLI: with culture's `permissions` mode ask,
 * Claude Code runs in its `default` permission mode and asks culture (the SDK's `canUseTool`)
 * before a risky tool call; culture's answer decides whether the tool runs, and a denial's
 * reason reaches the model in the tool result. In (a)-(c) a `permissionRequest` tap on the
 * daemon's hooks answers; in (d)-(f) and (h) an operator answers on IRC; in (g) the policy's
 * patterns do. The scripted model asks for a Bash command that creates a marker file.
 */
import type { PermissionDecision, PermissionRequest, PromptOrigin } from "@culture/core";
import { eventually, parseRawLine, type ModelRequest, type ModelReply, type RawIrcClient } from "@culture/core/testing";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFailed } from "vitest";
import { human as connectHuman, ircSuite, privmsg, saidTo, startRealClaude, type RealClaude, type RealClaudeOptions } from "./real-claude-harness.js";

const NICK = "spark-claude";
const MARKER = "approved-marker";
const COMMAND = `touch ${MARKER}`;

/**
 * The model: on "make the marker" it runs {@link COMMAND} with Bash; after that tool's result it
 * reports the result on IRC with culture's own `mcp__culture__send` (never asked for), then ends.
 */
function markerScript(req: ModelRequest): ModelReply {
  if (!req.tools.includes("Bash")) return { text: "ok" };
  const last = req.toolResults.at(-1)?.output;
  if (req.afterToolResult && last !== undefined) {
    if (last.startsWith("sent to ")) return { text: "done" };
    return { tool: "mcp__culture__send", input: { target: "#test", message: `after the marker: ${last.replace(/\s+/g, " ").slice(0, 300)}` } };
  }
  if (req.lastUserText.includes("make the marker")) return { shell: COMMAND };
  return { text: "ok" };
}

/** Every request culture was asked, with the origin the daemon gave the tap. */
interface Tap {
  requests: Array<{ request: PermissionRequest; origin: PromptOrigin | null }>;
}

describe("approvals with the real Claude Code CLI", () => {
  const { cleanups, ircPort } = ircSuite();

  /** The agent, with a `permissionRequest` tap answering by `decide` (undefined: the policy answers). */
  async function agent(opts: Partial<RealClaudeOptions>, decide: (request: PermissionRequest) => PermissionDecision | undefined | Promise<PermissionDecision | undefined>): Promise<RealClaude & Tap> {
    const a = await startRealClaude({ ircPort: ircPort(), nick: NICK, script: markerScript, ...opts });
    cleanups.push(() => a.stop());
    const tap: Tap = { requests: [] };
    a.d.daemon.hooks.permissionRequest.tapPromise("approvals-test", async (request, origin) => {
      tap.requests.push({ request, origin });
      return decide(request);
    });
    onTestFailed(() => {
      console.error(`--- daemon log (last 40 lines)\n${a.lines.slice(-40).join("\n")}`);
      console.error(`--- asked\n${JSON.stringify(tap.requests.map((r) => ({ ...r.request, signal: r.request.signal?.aborted })))}`);
    });
    return Object.assign(a, tap);
  }

  async function human(nick: string): Promise<RawIrcClient> {
    const c = await connectHuman(ircPort(), nick);
    cleanups.push(() => c.close());
    return c;
  }

  const ask = { mode: "ask" };
  // As root, Claude Code's default mode needs no IS_SANDBOX (only bypassPermissions does): leave it out.
  const noSandbox = { IS_SANDBOX: undefined };

  it("(a) an allowed request: the Bash command runs, the reply reaches IRC; permission_mode is overridden, with a warning", async () => {
    const alice = await human("alice");
    const a = await agent({ agent: { permissions: ask, permission_mode: "bypassPermissions" }, env: noSandbox }, () => ({ behavior: "allow", scope: "once", by: "test" }));
    alice.send(`PRIVMSG #test :@${NICK} make the marker`);
    await alice.waitFor(privmsg(NICK, "#test", /^after the marker: \(Bash completed with no output\)$/), 60_000);
    expect(existsSync(join(a.directory, MARKER))).toBe(true);
    // Asked exactly once, for the Bash call (culture's own mcp__culture__send is never asked for).
    expect(a.requests).toHaveLength(1);
    const [{ request, origin }] = a.requests as [Tap["requests"][number]];
    expect(request).toMatchObject({ tool: "Bash", kind: "shell", command: COMMAND, summary: `run: ${COMMAND}`, input: { command: COMMAND } });
    expect(request.signal).toBeInstanceOf(AbortSignal);
    expect(origin).toMatchObject({ kind: "mention", channel: "#test", sender: "alice" });
    // culture's permissions win over permission_mode, and the log says so.
    expect(a.lines.some((l) => l.includes("WARN") && l.includes("permission_mode bypassPermissions is ignored: the agent's permissions (mode ask) decide"))).toBe(true);
    expect(a.lines.some((l) => l.includes("spawned Claude Code") && l.includes("--permission-mode=default") && !l.includes("skip-permissions"))).toBe(true);
    // Nobody can answer Claude Code's AskUserQuestion through culture: it is not offered (the agent asks on IRC).
    const tools = a.api.turns().find((t) => t.tools.includes("Bash"))!.tools;
    expect(tools).not.toContain("AskUserQuestion");
  });

  it("(b) a denied request: the command does not run, and the model's next request carries the reason in the tool result", async () => {
    const bob = await human("bob");
    const reason = "no files in the project today, ask olga first";
    const a = await agent({ agent: { permissions: ask }, env: noSandbox }, () => ({ behavior: "deny", reason, by: "test" }));
    bob.send(`PRIVMSG #test :@${NICK} make the marker`);
    await bob.waitFor(privmsg(NICK, "#test", /^after the marker: /), 60_000);
    expect(existsSync(join(a.directory, MARKER))).toBe(false);
    expect(a.requests.map((r) => r.request.tool)).toEqual(["Bash"]);
    const next = a.api.turns().find((t) => t.afterToolResult)!;
    // Claude Code gives the model the denial's message as the tool result, word for word.
    expect(next.toolResults.at(-1)!.output).toBe(reason);
    await eventually(() => a.d.daemon.status().activity === "idle", "the turn to end", 30_000);
  });

  it("(c) permissions mode bypass (the default): the command runs and culture is never asked", async () => {
    const carl = await human("carl");
    const a = await agent({}, () => ({ behavior: "deny", reason: "must not be asked", by: "test" }));
    carl.send(`PRIVMSG #test :@${NICK} make the marker`);
    await carl.waitFor(privmsg(NICK, "#test", /^after the marker: \(Bash completed with no output\)$/), 60_000);
    expect(existsSync(join(a.directory, MARKER))).toBe(true);
    expect(a.requests).toEqual([]);
    expect(a.lines.some((l) => l.includes("spawned Claude Code") && l.includes("--permission-mode=bypassPermissions"))).toBe(true);
  });

  it("(g) culture's policy sees even what Claude Code allows unasked: a deny pattern stops a read inside the project, allow patterns pass reads and ls, nobody is asked", async () => {
    const uma = await human("uma");
    let directory = "";
    const calls: ModelReply[] = [
      { tool: "Read", input: { file_path: "DIR/secret.txt" } },
      { tool: "Read", input: { file_path: "DIR/notes.txt" } },
      { shell: "ls" },
    ];
    const a = await agent(
      {
        agent: { permissions: { mode: "ask", allow: ["Read", "Bash(ls*)"], deny: ["Read(secret.txt)"] } },
        env: noSandbox,
        script: (req) => {
          if (!req.tools.includes("Bash") || !(req.afterToolResult || req.lastUserText.includes("look around"))) return { text: "ok" };
          const next = calls[req.toolResults.length];
          if (next) return JSON.parse(JSON.stringify(next).replace("DIR", directory)) as ModelReply;
          if (req.toolResults.length === calls.length) return { tool: "mcp__culture__send", input: { target: "#test", message: "looked around" } };
          return { text: "done" };
        },
      },
      () => undefined,
    );
    directory = a.directory;
    writeFileSync(join(directory, "secret.txt"), "the launch codes\n");
    writeFileSync(join(directory, "notes.txt"), "shopping list\n");
    uma.send(`PRIVMSG #test :@${NICK} look around`);
    await uma.waitFor(privmsg(NICK, "#test", /^looked around$/), 60_000);
    const outputs = a.api.turns().at(-1)!.toolResults.map((r) => r.output);
    expect(outputs[0]).toBe("the permissions.deny pattern Read(secret.txt) forbids this");
    expect(outputs[1]).toContain("shopping list");
    expect(outputs[2]).toContain("notes.txt");
    // Claude Code would have run all three unasked; each went through culture's policy, which answered without an operator.
    expect(a.requests.map((r) => r.request.summary)).toEqual([`read ${directory}/secret.txt`, `read ${directory}/notes.txt`, "run: ls"]);
    expect(saidTo(uma.lines, NICK, "#test").filter((l) => l.startsWith("[APPROVAL"))).toEqual([]);
  });

  /** Waits for the agent's request line in #test; returns its id and summary. */
  async function requestLine(c: RawIrcClient): Promise<{ id: string; summary: string }> {
    const line = await c.waitFor(privmsg(NICK, "#test", /^\[APPROVAL /), 60_000);
    const m = new RegExp(`^\\[APPROVAL ([0-9a-f]+)\\] wants to (.*) \\(Bash\\)\\. Reply: @${NICK} approve \\1 \\| deny \\1 \\[reason\\] \\| always \\1$`).exec(parseRawLine(line).params[1] ?? "");
    expect(m, `a request line: ${line}`).not.toBeNull();
    return { id: m![1]!, summary: m![2]! };
  }

  it("(d) an operator answers approve on IRC: the command runs and the agent replies", async () => {
    const olga = await human("olga");
    const a = await agent({ agent: { permissions: ask }, env: noSandbox }, () => undefined);
    olga.send(`PRIVMSG #test :@${NICK} make the marker`);
    const req = await requestLine(olga);
    expect(req.summary).toBe(`run "${COMMAND}"`);
    expect(existsSync(join(a.directory, MARKER))).toBe(false);
    olga.send(`PRIVMSG #test :@${NICK} approve ${req.id}`);
    await olga.waitFor(privmsg(NICK, "#test", new RegExp(`^\\[APPROVAL ${req.id}\\] approved by olga$`)), 30_000);
    await olga.waitFor(privmsg(NICK, "#test", /^after the marker: \(Bash completed with no output\)$/), 60_000);
    expect(existsSync(join(a.directory, MARKER))).toBe(true);
  });

  it("(e) an operator answers deny with a reason on IRC: nothing runs, and the model sees the reason", async () => {
    const olga = await human("olga");
    const a = await agent({ agent: { permissions: ask }, env: noSandbox }, () => undefined);
    olga.send(`PRIVMSG #test :@${NICK} make the marker`);
    const req = await requestLine(olga);
    olga.send(`PRIVMSG #test :@${NICK} deny ${req.id} not in this project`);
    await olga.waitFor(privmsg(NICK, "#test", new RegExp(`^\\[APPROVAL ${req.id}\\] denied by olga: not in this project$`)), 30_000);
    await olga.waitFor(privmsg(NICK, "#test", /^after the marker: not in this project$/), 60_000);
    expect(existsSync(join(a.directory, MARKER))).toBe(false);
    expect(a.api.turns().find((t) => t.afterToolResult)!.toolResults.at(-1)!.output).toBe("not in this project");
  });

  it("(f) an operator's abort while a request waits withdraws it: the signal is aborted, the request line says so, nothing runs", async () => {
    const olga = await human("olga");
    const a = await agent({ agent: { permissions: ask }, env: noSandbox }, () => undefined);
    olga.send(`PRIVMSG #test :@${NICK} make the marker`);
    const req = await requestLine(olga);
    const [{ request }] = a.requests as [Tap["requests"][number]];
    expect(request.signal!.aborted).toBe(false);
    olga.send(`PRIVMSG #test :@${NICK} abort`);
    await olga.waitFor(privmsg(NICK, "#test", new RegExp(`^\\[APPROVAL ${req.id}\\] withdrawn by the agent$`)), 30_000);
    expect(request.signal!.aborted).toBe(true);
    await eventually(() => a.d.daemon.status().activity === "idle", "the interrupted turn to end", 30_000);
    expect(existsSync(join(a.directory, MARKER))).toBe(false);
    expect(a.d.daemon.status().running).toBe(true);
  });

  it("(h) Claude Code killed while a request waits: the request is withdrawn, nothing runs, and the restarted agent asks again", async () => {
    const olga = await human("olga");
    const a = await agent({ agent: { permissions: ask }, env: noSandbox, config: { restart: { delay_seconds: 0.2, max_crashes: 5, window_seconds: 300 } } }, () => undefined);
    olga.send(`PRIVMSG #test :@${NICK} make the marker`);
    const req = await requestLine(olga);
    const [{ request }] = a.requests as [Tap["requests"][number]];
    const [pid] = a.claudePids();
    process.kill(pid!, "SIGKILL");
    await olga.waitFor(privmsg(NICK, "#test", new RegExp(`^\\[APPROVAL ${req.id}\\] withdrawn by the agent$`)), 30_000);
    expect(request.signal!.aborted).toBe(true);
    expect(existsSync(join(a.directory, MARKER))).toBe(false);
    await eventually(() => a.d.daemon.status().running && a.claudePids().length === 1 && a.claudePids()[0] !== pid, "the restarted Claude Code", 30_000);
    // The daemon's resume prompt names the task; the model tries the command again, and asks again.
    const again = await requestLine(olga);
    expect(again.id).not.toBe(req.id);
    expect(a.requests).toHaveLength(2);
  });

  it("(i) deny applies in bypass mode, the default (issue #24): `rm -rf` of a folder is refused with the reason, the folder survives, nobody is asked", async () => {
    const vera = await human("vera");
    const a = await agent(
      {
        agent: { permissions: { deny: ["Bash(rm -rf*)"] } },
        script: (req) => {
          if (!req.tools.includes("Bash")) return { text: "ok" };
          const last = req.toolResults.at(-1)?.output;
          if (req.afterToolResult && last !== undefined) {
            if (last.startsWith("sent to ")) return { text: "done" };
            return { tool: "mcp__culture__send", input: { target: "#test", message: `after rm: ${last.replace(/\s+/g, " ").slice(0, 300)}` } };
          }
          if (req.lastUserText.includes("clean up")) return { shell: "rm -rf victim" };
          return { text: "ok" };
        },
      },
      () => undefined,
    );
    mkdirSync(join(a.directory, "victim"));
    writeFileSync(join(a.directory, "victim", "keep.txt"), "precious\n");
    vera.send(`PRIVMSG #test :@${NICK} clean up`);
    await vera.waitFor(privmsg(NICK, "#test", /^after rm: /), 60_000);
    expect(existsSync(join(a.directory, "victim", "keep.txt"))).toBe(true);
    // The model read the policy's reason as the tool's result.
    const next = a.api.turns().find((t) => t.afterToolResult)!;
    expect(next.toolResults.at(-1)!.output).toContain("the permissions.deny pattern Bash(rm -rf*) forbids this");
    // The daemon saw the Bash call (not culture's own send tool) and decided by policy; nobody was asked on IRC.
    expect(a.requests.map((r) => `${r.request.kind}:${r.request.command ?? r.request.tool}`)).toEqual(["shell:rm -rf victim"]);
    expect(vera.lines.some((l) => /\[APPROVAL /.test(l))).toBe(false);
    expect(a.lines.some((l) => l.includes("spawned Claude Code") && l.includes("--permission-mode=bypassPermissions"))).toBe(true);
  });
});
