/**
 * The cases every real ACP agent suite runs (OpenCode, Gemini CLI), in one order on one live
 * daemon, so the agent's session (and the model's request history) carries across them. Each
 * suite calls {@link describeRealAcpAgent}; a case an agent cannot pass is listed in `skip`
 * with the reason (docs/backends/acp.md names it as a known limit).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  eventually,
  ircReplyScript,
  meteredTurns,
  parseIrcPrompt,
  parseRawLine,
  shQuote,
  type ModelReply,
  type ModelRequest,
  type ModelScript,
} from "@culture/core/testing";
import { idle, startRealAcpRig, type RealAcpAgentName, type RealAcpRig } from "./real-acp-rig.js";

/** How many IRC prompts a model request's history holds. */
export function ircPromptCount(req: ModelRequest): number {
  return req.userTexts.filter((t) => parseIrcPrompt(t)).length;
}

/** The newest model request that offered tools (a real agent turn, not a title or helper call). */
function lastAgentTurn(rig: RealAcpRig): ModelRequest {
  const turns = rig.api.turns().filter((t) => t.tools.length > 0);
  const last = turns.at(-1);
  if (!last) throw new Error("no agent turn reached the model API");
  return last;
}

/** Eight different, ordinary shell commands. */
export const EIGHT_COMMANDS = ["echo one", "pwd", "date +%Y", "uname -s", "ls -a", "printf seven", "true", "id -u"];

/**
 * A script that, on a mention whose text contains `run eight`, runs {@link EIGHT_COMMANDS} one
 * per model turn and then answers on IRC; on `repeat` runs `false` until a supervisor whisper
 * shows up in a tool result (then says so on IRC); on `hang` never answers; otherwise the
 * usual {@link ircReplyScript}.
 */
/** What a test switches in the case script: failures the model API answers with. */
interface ScriptControl {
  /** Statuses to answer the next agent requests with, one each (429, 529 ...). */
  failures: number[];
  /** While true, every agent request gets 401. */
  unauthorized: boolean;
}

function caseScript(control: ScriptControl): ModelScript {
  let step = -1;
  let mode: "eight" | "repeat" | null = null;
  const base = ircReplyScript();
  return (req): ModelReply | Promise<ModelReply> => {
    if (control.unauthorized) return { fail: 401, message: "Incorrect API key provided: dummy." };
    if (req.tools.length === 0) return { text: "ok" };
    const failure = control.failures.shift();
    if (failure !== undefined) return { fail: failure, message: `scripted ${failure}` };
    const prompt = req.afterToolResult ? undefined : parseIrcPrompt(req.lastUserText);
    if (prompt) {
      step = -1;
      mode = /run eight/.test(prompt.text) ? "eight" : /repeat/.test(prompt.text) ? "repeat" : null;
      if (/hang/.test(prompt.text)) return { hang: true };
    }
    const target = parseIrcPrompt(req.userTexts.filter((t) => parseIrcPrompt(t)).at(-1) ?? "")?.target ?? "#test";
    if (mode === "eight") {
      step++;
      if (step < EIGHT_COMMANDS.length) return { shell: EIGHT_COMMANDS[step]! };
      if (step === EIGHT_COMMANDS.length) return { shell: `culture channel send ${shQuote(target)} 'eight done'` };
      mode = null;
      return { text: "done" };
    }
    if (mode === "repeat") {
      step++;
      const whispered = req.toolResults.some((r) => r.output.includes("[SUPERVISOR/CORRECTION]"));
      if (whispered) {
        mode = null;
        step = 100;
        return { shell: `culture channel send ${shQuote(target)} 'heard the supervisor'` };
      }
      if (step > 40) {
        mode = null;
        return { text: "no whisper came" };
      }
      // `false` three times (a real loop), then `culture channel read` picks up queued whispers.
      return { shell: step < 3 ? "false" : `culture channel read ${shQuote(target)} 1` };
    }
    if (step === 100) {
      step = -1;
      return { text: "done" };
    }
    return base(req);
  };
}

/** What a suite may leave out, with the reason. */
export interface RealAcpAgentSuiteOptions {
  skip?: Partial<Record<"resume", string>>;
}

/** The real-agent suite of one ACP agent. */
export function describeRealAcpAgent(agent: RealAcpAgentName, options: RealAcpAgentSuiteOptions = {}): void {
  describe(`the real ${agent} through culture's daemon on a real IRC server`, () => {
    let rig: RealAcpRig;
    let firstMentionSent = false;
    const control: ScriptControl = { failures: [], unauthorized: false };

    beforeAll(async () => {
      rig = await startRealAcpRig({
        agent,
        script: caseScript(control),
        entry: { turn_timeout_seconds: 30 },
        onJoined: (olga, nick) => {
          // Spoken the moment the daemon has joined, while its agent is still starting.
          olga.send(`PRIVMSG #test :@${nick} hello`);
          firstMentionSent = true;
        },
      });
    }, 120_000);
    afterAll(async () => {
      await rig?.close();
    }, 60_000);

    it("answers a mention sent the moment it joined: the agent itself runs `culture channel send`", async () => {
      expect(firstMentionSent).toBe(true);
      await rig.said("#test", /^echo: @spark-\w+ hello \(prompt 1\)$/);
      await idle(rig);
      // The reply came from the agent's shell, so the turn's closing text ("done") is not relayed.
      expect(rig.lines("#test")).toEqual([`echo: @${rig.nick} hello (prompt 1)`]);
      // One agent: the early mention waited for the starting agent instead of starting another.
      expect(rig.agentPids()).toHaveLength(1);
      const call = rig.api.requests.find((r) => r.reply && "shell" in r.reply);
      expect(call).toBeDefined();
    });

    it("keeps the history across mentions in one live session, and meters the turn's tokens as the agent reports them", async () => {
      const session = rig.d.daemon.status().session_id;
      const recorded = (await eventually(() => (meteredTurns(rig.d).length > 0 ? meteredTurns(rig.d) : undefined), "the first turn's usage record"))!.length;
      const from = rig.api.requests.length;
      rig.olga.send(`PRIVMSG #test :@${rig.nick} second`);
      await rig.said("#test", /^echo: @spark-\w+ second \(prompt 2\)$/);
      await idle(rig);
      expect(ircPromptCount(lastAgentTurn(rig))).toBe(2);
      expect(rig.d.daemon.status().session_id).toBe(session);
      const turn = (await eventually(() => (meteredTurns(rig.d).length > recorded ? meteredTurns(rig.d) : undefined), "the turn's usage record"))!.at(-1)!;
      expect(turn).toMatchObject({ kind: "mention", channel: "#test", nick: "olga", reported: true });
      const calls = rig.api.requests.slice(from).filter((r) => r.usage);
      expect(calls.length).toBeGreaterThan(1); // a shell call, then the closing text
      if (agent === "gemini") {
        // Gemini CLI sums promptTokenCount and candidatesTokenCount over the turn's model calls
        // (_meta.quota); it passes on no cached or thought counts.
        const served = rig.api.servedUsage(from);
        expect([turn.tokens.input, turn.tokens.output]).toEqual([served.input, served.output]);
      } else {
        // OpenCode reports the usage of the turn's LAST model call (its prompt response's
        // `usage`), with the cached part and the reasoning; earlier calls of the turn are not in it.
        const last = calls.at(-1)!.usage!;
        expect(turn.tokens).toEqual(last);
      }
    });

    it("eight different ordinary shell commands in a row: no supervisor whisper, not paused", async () => {
      const evaluations = rig.d.daemon.status().supervisor?.evaluations ?? 0;
      rig.olga.send(`PRIVMSG #test :@${rig.nick} run eight`);
      await rig.said("#test", /^eight done$/);
      await idle(rig);
      await eventually(() => (rig.d.daemon.status().supervisor?.evaluations ?? 0) > evaluations, "a supervisor evaluation");
      const ran = rig.api.requests.flatMap((r) => (r.reply && "shell" in r.reply ? [r.reply.shell] : []));
      for (const command of EIGHT_COMMANDS) expect(ran).toContain(command);
      const status = rig.d.daemon.status();
      expect(status.paused).toBe(false);
      expect(status.supervisor?.ladder_step).toBe(0);
      expect(rig.api.turns().some((t) => t.toolResults.some((r) => r.output.includes("[SUPERVISOR/")))).toBe(false);
    });

    it("a supervisor whisper reaches the model (through `culture channel` in the agent's shell)", async () => {
      rig.olga.send(`PRIVMSG #test :@${rig.nick} repeat`);
      await rig.said("#test", /^heard the supervisor$/);
      await idle(rig);
      const seen = rig.api.turns().flatMap((t) => t.toolResults.map((r) => r.output)).find((o) => o.includes("[SUPERVISOR/CORRECTION]"));
      expect(seen).toMatch(/same \S+ call/);
      await rig.d.daemon.resume(); // resets the ladder for the cases below
    });

    it("answers three mentions sent in a burst, each as its own prompt, in order", async () => {
      for (const word of ["alpha", "beta", "gamma"]) rig.olga.send(`PRIVMSG #test :@${rig.nick} ${word}`);
      const a = await rig.said("#test", /^echo: @spark-\w+ alpha \(prompt \d+\)$/);
      const b = await rig.said("#test", /^echo: @spark-\w+ beta \(prompt \d+\)$/);
      const c = await rig.said("#test", /^echo: @spark-\w+ gamma \(prompt \d+\)$/);
      const n = [a, b, c].map((l) => Number(/\(prompt (\d+)\)/.exec(parseRawLine(l).params[1]!)![1]));
      expect(n[1]).toBe(n[0]! + 1);
      expect(n[2]).toBe(n[1]! + 1);
      await idle(rig);
    });

    it("answers a DM in the DM", async () => {
      rig.olga.send(`PRIVMSG ${rig.nick} :psst`);
      await rig.said("olga", /^echo: psst \(prompt \d+\)$/);
      await idle(rig);
    });

    it("an operator's abort cancels a turn whose model hangs; the next mention is answered", async () => {
      rig.olga.send(`PRIVMSG #test :@${rig.nick} hang`);
      await eventually(() => rig.d.daemon.status().activity === "working", "the hanging turn");
      rig.olga.send(`PRIVMSG #test :@${rig.nick} abort`);
      await rig.said("#test", /^olga: aborted the current task/);
      await idle(rig, "the cancelled turn to end");
      rig.olga.send(`PRIVMSG #test :@${rig.nick} after abort`);
      await rig.said("#test", /^echo: @spark-\w+ after abort \(prompt \d+\)$/);
      await idle(rig);
    });

    it("kill -9 of the agent: one alert, a restart, the session resumed, the next mention answered with its history", async () => {
      const before = ircPromptCount(lastAgentTurn(rig));
      const session = rig.d.daemon.status().session_id;
      const pids = rig.agentPids();
      expect(pids).toHaveLength(1);
      process.kill(pids[0]!, "SIGKILL");
      await rig.said("#alerts", /^\[ERROR\] spark-\w+ crashed: process exited with code 137 \(killed by SIGKILL\)$/);
      // Gemini CLI's restart may wait for the next minute before loading (session-load-quirks.ts).
      await eventually(() => rig.d.daemon.status().running && !pids.includes(rig.agentPids()[0]!), "a new agent process", 100_000);
      await idle(rig, "the restarted agent's resume turn to end");
      rig.olga.send(`PRIVMSG #test :@${rig.nick} after crash`);
      const reply = await rig.said("#test", /^echo: @spark-\w+ after crash \(prompt \d+\)$/);
      await idle(rig);
      expect(rig.olga.lines.filter((l) => /PRIVMSG #alerts :\[ERROR\]/.test(l))).toHaveLength(1);
      if (options.skip?.resume) return;
      expect(rig.d.daemon.status().session_id).toBe(session);
      expect(rig.d.daemon.status().history_lost).toBeUndefined();
      // The history came back: the model sees every earlier IRC prompt and this one.
      expect(Number(/\(prompt (\d+)\)/.exec(parseRawLine(reply).params[1]!)![1])).toBeGreaterThan(before);
    }, 180_000);

    it("retries a 429 and a 529 from the model and answers", async () => {
      control.failures = [429, 529];
      const from = rig.api.requests.length;
      rig.olga.send(`PRIVMSG #test :@${rig.nick} busy`);
      await rig.said("#test", /^echo: @spark-\w+ busy \(prompt \d+\)$/, 150_000);
      await idle(rig);
      const statuses = rig.api.requests.slice(from).filter((r) => r.model && r.model.tools.length > 0).map((r) => r.status);
      expect(statuses.slice(0, 3)).toEqual([429, 529, 200]);
    }, 180_000);

    it("a turn whose model hangs times out: the origin is told, and the next mention is answered", async () => {
      rig.olga.send(`PRIVMSG #test :@${rig.nick} hang until the timeout`);
      await rig.said("#test", /^Sorry, I got stuck on that \(no output for 30s\) and stopped the attempt\.$/, 90_000);
      await idle(rig, "the timed-out turn to end");
      rig.olga.send(`PRIVMSG #test :@${rig.nick} after timeout`);
      await rig.said("#test", /^echo: @spark-\w+ after timeout \(prompt \d+\)$/);
      await idle(rig);
    }, 180_000);

    it("a 401 from the model: one alert, the circuit open; an operator's resume makes it work again", async () => {
      control.unauthorized = true;
      rig.olga.send(`PRIVMSG #test :@${rig.nick} who am i`);
      await rig.said("#alerts", /^\[ERROR\] spark-\w+ cannot run its agent: .*(401|auth|key)/i, 120_000);
      await eventually(() => rig.d.daemon.status().circuit_open, "the circuit to open");
      control.unauthorized = false;
      rig.olga.send(`PRIVMSG #test :@${rig.nick} resume`);
      await idle(rig, "the resumed agent");
      rig.olga.send(`PRIVMSG #test :@${rig.nick} after resume`);
      await rig.said("#test", /^echo: @spark-\w+ after resume \(prompt \d+\)$/);
      await idle(rig);
      expect(rig.olga.lines.filter((l) => /PRIVMSG #alerts :\[ERROR\] \S+ cannot run/.test(l))).toHaveLength(1);
    }, 180_000);
  });
}