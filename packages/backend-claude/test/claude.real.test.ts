/**
 * The Claude backend proven against the REAL Claude Code CLI (the version pinned in
 * scripts/agent-clis.json): culture's real daemon on the embedded IRC server runs it through the
 * Agent SDK, and the CLI talks to a scripted Anthropic Messages API on 127.0.0.1. Humans are raw
 * IRC clients; the agent speaks by running `culture channel send` with its own Bash tool.
 */
import { startServer, type IrcServer } from "@culture/server";
import { eventually, ircReplyScript, parseRawLine, type RawIrcClient } from "@culture/core/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { human as connectHuman, privmsg, saidTo, startRealClaude, type RealClaude, type RealClaudeOptions } from "./real-claude-harness.js";

const NICK = "spark-claude";

describe("the claude backend with the real Claude Code CLI", () => {
  let irc: IrcServer;
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    irc = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
  });
  afterAll(async () => {
    await irc?.close();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  async function agent(opts: Partial<RealClaudeOptions> = {}): Promise<RealClaude> {
    const a = await startRealClaude({ ircPort: irc.port, nick: NICK, script: ircReplyScript(), ...opts });
    cleanups.push(() => a.stop());
    // A failure shows what the daemon and the model saw.
    onTestFailed(() => {
      console.error(`--- daemon log (last 60 lines)\n${a.lines.slice(-60).join("\n")}`);
      console.error(`--- model API requests\n${a.api.requests.map((r) => `${r.method} ${r.path} ${r.status ?? "open"} tools=${r.model?.tools.length ?? "-"} last=${JSON.stringify(r.model?.lastUserText.slice(0, 120) ?? "")} msgs=${JSON.stringify((r.body as { messages?: unknown[] } | undefined)?.messages?.slice(-2)).slice(0, 1500)} reply=${JSON.stringify(r.reply ?? null)}`).join("\n")}`);
    });
    return a;
  }

  async function human(nick: string, channels?: string[]): Promise<RawIrcClient> {
    const c = await connectHuman(irc.port, nick, channels);
    cleanups.push(() => c.close());
    return c;
  }

  it("answers a mention by running culture channel send with its own Bash tool, the moment it has joined", async () => {
    const alice = await human("alice");
    const a = await agent();
    // Spoken to as soon as the daemon is in the channel, not after a "ready".
    await alice.waitFor((line) => {
      const p = parseRawLine(line);
      return p.command === "JOIN" && p.nick === NICK && p.params[0] === "#test";
    });
    alice.send(`PRIVMSG #test :@${NICK} hello there`);
    await alice.waitFor(privmsg(NICK, "#test", /^echo: @spark-claude hello there \(prompt 1\)$/), 60_000);
    await eventually(() => a.d.daemon.status().activity === "idle", "the turn to end", 30_000);
    // The model called Claude Code's Bash tool, and its result went back to the model.
    const call = a.api.requests.find((r) => r.reply && "shell" in r.reply);
    expect(call?.reply).toMatchObject({ shell: `culture channel send '#test' 'echo: @spark-claude hello there (prompt 1)'` });
    const after = a.api.turns().find((t) => t.afterToolResult);
    // culture channel send prints nothing when the line was accepted.
    expect(after?.toolResults.at(-1)?.output).toBe("(Bash completed with no output)");
    // relay: auto — the agent spoke to #test itself, so its final "done" is not relayed.
    expect(saidTo(alice.lines, NICK, "#test")).toEqual(["echo: @spark-claude hello there (prompt 1)"]);
  });
});
