/**
 * Shell patterns decided on what runs (issue #24) with the REAL Claude Code CLI. Before, with
 * `Bash(ls*)` (what `culture init` wrote), `ls <(touch P20)` ran unasked: the wildcard covered
 * the process substitution. Now an allow pattern covers only a plain command, so the operator is
 * asked and nothing runs while the request waits; and a deny pattern matches the parsed command,
 * so `rm -fr victim` is denied by `Bash(rm -rf*)` without asking anyone.
 */
import type { ModelReply, ModelRequest, RawIrcClient } from "@culture/core/testing";
import { parseRawLine } from "@culture/core/testing";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFailed } from "vitest";
import { human as connectHuman, ircSuite, privmsg, saidTo, startRealClaude, type RealClaude, type RealClaudeOptions } from "./real-claude-harness.js";

const NICK = "spark-claude";

/** The model: on "run it" it runs `command` with Bash, then reports the tool's result on IRC and ends. */
const runScript =
  (command: string) =>
  (req: ModelRequest): ModelReply => {
    if (!req.tools.includes("Bash")) return { text: "ok" };
    const last = req.toolResults.at(-1)?.output;
    if (req.afterToolResult && last !== undefined) {
      if (last.startsWith("sent to ")) return { text: "done" };
      return { tool: "mcp__culture__send", input: { target: "#test", message: `result: ${last.replace(/\s+/g, " ").slice(0, 300)}` } };
    }
    if (req.lastUserText.includes("run it")) return { shell: command };
    return { text: "ok" };
  };

describe("shell patterns with the real Claude Code CLI", () => {
  const { cleanups, ircPort } = ircSuite();
  // As root, Claude Code's default mode needs no IS_SANDBOX (only bypassPermissions does).
  const noSandbox = { IS_SANDBOX: undefined };

  async function agent(command: string, opts: Partial<RealClaudeOptions>): Promise<RealClaude> {
    const a = await startRealClaude({ ircPort: ircPort(), nick: NICK, script: runScript(command), env: noSandbox, ...opts });
    cleanups.push(() => a.stop());
    onTestFailed(() => console.error(`--- daemon log (last 40 lines)\n${a.lines.slice(-40).join("\n")}`));
    return a;
  }

  async function human(nick: string): Promise<RawIrcClient> {
    const c = await connectHuman(ircPort(), nick);
    cleanups.push(() => c.close());
    return c;
  }

  it("allow Bash(git status*), Bash(ls*): `ls <(touch P20)` is asked on IRC, P20 is not created while it waits nor after a deny", async () => {
    const olga = await human("olga");
    const a = await agent("ls <(touch P20)", { agent: { permissions: { mode: "ask", allow: ["Bash(git status*)", "Bash(ls*)"] } } });
    olga.send(`PRIVMSG #test :@${NICK} run it`);
    const line = parseRawLine(await olga.waitFor(privmsg(NICK, "#test", /^\[APPROVAL /), 60_000)).params[1] ?? "";
    const m = /^\[APPROVAL ([0-9a-f]+)\] wants to run "ls <\(touch P20\)" \(Bash\)\. Reply: /.exec(line);
    expect(m, line).not.toBeNull();
    expect(existsSync(join(a.directory, "P20"))).toBe(false);
    olga.send(`PRIVMSG #test :@${NICK} deny ${m![1]} no process substitution`);
    await olga.waitFor(privmsg(NICK, "#test", /^result: no process substitution$/), 60_000);
    expect(existsSync(join(a.directory, "P20"))).toBe(false);
  });

  it("deny Bash(rm -rf*): `rm -fr victim` is denied without asking, and victim survives", async () => {
    const olga = await human("olga");
    const a = await agent("rm -fr victim", { agent: { permissions: { mode: "ask", allow: ["Bash(ls*)"], deny: ["Bash(rm -rf*)"] } } });
    mkdirSync(join(a.directory, "victim"));
    writeFileSync(join(a.directory, "victim", "keep.txt"), "keep me\n");
    olga.send(`PRIVMSG #test :@${NICK} run it`);
    await olga.waitFor(privmsg(NICK, "#test", /^result: the permissions\.deny pattern Bash\(rm -rf\*\) forbids this$/), 60_000);
    expect(existsSync(join(a.directory, "victim", "keep.txt"))).toBe(true);
    expect(saidTo(olga.lines, NICK, "#test").filter((l) => l.startsWith("[APPROVAL"))).toEqual([]);
  });
});
