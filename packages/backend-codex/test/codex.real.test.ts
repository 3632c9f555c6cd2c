/**
 * The codex backend proven against the REAL Codex CLI (0.169.0, `codex app-server`, its native
 * binary), in culture's real daemon on the embedded IRC server, with a scripted OpenAI
 * Responses API as the model (the only fake). The agent speaks on IRC by running
 * `culture channel send` itself, inside Codex's default `workspace-write` sandbox.
 * Needs `npm run build` and `node scripts/install-agent-clis.mjs codex`.
 */
import {
  connectRawClient,
  eventually,
  ircReplyScript,
  meteredTurns,
  parseIrcPrompt,
  parseRawLine,
  shQuote,
  type ModelScript,
  type RawIrcClient,
  type ScriptedModelApi,
  type TestDaemon,
} from "@culture/core/testing";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type CodexHome, codexProcesses, ircSuite, makeCodexHome, type RealCodexDaemonOptions, startRealCodexDaemon, startResponsesApi } from "./helpers/real-codex.js";

const NICK = "spark-codex";

describe("the codex backend with the real Codex CLI", () => {
  const { cleanups, ircPort } = ircSuite();

  interface Setup {
    api: ScriptedModelApi;
    home: CodexHome;
    human: RawIrcClient;
    /** Resolves when daemon.start() has returned. */
    started: Promise<TestDaemon>;
  }

  /**
   * A human in #test and #alerts, a scripted API, a Codex home, and the daemon starting; resolves
   * as soon as the daemon has JOINed #test (before its agent is ready).
   */
  async function setup(
    opts: Partial<Omit<RealCodexDaemonOptions, "ircPort" | "api" | "home">> & { humanNick?: string; script?: ModelScript } = {},
  ): Promise<Setup> {
    const api = await startResponsesApi(opts.script ?? ircReplyScript());
    cleanups.push(() => api.close());
    const home = makeCodexHome(api);
    cleanups.push(() => home.remove());
    const human = await connectRawClient(ircPort(), opts.humanNick ?? "alice");
    cleanups.push(() => human.close());
    await human.join("#test");
    await human.join("#alerts");
    const started = startRealCodexDaemon({ ircPort: ircPort(), api, home, ...opts });
    cleanups.push(async () => (await started.catch(() => undefined))?.stop());
    await human.waitFor((_, p) => p.command === "JOIN" && p.nick === (opts.nick ?? NICK) && p.params[0] === "#test", 30_000);
    return { api, home, human, started };
  }

  const privmsg = (target: string, text: RegExp, from = NICK) => (line: string) => {
    const p = parseRawLine(line);
    return p.command === "PRIVMSG" && p.nick === from && p.params[0] === target && text.test(p.params[1] ?? "");
  };

  it("a mention sent the moment the daemon joined: the agent runs `culture channel send` itself, in the default sandbox", async () => {
    const { api, human, started, home } = await setup();
    human.send(`PRIVMSG #test :@${NICK} hello there`);
    const reply = await human.waitFor(privmsg("#test", /./), 60_000);
    expect(parseRawLine(reply).params[1]).toBe(`echo: @${NICK} hello there (prompt 1)`);
    const d = await started;
    // One agent: a prompt that arrived while the runner was starting did not start a second one.
    expect(codexProcesses(home).filter((p) => p.native)).toHaveLength(1);
    // The reply came from the agent's own shell call, not the relay: the tool result is culture's output.
    const toolTurn = await eventually(() => api.turns().find((t) => t.afterToolResult), "the tool result to reach the model");
    expect(toolTurn!.toolResults.at(-1)?.output).toMatch(/Process exited with code 0/);
    await eventually(() => d.daemon.status().activity === "idle", "the turn to end");
  });

  /** Waits for the reply `echo: <text> (prompt N)` in `target`; returns N. */
  async function reply(human: RawIrcClient, target: string, text: string, timeoutMs = 60_000): Promise<number> {
    const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const line = await human.waitFor(privmsg(target, new RegExp(`^echo: ${escaped} \\(prompt (\\d+)\\)$`)), timeoutMs);
    return Number(/\(prompt (\d+)\)$/.exec(parseRawLine(line).params[1]!)![1]);
  }

  it("the sandbox stays closed for every other command: only a plain `culture channel ...` leaves it", { timeout: 120_000 }, async () => {
    // A node one-liner that connects to the daemon's socket, then tries to write outside the workspace.
    const probe = (sock: string, outside: string) =>
      `node -e ${shQuote(`const n=require("net");n.connect(${JSON.stringify(sock)}).on("connect",()=>{console.log("CONNECTED");process.exit(0)}).on("error",(e)=>{console.log("CONNECT-"+e.code);try{require("fs").writeFileSync(${JSON.stringify(outside)},"x");console.log("WROTE")}catch(w){console.log("WRITE-"+w.code)}})`)}`;
    let socket = "";
    let outside = "";
    const script: ModelScript = (req) => {
      if (req.afterToolResult) return { text: "done" };
      const prompt = parseIrcPrompt(req.lastUserText);
      if (!prompt) return { text: "ok" };
      if (prompt.text.includes("probe")) return { shell: probe(socket, outside) };
      return ircReplyScript()(req);
    };
    const { human, started, api, home } = await setup({ script });
    const d = await started;
    socket = `${d.home}/run/culture-${NICK}.sock`;
    outside = `${home.dir}/outside-the-workspace.txt`;
    human.send(`PRIVMSG #test :@${NICK} probe`);
    const result = await eventually(() => api.turns().find((t) => t.afterToolResult)?.toolResults.at(-1)?.output, "the probe's output", 60_000);
    expect(result).toContain("CONNECT-EPERM");
    expect(result).toContain("WRITE-EROFS");
    // ...while the agent's own `culture channel send` still reaches IRC.
    human.send(`PRIVMSG #test :@${NICK} and now speak`);
    expect(await reply(human, "#test", `@${NICK} and now speak`)).toBe(2);
  });

  it("a `culture` the agent wrote itself does not leave the sandbox", { timeout: 120_000 }, async () => {
    let outside = "";
    const steps = () => [
      `printf '#!/bin/sh\\necho "$0 $*" >> ${outside}\\n' > culture && chmod +x culture && echo made`,
      "./culture channel send '#test' forged",
      "PATH=.:$PATH culture channel send '#test' forged",
      `sh -c "$(pwd)/culture channel send x y"`,
    ];
    const script: ModelScript = (req) => {
      const prompt = parseIrcPrompt(req.userTexts.filter((t) => parseIrcPrompt(t)).at(-1) ?? "");
      if (!prompt) return { text: "ok" };
      const step = steps()[req.toolResults.length];
      return step ? { shell: step } : { text: "done" };
    };
    const { human, api, home, started } = await setup({ script });
    await started;
    outside = `${home.dir}/forged.txt`;
    human.send(`PRIVMSG #test :@${NICK} forge`);
    await eventually(() => api.turns().some((t) => t.toolResults.length === steps().length), "every step to run", 60_000);
    const outputs = api.turns().at(-1)!.toolResults.map((r) => r.output);
    expect(outputs[0]).toContain("made");
    expect(existsSync(outside) ? readFileSync(outside, "utf8") : "", outputs.join("\n---\n")).toBe("");
  });

  it("with channel_access: none the sandbox blocks the agent's culture channel (what the exec rule fixes)", { timeout: 120_000 }, async () => {
    const { human, api } = await setup({ agent: { channel_access: "none" } });
    human.send(`PRIVMSG #test :@${NICK} hello`);
    const result = await eventually(() => api.turns().find((t) => t.afterToolResult)?.toolResults.at(-1)?.output, "the tool's output", 60_000);
    expect(result).toMatch(/connect EPERM .*culture-spark-codex\.sock/);
  });

  it("keeps the history across mentions in one live thread", async () => {
    const { api, human, started } = await setup();
    human.send(`PRIVMSG #test :@${NICK} one`);
    expect(await reply(human, "#test", `@${NICK} one`)).toBe(1);
    human.send(`PRIVMSG #test :@${NICK} two`);
    expect(await reply(human, "#test", `@${NICK} two`)).toBe(2);
    const d = await started;
    expect(d.daemon.status().session_id).toBeTruthy();
    // Metering: the two turns' tokens (from the growth of thread/tokenUsage's running total)
    // are exactly what the Responses API reported, cached input and reasoning included. Codex
    // reports no cost and the config has no price: the cost is unknown, not guessed.
    const turns = (await eventually(() => (meteredTurns(d).length === 2 ? meteredTurns(d) : undefined), "two usage records"))!;
    const sum = turns.reduce((t, r) => ({ input: t.input + r.tokens.input, output: t.output + r.tokens.output, cacheRead: t.cacheRead + r.tokens.cacheRead, cacheWrite: t.cacheWrite + r.tokens.cacheWrite, reasoning: t.reasoning + r.tokens.reasoning }), { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
    expect(sum).toEqual(api.servedUsage());
    expect(sum.cacheRead * sum.reasoning).toBeGreaterThan(0);
    expect(turns.map((r) => [r.kind, r.channel, r.nick, r.costUsd, r.costSource, r.reported])).toEqual(Array(2).fill(["mention", "#test", "alice", null, null, true]));
  });

  it("kill -9 of the codex process, three times: an alert, restart, thread resumed, history kept, next mention answered", { timeout: 180_000 }, async () => {
    const { human, started, home } = await setup({ config: { restart: { delay_seconds: 0.2, max_crashes: 10, window_seconds: 300 } } });
    human.send(`PRIVMSG #test :@${NICK} round 0`);
    expect(await reply(human, "#test", `@${NICK} round 0`)).toBe(1);
    const d = await started;
    const thread = d.daemon.status().session_id;
    let count = 1;
    for (let round = 1; round <= 3; round++) {
      await eventually(() => d.daemon.status().activity === "idle", "the turn to end");
      // Rounds 1 and 3 kill the native binary; round 2 the npm package's node wrapper that runs it
      // (on Node 20 bin/codex.js spawns the binary as its child instead of exec'ing it).
      const [victim] = codexProcesses(home).filter((p) => p.native === (round !== 2));
      expect(victim, "the codex process to kill").toBeDefined();
      const before = new Set(codexProcesses(home).map((p) => p.pid));
      process.kill(victim!.pid, "SIGKILL");
      // One alert for the first crash; the identical ones within the minute are collapsed (DESIGN.md §8).
      if (round === 1) await human.waitFor(privmsg("#alerts", new RegExp(`^\\[ERROR\\] ${NICK} crashed: process exited with code 137 \\(killed by SIGKILL\\)$`)), 30_000);
      await eventually(() => d.daemon.status().running && codexProcesses(home).every((p) => p.pid !== victim!.pid && !before.has(p.pid)) && codexProcesses(home).length > 0, "the restarted codex", 60_000);
      human.send(`PRIVMSG #test :@${NICK} round ${round}`);
      const n = await reply(human, "#test", `@${NICK} round ${round}`);
      expect(n).toBe(++count); // the resumed thread still holds every earlier prompt
      expect(d.daemon.status().session_id).toBe(thread);
    }
    expect(human.lines.filter(privmsg("#alerts", /./))).toHaveLength(1);
  });

  it("eight different ordinary commands in one turn: no whisper, not paused", async () => {
    const commands = ["pwd", "ls -a", "date +%Y", "echo a", "uname -s", "id -u", "printf b", "wc -c /etc/hostname"];
    const script: ModelScript = (req) => {
      const prompt = parseIrcPrompt(req.userTexts.filter((t) => parseIrcPrompt(t)).at(-1) ?? "");
      if (!prompt) return { text: "ok" };
      const done = req.toolResults.length - (req.userTexts.filter((t) => parseIrcPrompt(t)).length - 1) * 9;
      if (done < commands.length) return { shell: commands[done]! };
      if (done === commands.length) return { shell: `culture channel send ${shQuote(prompt.target)} ${shQuote("all eight ran")}` };
      return { text: "done" };
    };
    const { human, started, api } = await setup({ script, config: { supervisor: { window_size: 20, eval_interval: 1, escalation_threshold: 2 } } });
    human.send(`PRIVMSG #test :@${NICK} run them`);
    await human.waitFor(privmsg("#test", /^all eight ran$/), 90_000);
    const d = await started;
    await eventually(() => d.daemon.status().activity === "idle", "the turn to end");
    expect(d.daemon.status().paused).toBe(false);
    expect(api.turns().some((t) => t.userTexts.some((u) => u.includes("[SUPERVISOR")))).toBe(false);
    expect(human.lines.filter(privmsg("#alerts", /./))).toHaveLength(0);
  });

  it("three mentions in a burst: three replies, each once, in order", async () => {
    const { human, started } = await setup();
    await started;
    for (const w of ["a", "b", "c"]) human.send(`PRIVMSG #test :@${NICK} burst ${w}`);
    expect(await reply(human, "#test", `@${NICK} burst a`)).toBe(1);
    expect(await reply(human, "#test", `@${NICK} burst b`)).toBe(2);
    expect(await reply(human, "#test", `@${NICK} burst c`)).toBe(3);
    const d = await started;
    await eventually(() => d.daemon.status().activity === "idle", "the turns to end");
    expect(human.lines.filter(privmsg("#test", /^echo: /))).toHaveLength(3);
  });

  it("a DM is answered in private by the agent's own culture channel send", async () => {
    const { human } = await setup();
    human.send(`PRIVMSG ${NICK} :psst, hello`);
    expect(await reply(human, "alice", "psst, hello")).toBe(1);
  });

  it("an operator's abort interrupts a hanging turn; the next mention is answered", async () => {
    const { human, started, api } = await setup({
      config: { operators: ["alice"], operators_by_nick: true },
      script: ircReplyScript({ before: (req) => (req.lastUserText.includes("hang here") ? { hang: true } : undefined) }),
    });
    const d = await started;
    human.send(`PRIVMSG #test :@${NICK} hang here`);
    await eventually(() => api.turns().some((t) => t.lastUserText.includes("hang here")), "the hanging model request");
    human.send(`PRIVMSG #test :@${NICK} abort`);
    await human.waitFor(privmsg("#test", /^alice: aborted the current task\.$/));
    await eventually(() => d.daemon.status().activity === "idle", "the interrupted turn to end");
    human.send(`PRIVMSG #test :@${NICK} after abort`);
    expect(await reply(human, "#test", `@${NICK} after abort`)).toBe(2);
  });

  it("a supervisor whisper reaches the model inside the running turn (turn/steer)", { timeout: 120_000 }, async () => {
    let steered: string | undefined;
    const script: ModelScript = (req) => {
      const whisper = req.userTexts.find((u) => u.includes("[SUPERVISOR/CORRECTION]"));
      const prompt = parseIrcPrompt(req.userTexts.filter((t) => parseIrcPrompt(t)).at(-1) ?? "");
      if (!prompt) return { text: "ok" };
      if (whisper) {
        steered = whisper;
        // Codex may drop an in-flight model response when input is steered in: decide from the history alone.
        if (JSON.stringify(req.body).includes("whisper-seen")) return { text: "done" };
        return { shell: `culture channel send ${shQuote(prompt.target)} ${shQuote("whisper-seen")}` };
      }
      // Keep the turn going with short commands until the whisper is steered in.
      return { shell: `sleep 0.3; echo step ${req.toolResults.length}` };
    };
    const { human } = await setup({
      script,
      config: { supervisor: { agent: "command", command: ["sh", "-c", "cat >/dev/null; echo 'CORRECTION stop looping and answer'"], eval_interval: 1, escalation_threshold: 5 } },
    });
    human.send(`PRIVMSG #test :@${NICK} loop a bit`);
    await human.waitFor(privmsg("#test", /^whisper-seen$/), 90_000);
    expect(steered).toContain("[SUPERVISOR/CORRECTION] stop looping and answer");
  });

  it("a turn that outlives turn_timeout_seconds is interrupted; the next mention is answered", { timeout: 120_000 }, async () => {
    const { human, started } = await setup({
      agent: { turn_timeout_seconds: 2 },
      script: ircReplyScript({ before: (req) => (req.lastUserText.includes("stall now") ? { hang: true } : undefined) }),
    });
    const d = await started;
    human.send(`PRIVMSG #test :@${NICK} stall now`);
    await human.waitFor((l) => { const p = parseRawLine(l); return p.command === "PRIVMSG" && p.nick === NICK && p.params[0] === "#test" && /^Sorry, I got stuck on that \(no output for 2s\)/.test(p.params[1] ?? ""); }, 60_000);
    await eventually(() => d.daemon.status().running && d.daemon.status().activity === "idle", "the agent to be ready again", 60_000);
    human.send(`PRIVMSG #test :@${NICK} afterwards`);
    await reply(human, "#test", `@${NICK} afterwards`);
  });

  it("401: one alert, the circuit opens; after an operator resume it works again", async () => {
    let refuse = true;
    const { human, started } = await setup({
      config: { operators: ["alice"], operators_by_nick: true },
      script: ircReplyScript({ before: () => (refuse ? { fail: 401, message: "Incorrect API key provided" } : undefined) }),
    });
    const d = await started;
    human.send(`PRIVMSG #test :@${NICK} are you there`);
    await human.waitFor(privmsg("#alerts", /authentication|sign in|login|401/i), 60_000);
    await eventually(() => d.daemon.status().circuit_open, "the circuit to open", 30_000);
    refuse = false;
    human.send(`PRIVMSG #test :@${NICK} resume`);
    await eventually(() => !d.daemon.status().circuit_open && d.daemon.status().running, "the agent to restart", 60_000);
    human.send(`PRIVMSG #test :@${NICK} back again`);
    await reply(human, "#test", `@${NICK} back again`);
    expect(human.lines.filter(privmsg("#alerts", /authentication|sign in|login|401/i))).toHaveLength(1);
  });

  it("429 and 529 answers are retried until the model answers", async () => {
    const failures = [429, 529];
    const { human, api } = await setup({
      script: ircReplyScript({ before: (req) => (parseIrcPrompt(req.lastUserText) && failures.length ? { fail: failures.shift()! } : undefined) }),
    });
    human.send(`PRIVMSG #test :@${NICK} despite errors`);
    await reply(human, "#test", `@${NICK} despite errors`);
    expect(api.requests.map((r) => r.status).filter((s) => s === 429 || s === 529)).toEqual([429, 529]);
  });

  it("supervisor.agent: codex evaluates with the real Codex and its verdict becomes a whisper", { timeout: 120_000 }, async () => {
    const script: ModelScript = (req) => {
      if (req.system.includes("You are a supervisor monitoring")) {
        // A judge that tries to speak as the agent first: it must not reach IRC.
        if (!req.afterToolResult) return { shell: "culture channel send '#test' from-the-judge" };
        return { text: "CORRECTION slow down and answer" };
      }
      // A whisper steered in mid-turn is the newest user text: answer the IRC prompt before it.
      if (req.lastUserText.startsWith("[SUPERVISOR/")) {
        return ircReplyScript()({ ...req, lastUserText: req.userTexts.filter((t) => parseIrcPrompt(t)).at(-1) ?? "" });
      }
      return ircReplyScript()(req);
    };
    const { human, api, started } = await setup({ script, config: { supervisor: { agent: "codex", eval_interval: 1, escalation_threshold: 5 } } });
    human.send(`PRIVMSG #test :@${NICK} judge me`);
    await reply(human, "#test", `@${NICK} judge me`);
    const d = await started;
    await eventually(() => api.turns().some((t) => t.system.includes("You are a supervisor monitoring")), "an evaluation request", 60_000);
    // A queued whisper rides on the agent's next turn: prompt only once the verdict is queued,
    // or on a busy machine the "next" turn can end before the evaluation does and nothing takes it.
    const whispered = () => {
      const page = d.daemon.feed.ipc({ type: "events", id: "feed" });
      const events = page?.ok ? (page.data as { events: { kind: string; text: string }[] }).events : [];
      return events.some((e) => e.kind === "whisper" && e.text.includes("slow down and answer"));
    };
    await eventually(whispered, "the verdict to be whispered", 60_000);
    human.send(`PRIVMSG #test :@${NICK} next`);
    await reply(human, "#test", `@${NICK} next`);
    await eventually(() => api.turns().some((t) => t.userTexts.some((u) => u.includes("[SUPERVISOR/CORRECTION] slow down and answer"))), "the verdict to reach the agent", 60_000);
    expect(d.daemon.status().running).toBe(true);
    const judged = api.turns().find((t) => t.system.includes("You are a supervisor monitoring") && t.afterToolResult);
    expect(judged?.toolResults.at(-1)?.output).toContain("CULTURE_NICK");
    expect(human.lines.some((l) => l.includes("from-the-judge"))).toBe(false);
  });
});
