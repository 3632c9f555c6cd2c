/**
 * The copilot backend proven against the REAL GitHub Copilot runtime (SDK 1.0.14's
 * linux-x64 `copilot-runtime`), in culture's real daemon on the embedded IRC server, with a
 * scripted model API (OpenAI Responses, and Chat Completions for the DM) as the model: the
 * only fake. No GitHub sign-in: the agent entry's BYOK `provider:` points the runtime at the
 * scripted API. The agent speaks on IRC by running `culture channel send` with its own `bash`.
 * Needs `npm run build` and `node scripts/install-agent-clis.mjs copilot`.
 */
import {
  connectRawClient,
  eventually,
  ircReplyScript,
  meteredTurns,
  parseIrcPrompt,
  parseRawLine,
  shQuote,
  type ModelReply,
  type ModelRequest,
  type RawIrcClient,
  type ScriptedModelApi,
  type TestDaemon,
} from "@culture/core/testing";
import { describe, expect, it } from "vitest";
import { costOfTokens } from "@culture/core";
import { MODEL, makeCopilotHome, runtimePids, startModelApi, startRealCopilotDaemon, type RealCopilotDaemonOptions, useRealWorld } from "./helpers/real-copilot.js";

const NICK = "spark-copilot";
const LONG = 90_000;

/** An evaluation request of the supervisor (its prompt ends with the verdict instructions). */
const isEvaluation = (req: ModelRequest) => req.lastUserText.includes("Reply with exactly one verdict");
/** USD per million tokens for the test's model (the `prices:` table). */
const PRICE = { input: 2, output: 8, cache_read: 0.5 };

/** Every text the model was shown in a request (history, tool results, injected context). */
const seen = (req: ModelRequest) => JSON.stringify(req.body);

describe("the copilot backend with the real Copilot runtime (BYOK)", { timeout: 240_000 }, () => {
  const { irc, cleanups } = useRealWorld();

  interface Setup {
    api: ScriptedModelApi;
    human: RawIrcClient;
    started: Promise<TestDaemon>;
  }

  /** A human (an operator) in #test and #alerts, a scripted API, a private HOME, and the daemon starting; resolves once it has JOINed #test. */
  async function setup(
    opts: Partial<Omit<RealCopilotDaemonOptions, "ircPort" | "api" | "home" | "nick">> & { before?: (req: ModelRequest) => ModelReply | undefined } = {},
  ): Promise<Setup> {
    const api = await startModelApi(ircReplyScript({ before: opts.before }));
    cleanups.push(() => api.close());
    const home = makeCopilotHome();
    cleanups.push(() => home.remove());
    const human = await connectRawClient(irc().port, "alice");
    cleanups.push(() => human.close());
    await human.join("#test");
    await human.join("#alerts");
    const started = startRealCopilotDaemon({
      ircPort: irc().port,
      api,
      home,
      nick: NICK,
      ...opts,
      config: { operators: ["alice"], operators_by_nick: true, ...opts.config },
    });
    cleanups.push(async () => (await started.catch(() => undefined))?.stop());
    await human.waitFor((_, p) => p.command === "JOIN" && p.nick === NICK && p.params[0] === "#test", 30_000);
    return { api, human, started };
  }

  const privmsg = (target: string, text: RegExp, from = NICK) => (line: string) => {
    const p = parseRawLine(line);
    return p.command === "PRIVMSG" && p.nick === from && p.params[0] === target && text.test(p.params[1] ?? "");
  };
  const said = (human: RawIrcClient, target: string, text: RegExp) =>
    human.lines.map(parseRawLine).filter((p) => p.command === "PRIVMSG" && p.nick === NICK && p.params[0] === target && text.test(p.params[1] ?? ""));

  it("answers a mention sent the moment it joined by running `culture channel send` itself, and keeps the history across mentions", async () => {
    const { api, human, started } = await setup({ config: { prices: { [MODEL]: PRICE } } });
    human.send(`PRIVMSG #test :@${NICK} hello there`);
    const reply = await human.waitFor(privmsg("#test", /./), LONG);
    expect(parseRawLine(reply).params[1]).toBe(`echo: @${NICK} hello there (prompt 1)`);
    // The reply came from the agent's own bash call: its result (culture's output) went back to the model.
    const toolTurn = await eventually(() => api.turns().find((t) => t.afterToolResult), "the tool result to reach the model");
    expect(toolTurn?.api).toBe("openai-responses");
    // The key came from agents.yaml's provider.api_key: ${CULTURE_TEST_MODEL_KEY}.
    expect(api.requests[0]!.headers.authorization).toBe("Bearer dummy-key");
    const d = await started;
    // A mention that arrives while the daemon starts its agent waits for that agent: one runtime, not two.
    expect(runtimePids()).toHaveLength(1);
    human.send(`PRIVMSG #test :@${NICK} again`);
    await human.waitFor(privmsg("#test", /^echo: @spark-copilot again \(prompt 2\)$/), LONG);
    await eventually(() => d.daemon.status().activity === "idle", "the turn to end");
    // Metering: the two turns' tokens (assistant.usage, one per model call) are exactly what the
    // API reported, cached input and reasoning included; Copilot's `cost` is a premium-request
    // multiplier, not money, so the prices table prices them.
    const turns = (await eventually(() => (meteredTurns(d).length === 2 ? meteredTurns(d) : undefined), "two usage records"))!;
    const sum = turns.reduce((t, r) => ({ input: t.input + r.tokens.input, output: t.output + r.tokens.output, cacheRead: t.cacheRead + r.tokens.cacheRead, cacheWrite: t.cacheWrite + r.tokens.cacheWrite, reasoning: t.reasoning + r.tokens.reasoning }), { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
    expect(sum).toEqual(api.servedUsage());
    expect(turns.map((r) => [r.kind, r.nick, r.model, r.costSource])).toEqual(Array(2).fill(["mention", "alice", MODEL, "prices"]));
    for (const r of turns) expect(r.costUsd).toBeCloseTo(costOfTokens(r.tokens, PRICE), 12);
    await d.stop();
    expect(runtimePids()).toEqual([]);
  });

  it("after each kill -9 of the runtime: a restart, the session resumed with its history, the next mention answered (three rounds); one alert", async () => {
    const { api, human, started } = await setup({ config: { restart: { delay_seconds: 0.2, max_crashes: 10, window_seconds: 300 } } });
    human.send(`PRIVMSG #test :@${NICK} first`);
    await human.waitFor(privmsg("#test", /^echo: @spark-copilot first \(prompt 1\)$/), LONG);
    const d = await started;
    const session = d.daemon.status().session_id;
    expect(session).toBeTruthy();
    for (let round = 1; round <= 3; round++) {
      await eventually(() => d.daemon.status().activity === "idle", "the turn to end");
      const pids = runtimePids();
      expect(pids).toHaveLength(1);
      process.kill(pids[0]!, "SIGKILL");
      if (round === 1) await human.waitFor(privmsg("#alerts", /^\[ERROR\] spark-copilot crashed: process exited with code 137 \(killed by SIGKILL\)$/), LONG);
      await eventually(() => d.daemon.status().running && runtimePids().length === 1 && runtimePids()[0] !== pids[0], "the restart", LONG);
      expect(d.daemon.status().session_id).toBe(session);
      human.send(`PRIVMSG #test :@${NICK} round ${round}`);
      // The resumed session still has every earlier prompt: the model counts them.
      await human.waitFor(privmsg("#test", new RegExp(`^echo: @spark-copilot round ${round} \\(prompt ${round + 1}\\)$`)), LONG);
    }
    // One alert: the daemon collapses the same alert repeated within a minute.
    expect(said(human, "#alerts", /crashed/)).toHaveLength(1);
    expect(api.requests.every((r) => r.status !== 401)).toBe(true);
  });

  it("three mentions in a burst are answered in order; a DM is answered privately (Chat Completions)", async () => {
    const { api, human } = await setup({ wireApi: "completions" });
    human.send(`PRIVMSG #test :@${NICK} one`);
    human.send(`PRIVMSG #test :@${NICK} two`);
    human.send(`PRIVMSG #test :@${NICK} three`);
    await human.waitFor(privmsg("#test", /^echo: @spark-copilot three \(prompt 3\)$/), LONG);
    expect(said(human, "#test", /^echo:/).map((p) => p.params[1])).toEqual([
      `echo: @${NICK} one (prompt 1)`,
      `echo: @${NICK} two (prompt 2)`,
      `echo: @${NICK} three (prompt 3)`,
    ]);
    human.send(`PRIVMSG ${NICK} :psst`);
    await human.waitFor(privmsg("alice", /^echo: psst \(prompt 4\)$/), LONG);
    expect(api.turns().every((t) => t.api === "openai-chat")).toBe(true);
  });

  it("an operator's abort ends a turn whose model call hangs, and the next mention is answered", async () => {
    const { api, human } = await setup({ before: (req) => (parseIrcPrompt(req.lastUserText)?.text.includes("hang") ? { hang: true } : undefined) });
    human.send(`PRIVMSG #test :@${NICK} hang please`);
    await eventually(() => api.requests.some((r) => r.reply && "hang" in r.reply), "the model call to hang", LONG);
    human.send(`PRIVMSG #test :@${NICK} abort`);
    await human.waitFor(privmsg("#test", /aborted/), LONG);
    human.send(`PRIVMSG #test :@${NICK} still there?`);
    await human.waitFor(privmsg("#test", /^echo: @spark-copilot still there\? \(prompt \d\)$/), LONG);
  });

  it("a turn whose model call hangs times out, and the agent answers the next mention", async () => {
    const { human } = await setup({
      agent: { turn_timeout_seconds: 3 },
      before: (req) => (parseIrcPrompt(req.lastUserText)?.text.includes("hang") ? { hang: true } : undefined),
    });
    human.send(`PRIVMSG #test :@${NICK} hang please`);
    await human.waitFor(privmsg("#test", /got stuck on that/), LONG);
    human.send(`PRIVMSG #test :@${NICK} next`);
    await human.waitFor(privmsg("#test", /^echo: @spark-copilot next \(prompt \d\)$/), LONG);
  });

  it("a 429 then a 503 are retried by the runtime itself, not again by culture: the asker hears once that it is delayed, and gets one answer", async () => {
    const failures = [429, 503];
    const { api, human } = await setup({
      // The runtime's own retries announce the delay at once (retryNoticeMs 0), as notices.
      timings: { retryNoticeMs: 0 },
      agent: { receipts: "notice" },
      before: (req) => {
        const failure = parseIrcPrompt(req.lastUserText) ? failures.shift() : undefined;
        return failure === 429 ? { fail: 429, message: "Rate limit reached for gpt-4.1" } : failure ? { fail: failure, message: "The server is overloaded" } : undefined;
      },
    });
    const mark = human.lines.length;
    human.send(`PRIVMSG #test :@${NICK} busy?`);
    await human.waitFor(privmsg("#test", /^echo: @spark-copilot busy\? \(prompt 1\)$/), LONG);
    const delayed = human.since(mark).filter((l) => / delayed: /.test(l));
    expect(delayed).toEqual([expect.stringMatching(/^:\S+ NOTICE alice :\[#test\] delayed: the model API is rate limiting \(429 Rate limit reached for gpt-4\.1\); I keep trying: "@spark-copilot busy\?"$/)]);
    // The runtime tried three times in all (its retries); culture sent the prompt once.
    expect(api.requests.filter((r) => parseIrcPrompt(r.model?.lastUserText ?? "")).map((r) => r.status).slice(0, 3)).toEqual([429, 503, 200]);
    expect(said(human, "#test", /^echo:/)).toHaveLength(1);
  });

  it("a 500 that outlasts the runtime's retries fails that turn only: the next mention gets its own answer", async () => {
    const { api, human, started } = await setup({ before: (req) => (parseIrcPrompt(req.lastUserText)?.text.includes("broken") ? { fail: 500, message: "model down" } : undefined) });
    human.send(`PRIVMSG #test :@${NICK} broken`);
    const d = await started;
    await eventually(() => api.requests.filter((r) => r.status === 500).length >= 2 && d.daemon.status().activity === "idle", "the failed turn to end", LONG);
    human.send(`PRIVMSG #test :@${NICK} fine now?`);
    await human.waitFor(privmsg("#test", /^echo: @spark-copilot fine now\? \(prompt 2\)$/), LONG);
    await eventually(() => d.daemon.status().activity === "idle", "the turn to end");
    expect(said(human, "#test", /^echo:/)).toHaveLength(1);
  });

  it("a 401 from the model: one alert saying to fix the provider key, the circuit open; an operator's resume brings it back", async () => {
    let deny = true;
    const { human, started } = await setup({
      // A refused key is no delay: even with the notice at the first retry, the asker hears of none.
      timings: { retryNoticeMs: 0 },
      agent: { receipts: "notice" },
      before: (req) => (deny && parseIrcPrompt(req.lastUserText) ? { fail: 401, message: "bad key" } : undefined),
    });
    human.send(`PRIVMSG #test :@${NICK} hello`);
    const alert = await human.waitFor(privmsg("#alerts", /cannot run its agent/), LONG);
    expect(parseRawLine(alert).params[1]).toContain("refused the agent's key");
    expect(parseRawLine(alert).params[1]).toContain("provider.api_key");
    const d = await started;
    await eventually(() => d.daemon.status().circuit_open && !d.daemon.status().running, "the circuit to open");
    deny = false;
    human.send(`PRIVMSG #test :@${NICK} resume`);
    human.send(`PRIVMSG #test :@${NICK} are you back?`);
    await human.waitFor(privmsg("#test", /^echo: @spark-copilot are you back\? \(prompt \d\)$/), LONG);
    expect(said(human, "#alerts", /cannot run its agent/)).toHaveLength(1);
    expect(human.lines.filter((l) => / delayed: /.test(l))).toEqual([]);
  });

  it("a Copilot (BYOK) supervisor: eight different commands draw no whisper; its CORRECTION reaches the model through the postToolUse hook", async () => {
    let correct = false;
    let sentEight = false;
    let sentHeard = false;
    const evaluations: ModelRequest[] = [];
    const { api, human, started } = await setup({
      config: { supervisor: { agent: "copilot", model: "gpt-4.1", eval_interval: 1, escalation_threshold: 5 } },
      before: (req) => {
        if (isEvaluation(req)) {
          evaluations.push(req);
          return { text: correct ? "CORRECTION read notes.txt before going on" : "OK" };
        }
        const prompt = parseIrcPrompt(req.userTexts.findLast((t) => parseIrcPrompt(t)) ?? "");
        if (!prompt || req.tools.length === 0) return undefined;
        if (prompt.text.includes("steps")) {
          // Eight different ordinary commands, then the reply.
          const done = req.toolResults.filter((r) => /step-\d/.test(r.output)).length;
          if (done < 8) return { shell: `echo step-${done + 1} && ls -a > /dev/null` };
          if (!sentEight) {
            sentEight = true;
            return { shell: `culture channel send '#test' ${shQuote("eight steps done")}` };
          }
          return { text: "done" };
        }
        if (prompt.text.includes("work")) {
          // Keeps working until the supervisor's whisper shows up in what the model sees.
          if (sentHeard) return { text: "done" };
          if (seen(req).includes("[SUPERVISOR/CORRECTION]")) {
            sentHeard = true;
            return { shell: `culture channel send '#test' 'whisper heard'` };
          }
          return req.toolResults.length > 60 ? { text: "gave up" } : { shell: `echo work-${req.toolResults.length + 1}` };
        }
        return undefined;
      },
    });
    human.send(`PRIVMSG #test :@${NICK} eight steps please`);
    await human.waitFor(privmsg("#test", /^eight steps done$/), LONG);
    const d = await started;
    await eventually(() => d.daemon.status().activity === "idle", "the turn to end");
    // One evaluation at a time: the supervisor looked at the work (its window holds the calls) more than once.
    await eventually(() => evaluations.length >= 2 && evaluations.some((e) => e.lastUserText.includes("step-")), "the supervisor to evaluate the calls", LONG);
    // Eight different calls: no SPIRALING evidence, no whisper, not paused.
    expect(evaluations.some((e) => e.lastUserText.includes("SPIRALING"))).toBe(false);
    expect(api.turns().some((t) => /\[SUPERVISOR\/[A-Z_]+\]/.test(seen(t)))).toBe(false);
    expect(d.daemon.status().paused).toBe(false);
    // The evaluator ran through the runtime against the same BYOK provider, without tools.
    expect(evaluations[0]!.tools).toEqual([]);

    correct = true;
    human.send(`PRIVMSG #test :@${NICK} work on it`);
    await human.waitFor(privmsg("#test", /^whisper heard$/), LONG);
    const heard = api.turns().find((t) => !isEvaluation(t) && seen(t).includes("[SUPERVISOR/CORRECTION] read notes.txt before going on"));
    expect(heard?.afterToolResult).toBe(true);
  });
});
