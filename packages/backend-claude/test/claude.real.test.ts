/**
 * The Claude backend proven against the REAL Claude Code CLI (the version pinned in
 * scripts/agent-clis.json): culture's real daemon on the embedded IRC server runs it through the
 * Agent SDK, and the CLI talks to a scripted Anthropic Messages API on 127.0.0.1. Humans are raw
 * IRC clients; the agent speaks by running `culture channel send` with its own Bash tool.
 */
import { isCultureError } from "@culture/core";
import { agentCli, eventually, ircReplyScript, meteredTurns, parseRawLine, type RawIrcClient } from "@culture/core/testing";
import { tmpdir } from "node:os";
import { claudeDoctor } from "../src/claude-doctor.js";
import { describe, expect, it, onTestFailed } from "vitest";
import { human as connectHuman, ircSuite, privmsg, saidTo, startRealClaude, type RealClaude, type RealClaudeOptions } from "./real-claude-harness.js";

const NICK = "spark-claude";

describe("the claude backend with the real Claude Code CLI", () => {
  const { cleanups, ircPort } = ircSuite();

  async function agent(opts: Partial<RealClaudeOptions> = {}): Promise<RealClaude> {
    const a = await startRealClaude({ ircPort: ircPort(), nick: NICK, script: ircReplyScript(), ...opts });
    cleanups.push(() => a.stop());
    // A failure shows what the daemon and the model saw.
    onTestFailed(() => {
      console.error(`--- daemon log (last 60 lines)\n${a.lines.slice(-60).join("\n")}`);
      console.error(`--- model API requests\n${a.api.requests.map((r) => `${r.method} ${r.path} ${r.status ?? "open"} tools=${r.model?.tools.length ?? "-"} last=${JSON.stringify(r.model?.lastUserText.slice(0, 120) ?? "")} msgs=${JSON.stringify((r.body as { messages?: unknown[] } | undefined)?.messages?.slice(-2)).slice(0, 1500)} reply=${JSON.stringify(r.reply ?? null)}`).join("\n")}`);
    });
    return a;
  }

  async function human(nick: string, channels?: string[]): Promise<RawIrcClient> {
    const c = await connectHuman(ircPort(), nick, channels);
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

  it("keeps the conversation across mentions in one live Claude Code process", async () => {
    const bob = await human("bob");
    const a = await agent();
    const pids = a.claudePids();
    expect(pids).toHaveLength(1);
    for (const n of [1, 2, 3]) {
      bob.send(`PRIVMSG #test :@${NICK} number ${n}`);
      // (prompt N) counts the IRC prompts the model sees in its history: it saw every earlier one.
      await bob.waitFor(privmsg(NICK, "#test", new RegExp(`^echo: @spark-claude number ${n} \\(prompt ${n}\\)$`)), 30_000);
    }
    await eventually(() => a.d.daemon.status().activity === "idle", "the last turn to end", 30_000);
    expect(a.claudePids()).toEqual(pids);
    const last = a.api.turns().filter((t) => t.lastUserText.startsWith("[IRC")).at(-1)!;
    expect(last.userTexts.filter((t) => t.startsWith("[IRC"))).toEqual([1, 2, 3].map((n) => `[IRC @mention in #test] <bob> @${NICK} number ${n}`));
    expect(a.d.daemon.status()).toMatchObject({ running: true, turn_count: 3 });
    // Metering: three turns of one process (whose result restates running totals) add up to
    // exactly the tokens the API reported, cache reads and writes included, priced by Claude Code.
    const turns = (await eventually(() => (meteredTurns(a.d).length === 3 ? meteredTurns(a.d) : undefined), "three usage records"))!;
    const served = a.api.servedUsage();
    const sum = turns.reduce((t, r) => ({ input: t.input + r.tokens.input, output: t.output + r.tokens.output, cacheRead: t.cacheRead + r.tokens.cacheRead, cacheWrite: t.cacheWrite + r.tokens.cacheWrite, reasoning: t.reasoning + r.tokens.reasoning }), { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
    expect(sum).toEqual(served);
    expect(served.cacheRead).toBeGreaterThan(0);
    expect(turns.map((r) => [r.kind, r.channel, r.nick, r.costSource, r.reported])).toEqual(Array(3).fill(["mention", "#test", "bob", "agent", true]));
    expect(turns.every((r) => r.costUsd! > 0 && r.tokens.input > 0)).toBe(true);
    expect((a.d.daemon.status().usage as { today: { turns: number; input_tokens: number } }).today).toMatchObject({ turns: 3, input_tokens: served.input });
  });

  it("survives kill -9 of Claude Code mid-turn three times: the alert names the signal, the session is resumed with its history", async () => {
    const erin = await human("erin");
    const a = await agent({
      config: { restart: { delay_seconds: 0.2, max_crashes: 10, window_seconds: 300 } },
      script: ircReplyScript({ before: (req) => (/^\[IRC .* stall \d/.test(req.lastUserText) ? { hang: true } : undefined) }),
    });
    const mark = erin.lines.length;
    erin.send(`PRIVMSG #test :@${NICK} hello`);
    await erin.waitFor(privmsg(NICK, "#test", /^echo: @spark-claude hello \(prompt 1\)$/), 30_000);
    await eventually(() => a.d.daemon.status().activity === "idle", "the first turn to end", 30_000);
    const session = a.d.daemon.status().session_id;
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    for (const round of [1, 2, 3]) {
      const requests = a.api.requests.length;
      erin.send(`PRIVMSG #test :@${NICK} stall ${round}`);
      // The model has the prompt (and never answers): Claude Code is mid-turn.
      await eventually(() => a.api.requests.slice(requests).some((r) => r.model && /^\[IRC .* stall \d/.test(r.model.lastUserText)), "the stalled request", 30_000);
      const [pid] = a.claudePids();
      expect(pid).toBeGreaterThan(0);
      process.kill(pid!, "SIGKILL");
      await eventually(() => a.d.daemon.status().running && a.claudePids().length === 1 && a.claudePids()[0] !== pid, "the restarted Claude Code", 30_000);
      erin.send(`PRIVMSG #test :@${NICK} after ${round}`);
      await erin.waitFor(privmsg(NICK, "#test", new RegExp(`^echo: @spark-claude after ${round} \\(prompt \\d+\\)$`)), 30_000);
      // The resumed history has every earlier answered prompt. (Whether the killed turn's own
      // prompt is in it depends on whether Claude Code had written it to its transcript before
      // the kill; the daemon's resume prompt names that task either way.)
      const seen = a.api.turns().find((t) => t.lastUserText.endsWith(`after ${round}`))!.userTexts;
      const answered = ["hello", ...Array.from({ length: round - 1 }, (_, i) => `after ${i + 1}`)];
      for (const text of answered) expect(seen).toContain(`[IRC @mention in #test] <erin> @${NICK} ${text}`);
      expect(seen.some((t) => t.startsWith("[culture] Your previous agent session ended unexpectedly (process exited with code 137)"))).toBe(true);
      await eventually(() => a.d.daemon.status().activity === "idle", "the turn to end", 30_000);
      expect(a.d.daemon.status().session_id).toBe(session);
    }
    // Three crashes, each reported with its signal; the alert module collapses identical
    // repeats within a minute, so #alerts normally has one line (never another text).
    expect(a.lines.filter((l) => l.includes("the agent exited with code 137"))).toHaveLength(3);
    const alerts = saidTo(erin.since(mark), NICK, "#alerts");
    expect(alerts.length).toBeGreaterThan(0);
    expect(new Set(alerts)).toEqual(new Set([`[ERROR] ${NICK} crashed: process exited with code 137 (killed by SIGKILL)`]));
    expect(a.d.daemon.status()).toMatchObject({ running: true, circuit_open: false });
  });

  it("aborts a turn on an operator's word and goes on; a kill -9 after the interrupted turn is still reported with its signal", async () => {
    const olga = await human("olga");
    const a = await agent({ script: ircReplyScript({ before: (req) => (/^\[IRC .* stall\b/.test(req.lastUserText) ? { hang: true } : undefined) }) });
    const mark = olga.lines.length;
    olga.send(`PRIVMSG #test :@${NICK} stall please`);
    await eventually(() => a.api.turns().some((t) => t.lastUserText.endsWith("stall please")), "the stalled request", 30_000);
    const [pid] = a.claudePids();
    olga.send(`PRIVMSG #test :@${NICK} abort`);
    await olga.waitFor(privmsg(NICK, "#test", /^olga: aborted the current task\.$/), 30_000);
    await eventually(() => a.d.daemon.status().activity === "idle", "the interrupted turn to end", 30_000);
    // The same Claude Code process goes on with the next mention.
    olga.send(`PRIVMSG #test :@${NICK} still there?`);
    await olga.waitFor(privmsg(NICK, "#test", /^echo: @spark-claude still there\? \(prompt \d\)$/), 30_000);
    await eventually(() => a.d.daemon.status().activity === "idle", "the turn to end", 30_000);
    expect(a.claudePids()).toEqual([pid]);
    expect(saidTo(olga.since(mark), NICK, "#alerts")).toEqual([]);
    // Interrupt the next turn too, then kill Claude Code while it is idle: the SDK replaces the
    // exit error by the interrupted turn's error result, but the alert names the real signal.
    olga.send(`PRIVMSG #test :@${NICK} stall again`);
    await eventually(() => a.api.turns().some((t) => t.lastUserText.endsWith("stall again")), "the second stalled request", 30_000);
    olga.send(`PRIVMSG #test :@${NICK} abort`);
    await eventually(() => a.d.daemon.status().activity === "idle", "the second interrupted turn to end", 30_000);
    process.kill(pid!, "SIGKILL");
    await olga.waitFor(privmsg(NICK, "#alerts", /crashed/), 30_000);
    expect(saidTo(olga.since(mark), NICK, "#alerts")).toEqual([`[ERROR] ${NICK} crashed: process exited with code 137 (killed by SIGKILL)`]);
  });

  it("answers three mentions sent in a burst, each as its own turn, in order", async () => {
    const bob = await human("bob");
    const a = await agent();
    for (const n of [1, 2, 3]) bob.send(`PRIVMSG #test :@${NICK} burst ${n}`);
    for (const n of [1, 2, 3]) await bob.waitFor(privmsg(NICK, "#test", new RegExp(`^echo: @spark-claude burst ${n} \\(prompt ${n}\\)$`)), 30_000);
    await eventually(() => a.d.daemon.status().activity === "idle" && a.d.daemon.status().turn_count === 3, "three turns", 30_000);
    expect(saidTo(bob.lines, NICK, "#test")).toEqual([1, 2, 3].map((n) => `echo: @spark-claude burst ${n} (prompt ${n})`));
  });

  it("answers a DM in the DM, through culture channel send to the sender's nick; model: reaches the endpoint as is", async () => {
    const dave = await human("dave", []);
    const a = await agent({ agent: { model: "local-coder-7b" } });
    dave.send(`PRIVMSG ${NICK} :hello in private`);
    await dave.waitFor(privmsg(NICK, "dave", /^echo: hello in private \(prompt 1\)$/), 30_000);
    // A local or self-hosted endpoint gets the model name configured in agents.yaml.
    expect(new Set(a.api.turns().map((t) => t.model))).toEqual(new Set(["local-coder-7b"]));
  });

  it("runs eight different ordinary commands in one task without a whisper or a pause", async () => {
    const carl = await human("carl");
    const commands = ["pwd", "ls -a", "echo one", "date +%s", "uname -s", "id -u", "printf two", "true"];
    const a = await agent({
      script: (req) => {
        if (!req.tools.includes("Bash")) return { text: "ok" };
        const done = req.toolResults.length;
        if (done < commands.length) return { shell: commands[done]! };
        if (done === commands.length) return { shell: `culture channel send '#test' 'ran ${commands.length} commands'` };
        return { text: "done" };
      },
    });
    carl.send(`PRIVMSG #test :@${NICK} please do some work`);
    await carl.waitFor(privmsg(NICK, "#test", /^ran 8 commands$/), 60_000);
    await eventually(() => a.d.daemon.status().activity === "idle", "the turn to end", 30_000);
    // Every command really ran in the agent's directory, each with its own output.
    const outputs = a.api.turns().at(-1)!.toolResults.map((r) => r.output);
    expect(outputs[0]).toBe(a.directory);
    expect(outputs[2]).toBe("one");
    expect(a.lines.filter((l) => l.includes("supervisor] whisper"))).toEqual([]);
    expect(a.d.daemon.status()).toMatchObject({ paused: false, running: true });
  });

  it("runs supervisor.agent: claude on the real CLI; its correction reaches the model through the PostToolUse hook", async () => {
    const gus = await human("gus");
    let evaluations = 0;
    const correction = "Stop and re-read the failing test.";
    const irc = ircReplyScript();
    const a = await agent({
      config: { supervisor: { agent: "claude", eval_interval: 1, escalation_threshold: 5 } },
      script: (req) => {
        if (req.system.includes("You are a supervisor monitoring")) {
          evaluations += 1;
          return { text: evaluations === 1 ? `CORRECTION ${correction}` : "OK" };
        }
        if (req.afterToolResult && req.toolResults.at(-1)?.output === "second-step") {
          const seen = /\[SUPERVISOR\/CORRECTION\] ([^"\\]*)/.exec(JSON.stringify(req.body))?.[1] ?? "nothing";
          return { shell: `culture channel send '#test' 'saw: ${seen}'` };
        }
        if (req.lastUserText.endsWith("second")) return { shell: "echo second-step" };
        return irc(req);
      },
    });
    gus.send(`PRIVMSG #test :@${NICK} first`);
    await gus.waitFor(privmsg(NICK, "#test", /^echo: @spark-claude first/), 30_000);
    // The evaluator (a tool-less one-turn Claude Code) judged the transcript and whispered.
    await eventually(() => a.lines.some((l) => l.includes("supervisor] whisper")), "the supervisor's whisper", 60_000);
    const evaluation = a.api.turns().find((t) => t.system.includes("You are a supervisor monitoring"))!;
    expect(evaluation.tools).toEqual([]);
    expect(evaluation.userTexts.join("\n")).toContain("culture channel send");
    gus.send(`PRIVMSG #test :@${NICK} second`);
    await gus.waitFor(privmsg(NICK, "#test", new RegExp(`^saw: ${correction.replace(/\./g, "\\.")}$`)), 60_000);
    expect(a.lines.some((l) => l.includes("delivering supervisor whispers at a tool boundary"))).toBe(true);
  });

  it("times out a turn that gets no model answer, tells the origin, and answers the next mention", async () => {
    const hal = await human("hal");
    const a = await agent({
      agent: { turn_timeout_seconds: 3 },
      script: ircReplyScript({ before: (req) => (/^\[IRC .* stall\b/.test(req.lastUserText) ? { hang: true } : undefined) }),
    });
    hal.send(`PRIVMSG #test :@${NICK} stall forever`);
    await hal.waitFor(privmsg(NICK, "#test", /^Sorry, I got stuck on that \(no output for 3s\) and stopped the attempt\.$/), 30_000);
    await eventually(() => a.d.daemon.status().running && a.d.daemon.status().activity === "idle", "the agent to be ready again", 30_000);
    hal.send(`PRIVMSG #test :@${NICK} are you back?`);
    await hal.waitFor(privmsg(NICK, "#test", /^echo: @spark-claude are you back\? \(prompt \d\)$/), 30_000);
  });

  it("turns a 401 into one alert and an open circuit; an operator's resume makes it work again", async () => {
    const olga = await human("olga");
    let authorized = false;
    const a = await agent({ script: ircReplyScript({ before: (req) => (!authorized && req.tools.length > 0 ? { fail: 401, message: "invalid x-api-key" } : undefined) }) });
    const mark = olga.lines.length;
    olga.send(`PRIVMSG #test :@${NICK} hello?`);
    await olga.waitFor(privmsg(NICK, "#alerts", /^\[ERROR\] spark-claude cannot run its agent: /), 30_000);
    await eventually(() => a.d.daemon.status().circuit_open, "the open circuit", 30_000);
    olga.send(`PRIVMSG #test :@${NICK} hello again?`);
    // Nothing is retried behind the operator's back: give a loop time to show itself.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const failed = a.api.requests.filter((r) => r.status === 401).length;
    const alerts = saidTo(olga.since(mark), NICK, "#alerts");
    expect(alerts.filter((l) => l.startsWith("["))).toHaveLength(1);
    expect(alerts.join(" ")).toContain("claude login");
    expect(saidTo(olga.since(mark), NICK, "#test").some((l) => /invalid x-api-key/i.test(l))).toBe(false);
    authorized = true;
    olga.send(`PRIVMSG #test :@${NICK} resume`);
    await olga.waitFor(privmsg(NICK, "#test", /^echo: @spark-claude hello again\? \(prompt \d\)$/), 60_000);
    expect(a.d.daemon.status().circuit_open).toBe(false);
    // Claude Code 2.1.330 retries a 401 ten times with backoff (minutes); culture ends the turn
    // at its first retry notice instead of waiting them out.
    expect(failed).toBeGreaterThan(0);
    expect(failed).toBeLessThan(11);
    expect(a.lines.some((l) => l.includes("Claude Code is retrying an authentication failure; ending the turn"))).toBe(true);
  });

  it("lets Claude Code itself retry 529 and 429 answers: the reply comes, with no alert and no retry by culture", async () => {
    const ivy = await human("ivy");
    const failures: number[] = [529, 529, 429];
    const a = await agent({ script: ircReplyScript({ before: (req) => (req.tools.length > 0 && failures.length > 0 ? { fail: failures.shift()! } : undefined) }) });
    const mark = ivy.lines.length;
    ivy.send(`PRIVMSG #test :@${NICK} busy?`);
    await ivy.waitFor(privmsg(NICK, "#test", /^echo: @spark-claude busy\? \(prompt 1\)$/), 60_000);
    expect(a.api.requests.filter((r) => r.model).map((r) => r.status).slice(0, 4)).toEqual([529, 529, 429, 200]);
    expect(a.lines.some((l) => l.includes("retrying it"))).toBe(false);
    expect(saidTo(ivy.since(mark), NICK, "#alerts")).toEqual([]);
  });

  it("as root without IS_SANDBOX=1, refuses to start with Claude Code's reason and every fix (culture never sets IS_SANDBOX itself)", async () => {
    const start = startRealClaude({ ircPort: ircPort(), nick: NICK, script: ircReplyScript(), env: { IS_SANDBOX: undefined } });
    if (process.getuid?.() !== 0) {
      // Not root: Claude Code has nothing to refuse.
      const a = await start;
      cleanups.push(() => a.stop());
      expect(a.d.daemon.status().running).toBe(true);
      return;
    }
    const error = await start.then(
      (a) => {
        cleanups.push(() => a.stop());
        return null;
      },
      (err: unknown) => err,
    );
    expect(isCultureError(error, "E_AGENT_START_REFUSED")).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain("does not run with permission_mode bypassPermissions (--dangerously-skip-permissions) as root");
    expect(message).toContain('add IS_SANDBOX: "1" to the agent\'s env: in agents.yaml');
    expect(message).toContain("give the agent permissions with mode ask");
    expect(message).toContain("set permission_mode to acceptEdits");
  });
});

describe("culture doctor with the real Claude Code CLI", () => {
  it("finds it, runs --version, and names where the credentials come from", async () => {
    const cli = agentCli("claude");
    const checks = await claudeDoctor({ executable: cli.bin }, { PATH: process.env.PATH, HOME: tmpdir(), ANTHROPIC_API_KEY: "dummy" });
    expect(checks).toEqual([
      { ok: true, name: "Claude Code CLI", detail: `${cli.bin} (${cli.version} (Claude Code))` },
      { ok: true, name: "Claude Code credentials", detail: "ANTHROPIC_API_KEY is set" },
    ]);
  });
});
