/**
 * A budget cap stops the next turn of the REAL Claude Code CLI (scripted Anthropic API): the
 * first turn is metered from what Claude Code reports (tokens and its own USD cost) and takes
 * the agent past its token cap; the next mention waits with an over-budget receipt and never
 * reaches the model, until an operator raises the cap.
 */
import { eventually, ircReplyScript, meteredTurns } from "@culture/core/testing";
import { describe, expect, it, onTestFailed } from "vitest";
import { human as connectHuman, ircSuite, privmsg, startRealClaude } from "./real-claude-harness.js";

const NICK = "spark-claude";

describe("budgets with the real Claude Code CLI", () => {
  const { cleanups, ircPort } = ircSuite();

  it("a cap reached by a metered turn stops the next one; an operator's raise lets it run", async () => {
    const a = await startRealClaude({ ircPort: ircPort(), nick: NICK, script: ircReplyScript(), agent: { budget: { tokens: 1_000, per: "day" } }, config: { budget: { time_zone: "UTC" } } });
    cleanups.push(() => a.stop());
    onTestFailed(() => console.error(`--- daemon log (last 60 lines)\n${a.lines.slice(-60).join("\n")}`));
    const alice = await connectHuman(ircPort(), "alice");
    cleanups.push(() => alice.close());
    const olga = await connectHuman(ircPort(), "olga");
    cleanups.push(() => olga.close());

    alice.send(`PRIVMSG #test :@${NICK} hello there`);
    await alice.waitFor(privmsg(NICK, "#test", /^echo: @spark-claude hello there \(prompt 1\)$/), 60_000);
    const [turn] = (await eventually(() => (meteredTurns(a.d).length === 1 ? meteredTurns(a.d) : undefined), "the first turn's usage record"))!;
    const used = turn!.tokens.input + turn!.tokens.output;
    expect(used).toBeGreaterThan(1_000); // what Claude Code reported for the turn (checked against the API in claude.real.test.ts)
    await alice.waitFor(new RegExp(`PRIVMSG #alerts :\\[OVER BUDGET\\] ${NICK}: ${NICK}'s budget is used up \\(${used.toLocaleString("en-US")} of 1,000 tokens per day\\)`), 30_000);
    await eventually(() => a.d.daemon.currentState === "over_budget", "the over_budget state", 30_000);

    // The next mention waits: the asker is told why, the model is not asked.
    const requests = a.api.requests.length;
    alice.send(`PRIVMSG #test :@${NICK} and again`);
    await alice.waitFor(/NOTICE alice :\[#test\] queued; I am over budget \(spark-claude's budget is used up/, 30_000);
    expect(a.d.daemon.status()).toMatchObject({ turn_count: 1, queued_prompts: 1, daemon_state: "over_budget" });
    expect(a.api.requests.length).toBe(requests);

    // An operator raises the cap: the waiting mention runs on the same Claude Code process.
    olga.send(`PRIVMSG #test :@${NICK} budget raise 1m tokens`);
    await olga.waitFor(/PRIVMSG #test :olga: raised agent spark-claude day by 1,000,000 tokens for this period \(by olga\)$/, 30_000);
    await alice.waitFor(privmsg(NICK, "#test", /^echo: @spark-claude and again \(prompt 2\)$/), 60_000);
    expect(a.api.requests.length).toBeGreaterThan(requests);
  }, 180_000);
});
