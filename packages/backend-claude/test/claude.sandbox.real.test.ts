/**
 * `sandbox: bwrap` with the REAL Claude Code CLI (network on) against the scripted Anthropic
 * API: Claude Code runs inside a bubblewrap box, its config folder bound in. On a mention the
 * scripted model runs `cat ~/.ssh/id_rsa` with Claude Code's Bash tool (the key is in the
 * owner's HOME outside; inside, HOME is an empty tmpfs), then speaks through both IRC tools:
 * `culture channel send` from the shell and the `culture` MCP server's send with the cat's result.
 */
import { eventually, parseIrcPrompt, type ModelScript } from "@culture/core/testing";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFailed } from "vitest";
import { human as connectHuman, ircSuite, privmsg, startRealClaude } from "./real-claude-harness.js";

const NICK = "spark-claude";
const KEY = "-----BEGIN OPENSSH PRIVATE KEY----- claude-sandbox-test";

/** cat the key, say hello through the shell, report the cat's output through MCP, done. */
const script: ModelScript = (req) => {
  if (!req.tools.includes("Bash")) return { text: "ok" };
  const prompt = parseIrcPrompt(req.userTexts.filter((t) => parseIrcPrompt(t)).at(-1) ?? "");
  if (!prompt) return { text: "ok" };
  const done = req.toolResults.length;
  if (done === 0) return { shell: "cat ~/.ssh/id_rsa" };
  if (done === 1) return { shell: `culture channel send '${prompt.target}' 'hello from the box'` };
  if (done === 2) return { tool: "mcp__culture__send", input: { target: prompt.target, message: `cat said: ${req.toolResults[0]!.output.replace(/\s+/g, " ").slice(0, 200)}` } };
  return { text: "done" };
};

describe("the real Claude Code CLI in sandbox: bwrap", () => {
  const { cleanups, ircPort } = ircSuite();

  it("answers a mention through the IRC tools from inside the box; the SSH key cannot be read", async () => {
    const alice = await connectHuman(ircPort(), "alice");
    cleanups.push(async () => alice.close());
    const a = await startRealClaude({ ircPort: ircPort(), nick: NICK, script, agent: { sandbox: "bwrap" } });
    cleanups.push(() => a.stop());
    onTestFailed(() => console.error(`--- daemon log (last 60 lines)\n${a.lines.slice(-60).join("\n")}`));
    mkdirSync(join(a.home, ".ssh"), { recursive: true, mode: 0o700 });
    writeFileSync(join(a.home, ".ssh", "id_rsa"), `${KEY}\n`, { mode: 0o600 });

    alice.send(`PRIVMSG #test :@${NICK} show me the key`);
    await alice.waitFor(privmsg(NICK, "#test", /^hello from the box$/), 90_000);
    const report = await alice.waitFor(privmsg(NICK, "#test", /^cat said: /), 60_000);
    expect(report).toMatch(/No such file or directory/);
    await eventually(() => a.d.daemon.status().activity === "idle", "the turn to end", 30_000);
    expect(a.d.daemon.status().sandbox).toEqual({ kind: "bwrap", network: "on" });
    const results = a.api.turns().flatMap((t) => t.toolResults.map((r) => r.output));
    expect(results[0]).toMatch(/id_rsa: No such file or directory/);
    expect(results.join("\n")).not.toContain(KEY);
    expect(alice.lines.join("\n")).not.toContain(KEY);
    // Claude Code really ran inside bwrap: the daemon spawned bwrap with Claude Code after `--`.
    expect(a.lines.join("\n")).toMatch(/spawned Claude Code.*bwrap .*--unshare-all/);
  });
});
