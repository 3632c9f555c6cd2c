/**
 * Context care and fatal errors with the real Claude Code CLI, whose scripted model API
 * reports how much the model read (`inputTokens`): culture reads the context window's fill
 * from Claude Code's messages and its result's `modelUsage[].contextWindow`, whispers a
 * warning once past `context.warn_at` (the model sees it in its next request), compacts past
 * `context.compact_at` after the turn, and shows the share in status. A model API answering
 * 400 "prompt is too long" pauses the agent (status, #alerts, the asker told, later requests
 * kept) instead of failing every request in turn, until an operator resumes it.
 */
import { ircReplyScript, type ModelReply, type RawIrcClient } from "@culture/core/testing";
import { describe, expect, it, onTestFailed, vi } from "vitest";
import { human as connectHuman, ircSuite, privmsg, startRealClaude, type RealClaude } from "./real-claude-harness.js";

const NICK = "spark-claude";

describe("context care and fatal errors, with the real Claude Code CLI", () => {
  const { cleanups, ircPort } = ircSuite();

  async function human(nick: string, channels?: string[]): Promise<RawIrcClient> {
    const c = await connectHuman(ircPort(), nick, channels);
    cleanups.push(() => c.close());
    return c;
  }

  function context(a: RealClaude): { used_tokens: number; window_tokens: number | null; share: number | null; warnings: number; compactions: number } | undefined {
    return a.d.daemon.status().context as never;
  }

  it("warns the agent once past warn_at, compacts past compact_at, and shows the share in status", async () => {
    const alice = await human("alice", ["#test"]);
    // What the model says it read: small at first, then what the test sets.
    let reported: number | undefined;
    const script = ircReplyScript();
    const a = await startRealClaude({
      ircPort: ircPort(),
      nick: NICK,
      script: (req) => {
        const reply = script(req) as ModelReply;
        return reported === undefined || "fail" in reply || "hang" in reply ? reply : { ...reply, inputTokens: reported };
      },
      agent: { context: { warn_at: 0.7, compact_at: 0.8 } },
      // Claude Code's own auto-compaction would otherwise race culture's at 85 %.
      env: { DISABLE_AUTO_COMPACT: "1" },
    });
    cleanups.push(() => a.stop());
    onTestFailed(() => console.error(`--- daemon log (last 60 lines)\n${a.lines.slice(-60).join("\n")}`));

    // 1: a small context; the window size comes from Claude Code's result.
    alice.send(`PRIVMSG #test :@${NICK} one`);
    await alice.waitFor(privmsg(NICK, "#test", /^echo: @spark-claude one /), 90_000);
    await vi.waitFor(() => expect(context(a)).toBeDefined(), { timeout: 30_000, interval: 100 });
    const window = context(a)!.window_tokens!;
    expect(window).toBeGreaterThan(10_000);
    expect(context(a)!.share!).toBeLessThan(0.7);
    expect(context(a)!.warnings).toBe(0);

    // 2: 75 % full: one warning, waiting for the agent's next tool boundary.
    reported = Math.round(window * 0.75);
    alice.send(`PRIVMSG #test :@${NICK} two`);
    await alice.waitFor(privmsg(NICK, "#test", /^echo: @spark-claude two /), 90_000);
    await vi.waitFor(() => expect(context(a)!.warnings).toBe(1), { timeout: 30_000, interval: 100 });
    expect(context(a)!.share!).toBeGreaterThanOrEqual(0.75);
    expect(context(a)!.share!).toBeLessThan(0.8);
    const mark = a.api.requests.length;

    // 3: the model sees the warning after its next tool call; at 85 % culture compacts after the turn.
    reported = Math.round(window * 0.85);
    alice.send(`PRIVMSG #test :@${NICK} three`);
    await alice.waitFor(privmsg(NICK, "#test", /^echo: @spark-claude three /), 90_000);
    await vi.waitFor(() => expect(context(a)!.compactions).toBe(1), { timeout: 30_000, interval: 100 });
    await vi.waitFor(() => expect(a.lines.some((l) => l.includes("/compact done"))).toBe(true), { timeout: 90_000, interval: 200 });
    const warned = a.api.requests.slice(mark).filter((r) => /Your context window is 7[5-9]% full \(\d+ of \d+ tokens\)/.test(JSON.stringify(r.body)));
    expect(warned.length).toBeGreaterThan(0);
    // Once per crossing: 85 % did not warn again.
    expect(context(a)!.warnings).toBe(1);
    expect(a.api.requests.slice(mark).filter((r) => /Your context window is 8\d% full/.test(JSON.stringify(r.body)))).toHaveLength(0);
  }, 300_000);

  it("pauses on 400 'prompt is too long': the asker, #alerts and status say why; kept requests run after resume", async () => {
    const alice = await human("alice", ["#test", "#alerts"]);
    const olga = await human("olga", ["#test"]);
    const normal = ircReplyScript();
    let full = true;
    const a = await startRealClaude({
      ircPort: ircPort(),
      nick: NICK,
      script: (req) => (full && req.tools.length > 0 ? { fail: 400, message: "prompt is too long: 215000 tokens > 200000 maximum" } : normal(req)),
    });
    cleanups.push(() => a.stop());
    onTestFailed(() => console.error(`--- daemon log (last 60 lines)\n${a.lines.slice(-60).join("\n")}`));

    alice.send(`PRIVMSG #test :@${NICK} big job`);
    await alice.waitFor(
      privmsg(NICK, "#test", /^alice: sorry, "@spark-claude big job" failed: .*its context is full \(Prompt is too long.*; an operator must fix that \(see #alerts\) and then say "@spark-claude resume"\.$/),
      90_000,
    );
    await alice.waitFor(privmsg(NICK, "#alerts", /^\[ERROR\] spark-claude paused \(the prompt no longer fits the model's context window\): .*Prompt is too long/), 10_000);
    const status = a.d.daemon.status();
    expect(status.fatal).toMatchObject({ reason: "prompt_too_long" });
    expect(status.description).toMatch(/^paused: the prompt no longer fits the model's context window \(.*its context is full \(Prompt is too long.*\); resume once fixed$/);
    expect(status.circuit_open).toBe(true);
    // Paused, not crashed: Claude Code (and its session) is still there for after the fix.
    expect(status.running).toBe(true);
    expect(a.lines.filter((l) => /restarting the agent/.test(l))).toHaveLength(0);

    // A request while paused is kept, and its asker hears why; the model is not asked.
    const asked = a.api.requests.length;
    alice.send(`PRIVMSG #test :@${NICK} second`);
    await alice.waitFor(privmsg(NICK, "#test", /^alice: "@spark-claude second" is queued until I can run: I cannot run right now \(the prompt no longer fits the model's context window\); it runs once an operator fixes that and resumes me\.$/), 30_000);
    expect(a.api.requests.slice(asked).filter((r) => r.model && r.model.tools.length > 0)).toHaveLength(0);

    // Fixed; an operator resumes: the kept request runs.
    full = false;
    olga.send(`PRIVMSG #test :@${NICK} resume`);
    await alice.waitFor(privmsg(NICK, "#test", /^echo: @spark-claude second /), 90_000);
    expect(a.d.daemon.status().fatal).toBeNull();
    // One alert for the fault, not one per request.
    expect(alice.lines.filter(privmsg(NICK, "#alerts", /\[ERROR\]/))).toHaveLength(1);
  }, 300_000);
});
