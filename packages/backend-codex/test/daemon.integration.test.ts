/**
 * The codex backend end to end: a real InspIRCd, a real daemon loading the built backend by
 * name (`agent: codex`), the fake Codex CLI as the agent (the only fake), raw IRC clients as
 * humans, the real `culture` CLI, and for the whisper a real `supervisor.agent: command`
 * evaluator. Needs `npm run build` first.
 */
import { connectRawClient, parseRawLine, startIrcServer, type RawIrcClient, type RunningIrcServer } from "@culture/core/testing";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CLI, eventually, startCodexDaemon, type CodexDaemon, type CodexDaemonOptions } from "./helpers/codex-daemon-harness.js";

const EVALUATOR = fileURLToPath(new URL("./fixtures/scripted-evaluator.mjs", import.meta.url));

describe("the codex backend in a daemon on InspIRCd", () => {
  let server: RunningIrcServer;
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    server = await startIrcServer("inspircd");
  });
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  async function daemon(opts: Omit<CodexDaemonOptions, "port"> = {}): Promise<CodexDaemon> {
    const d = await startCodexDaemon({ port: server.port, ...opts });
    cleanups.push(() => d.stop());
    return d;
  }

  async function human(nick: string, channels: string[] = ["#test"]): Promise<RawIrcClient> {
    const c = await connectRawClient(server.port, nick);
    cleanups.push(() => c.close());
    for (const ch of channels) await c.join(ch);
    return c;
  }

  /** A PRIVMSG from `from` to `target` whose text matches `text`. */
  const privmsg = (from: string, target: string, text: RegExp) => (line: string) => {
    const p = parseRawLine(line);
    return p.command === "PRIVMSG" && p.nick === from && p.params[0] === target && text.test(p.params[1] ?? "");
  };

  it("turns a mention into the exact prompt, relays the reply, and lets the agent speak through `culture channel`", async () => {
    const d = await daemon();
    const alice = await human("alice");
    alice.send("PRIVMSG #test :hey @spark-codex, hello there");
    const reply = await alice.waitFor(privmsg("spark-codex", "#test", /^I heard: /));
    expect(parseRawLine(reply).params[1]).toBe("I heard: [IRC @mention in #test] <alice> hey @spark-codex, hello there");
    // The thread was started in the agent's directory with culture's agent prompt.
    const [start] = d.calls("thread/start");
    expect(start!.params).toMatchObject({ cwd: d.directory, approvalPolicy: "never", sandbox: "workspace-write" });
    expect(String(start!.params!.developerInstructions)).toContain("You are spark-codex");
    // The agent runs `culture channel send` (approval answered, CULTURE_NICK passed through);
    // relay auto then keeps the turn's final text off the channel.
    alice.send(`PRIVMSG #test :@spark-codex exec node ${CLI} channel send '#test' from-the-tool`);
    await alice.waitFor(privmsg("spark-codex", "#test", /^from-the-tool$/));
    alice.send("PRIVMSG #test :@spark-codex ping");
    const next = await alice.waitFor(privmsg("spark-codex", "#test", /./));
    expect(parseRawLine(next).params[1]).toBe("I heard: [IRC @mention in #test] <alice> @spark-codex ping");
  });

  it("an operator's abort interrupts the turn (turn/interrupt) and it ends as interrupted", async () => {
    const d = await daemon({ config: { operators: ["erin"], operators_by_nick: true } }); // no accounts on this server
    const erin = await human("erin");
    erin.send("PRIVMSG #test :@spark-codex hang");
    await eventually(() => d.daemon.status().activity === "working" && d.calls("turn/start").length === 1, "the turn to start");
    erin.send("PRIVMSG #test :@spark-codex abort");
    await erin.waitFor(privmsg("spark-codex", "#test", /^erin: aborted the current task\.$/));
    await eventually(() => d.daemon.status().activity === "idle", "the turn to end");
    const [interrupt] = d.calls("turn/interrupt");
    expect(interrupt!.params).toMatchObject({ threadId: d.daemon.status().session_id });
    erin.send("PRIVMSG #test :@spark-codex still there?");
    await erin.waitFor(privmsg("spark-codex", "#test", /^I heard: .*still there\?$/));
  });

  it("delivers a supervisor whisper into the running turn through turn/steer", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "culture-cx-eval-")), "said-correction");
    const d = await daemon({
      config: { supervisor: { agent: "command", command: [process.execPath, EVALUATOR, marker], eval_interval: 1 } },
    });
    const fay = await human("fay");
    fay.send("PRIVMSG #test :@spark-codex steer me");
    const line = await fay.waitFor(privmsg("spark-codex", "#test", /^steered: /));
    expect(parseRawLine(line).params[1]).toBe("steered: [SUPERVISOR/CORRECTION] focus on the failing test");
    const [steer] = d.calls("turn/steer");
    expect(steer!.params).toMatchObject({ threadId: d.daemon.status().session_id, expectedTurnId: expect.stringMatching(/^turn_/) });
  });

  it("resumes the thread after a crash (thread/resume in a new process)", async () => {
    const d = await daemon();
    const gus = await human("gus", ["#test", "#alerts"]);
    gus.send("PRIVMSG #test :@spark-codex hello");
    await gus.waitFor(privmsg("spark-codex", "#test", /^I heard: /));
    const threadId = d.daemon.status().session_id;
    expect(threadId).toMatch(/^thr_/);
    gus.send("PRIVMSG #test :@spark-codex crash 3");
    await gus.waitFor(privmsg("spark-codex", "#alerts", /^\[ERROR\] spark-codex crashed: process exited with code 3$/));
    // The daemon's resume prompt (not relayed: it has no origin) runs in the resumed thread.
    const resumeTurn = await eventually(
      () => d.calls("turn/start").find((e) => JSON.stringify(e.params).includes("[culture] Your previous agent session ended unexpectedly")),
      "the resume prompt",
    );
    expect(resumeTurn!.params).toMatchObject({ threadId });
    await eventually(() => d.daemon.status().activity === "idle", "the resume turn to end");
    expect(d.daemon.status()).toMatchObject({ running: true, session_id: threadId });
    gus.send("PRIVMSG #test :@spark-codex welcome back");
    await gus.waitFor(privmsg("spark-codex", "#test", /^I heard: .*welcome back$/));
    const [resume] = d.calls("thread/resume");
    expect(resume!.params).toMatchObject({ threadId });
    const pids = new Set(d.events().map((e) => e.pid));
    expect(pids.size).toBe(2);
    expect(d.calls("thread/start")).toHaveLength(1);
  });

  it("a Codex that is not signed in raises one alert naming `codex login` and is not restarted", async () => {
    const d = await daemon({ fakeEnv: { FAKE_CODEX_AUTH: "turn" } });
    const hal = await human("hal", ["#test", "#alerts"]);
    hal.send("PRIVMSG #test :@spark-codex hello");
    // One IRC line carries the whole alert, fix included.
    await hal.waitFor(privmsg("spark-codex", "#alerts", /^\[ERROR\] spark-codex cannot run its agent: .*requires authentication.*codex login/));
    await eventually(() => d.daemon.status().circuit_open, "the circuit to open");
    // Another mention is kept for when an operator resumes: no new process, no new turn.
    hal.send("PRIVMSG #test :@spark-codex are you there?");
    await eventually(() => d.daemon.status().queued_prompts === 1, "the mention to be kept");
    expect(d.daemon.status().description).toMatch(/^agent cannot run: .*requires authentication/);
    expect(d.calls("turn/start")).toHaveLength(1);
    expect(new Set(d.events().map((e) => e.pid)).size).toBe(1);
    const alerts = hal.lines.filter((l) => privmsg("spark-codex", "#alerts", /cannot run its agent/)(l));
    expect(alerts).toHaveLength(1);
  });
});
