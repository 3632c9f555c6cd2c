/**
 * A failed turn reaches the person who asked, with the real Claude Code CLI: the scripted
 * model API answers every request 529 (overloaded), Claude Code's own retries and culture's
 * run out, and the asker reads one line in the channel saying so (besides #alerts). While they
 * retry, the asker hears that the turn is delayed (retryNoticeMs 0: at the first retry).
 */
import { ircReplyScript, type RawIrcClient } from "@culture/core/testing";
import { describe, expect, it, onTestFailed } from "vitest";
import { human as connectHuman, ircSuite, privmsg, saidTo, startRealClaude } from "./real-claude-harness.js";

const NICK = "spark-claude";

describe("failures reach the asker, with the real Claude Code CLI", () => {
  const { cleanups, ircPort } = ircSuite();

  async function human(nick: string, channels?: string[]): Promise<RawIrcClient> {
    const c = await connectHuman(ircPort(), nick, channels);
    cleanups.push(() => c.close());
    return c;
  }

  it("answers the channel in one line when the API stays overloaded (529) after every retry", async () => {
    const alice = await human("alice", ["#test", "#alerts"]);
    const a = await startRealClaude({
      ircPort: ircPort(),
      nick: NICK,
      // Every model request (those with tools: the agent's turns) is refused as overloaded.
      script: ircReplyScript({ before: (req) => (req.tools.length > 0 ? { fail: 529 } : undefined) }),
      // One retry by Claude Code itself, none by culture: the test does not wait minutes.
      agent: { api_retries: 0, receipts: "notice" },
      env: { CLAUDE_CODE_MAX_RETRIES: "1" },
      timings: { retryNoticeMs: 0 },
    });
    cleanups.push(() => a.stop());
    onTestFailed(() => console.error(`--- daemon log (last 40 lines)\n${a.lines.slice(-40).join("\n")}`));
    const mark = alice.lines.length;
    alice.send(`PRIVMSG #test :@${NICK} are you there?`);
    await alice.waitFor(/NOTICE alice :\[#test\] working on it: "@spark-claude are you there\?"$/, 30_000);
    // Claude Code's own retry (system/api_retry) reaches the asker once, as a delay, not a failure.
    await alice.waitFor(/NOTICE alice :\[#test\] delayed: the model API is overloaded \(529 .*\).*; I keep trying: "@spark-claude are you there\?"$/, 60_000);
    const failure = await alice.waitFor(privmsg(NICK, "#test", /^alice: sorry, "@spark-claude are you there\?" failed: .*; I am ready for the next request, ask again when you like\.$/), 120_000);
    expect(failure).toMatch(/overloaded|529/i);
    await alice.waitFor(privmsg(NICK, "#alerts", /^\[ERROR\] spark-claude: a turn failed \(asked by alice in #test\): /), 10_000);
    // The model was asked (and refused) more than once: the retries ran before the failure.
    expect(a.api.requests.filter((r) => r.model && r.status === 529).length).toBeGreaterThan(1);
    // One failure line in the channel, not one per retry.
    expect(saidTo(alice.since(mark), NICK, "#test").filter((l) => l.startsWith("alice: sorry,"))).toHaveLength(1);
    expect(alice.since(mark).filter((l) => / delayed: /.test(l))).toHaveLength(1);
  }, 180_000);
});
