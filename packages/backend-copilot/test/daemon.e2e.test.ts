/**
 * The Copilot backend end to end: a real IRC server (InspIRCd), a real culture daemon with
 * `agent: copilot` (the built backend, found as culture's built-in), the real Copilot SDK,
 * and the fake runtime as the only fake. Humans are raw IRC clients. Build first
 * (`npm run build`): the daemon loads the backend from dist/, and the fake runs the built CLI.
 */
import type { AgentDaemon } from "@culture/core";
import { connectRawClient, parseRawLine, startIrcServer, startTestDaemon, type RawIrcClient, type RunningIrcServer } from "@culture/core/testing";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FAKE_RUNTIME, type FakeLogEntry } from "./fake-runtime-harness.js";

const CLI = fileURLToPath(new URL("../../cli/dist/main.js", import.meta.url));
const NICK = "spark-copilot";

interface TestDaemon {
  daemon: AgentDaemon;
  log(): FakeLogEntry[];
  received(method: string): FakeLogEntry[];
}

describe("the copilot backend in a daemon on InspIRCd", () => {
  let server: RunningIrcServer;
  const cleanups: Array<() => Promise<void> | void> = [];

  beforeAll(async () => {
    server = await startIrcServer("inspircd");
  });
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
  });

  async function daemon(config: Record<string, unknown> = {}, extraEnv: Record<string, string> = {}): Promise<TestDaemon> {
    const home = realpathSync(mkdtempSync(join(tmpdir(), "culture-cop-")));
    const project = join(home, "project");
    mkdirSync(project);
    const logFile = join(home, "fake.log");
    const d = await startTestDaemon({
      port: server.port,
      nick: NICK,
      home,
      config,
      agent: { agent: "copilot", directory: project, executable: FAKE_RUNTIME },
      env: { FAKE_COPILOT_LOG: logFile, FAKE_COPILOT_STATE: join(home, "fake-state"), ...extraEnv },
    });
    cleanups.push(() => d.stop());
    const log = (): FakeLogEntry[] =>
      existsSync(logFile)
        ? readFileSync(logFile, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as FakeLogEntry)
        : [];
    return { daemon: d.daemon, log, received: (method) => log().filter((e) => e.kind === "recv" && e.method === method) };
  }

  async function human(nick: string, channels: string[] = ["#test"]): Promise<RawIrcClient> {
    const c = await connectRawClient(server.port, nick);
    cleanups.push(() => c.close());
    for (const ch of channels) await c.join(ch);
    return c;
  }

  const privmsg = (from: string, target: string, text: RegExp) => (line: string) => {
    const p = parseRawLine(line);
    return p.command === "PRIVMSG" && p.nick === from && p.params[0] === target && text.test(p.params[1] ?? "");
  };

  it("turns a mention into the exact prompt and relays the reply; the agent speaks through culture channel", async () => {
    const d = await daemon();
    const alice = await human("alice");
    alice.send(`PRIVMSG #test :@${NICK} hello there`);
    const reply = await alice.waitFor(privmsg(NICK, "#test", /^I heard: /));
    expect(parseRawLine(reply).params[1]).toBe(`I heard: [IRC @mention in #test] <alice> @${NICK} hello there`);
    expect(d.received("session.send").map((e) => e.params!.prompt)).toEqual([`[IRC @mention in #test] <alice> @${NICK} hello there`]);
    // The runtime's shell has CULTURE_NICK: `culture channel send` reaches IRC, and relay auto
    // does not repeat the turn's final text where the agent already spoke.
    alice.send(`PRIVMSG #test :@${NICK} exec node ${CLI} channel send '#test' from-the-tool && echo final-text`);
    await alice.waitFor(privmsg(NICK, "#test", /^from-the-tool$/));
    alice.send(`PRIVMSG #test :@${NICK} ping`);
    const next = await alice.waitFor(privmsg(NICK, "#test", /./));
    expect(parseRawLine(next).params[1]).toBe(`I heard: [IRC @mention in #test] <alice> @${NICK} ping`);
  });

  it("shows tool calls to the supervisor (a Copilot evaluator) and delivers its whisper at a tool boundary", async () => {
    const d = await daemon(
      { supervisor: { agent: "copilot", model: "fake-small", eval_interval: 1, escalation_threshold: 10 } },
      { FAKE_COPILOT_VERDICT: "CORRECTION stop re-reading notes.txt" },
    );
    const bob = await human("bob");
    bob.send(`PRIVMSG #test :@${NICK} tool`);
    await bob.waitFor(privmsg(NICK, "#test", /^Done: the notes/));
    // The evaluator's session (a runtime of its own) was shown the tool call and its input.
    const evaluation = await eventually(() =>
      d.received("session.send").find((e) => e.params!.prompt?.startsWith(`Agent: ${NICK}`) && e.params!.prompt.includes("cat notes.txt")),
    );
    expect(evaluation.params!.prompt).toContain("bash");
    // The CORRECTION is queued for the agent; the next tool call's hook hands it over.
    let reply = "";
    for (let i = 0; i < 10 && !reply.includes("[SUPERVISOR/CORRECTION]"); i++) {
      bob.send(`PRIVMSG #test :@${NICK} tool`);
      reply = parseRawLine(await bob.waitFor(privmsg(NICK, "#test", /^Done: the notes/))).params[1] ?? "";
    }
    expect(reply).toBe("Done: the notes | context: [SUPERVISOR/CORRECTION] stop re-reading notes.txt");
  });

  it("aborts a hanging turn on an operator's abort, and keeps serving", async () => {
    const d = await daemon({ operators: ["erin"], operators_by_nick: true }); // no accounts on this server
    const erin = await human("erin");
    erin.send(`PRIVMSG #test :@${NICK} hang`);
    await eventually(() => d.received("session.send").length === 1);
    erin.send(`PRIVMSG #test :@${NICK} abort`);
    await erin.waitFor(privmsg(NICK, "#test", /^erin: aborted the current task/));
    expect(d.received("session.abort")).toHaveLength(1);
    erin.send(`PRIVMSG #test :@${NICK} ping`);
    await erin.waitFor(privmsg(NICK, "#test", new RegExp(`^I heard: \\[IRC @mention in #test\\] <erin> @${NICK} ping$`)));
  });

  it("raises one alert when the runtime is signed out, and does not restart it in a loop", async () => {
    const d = await daemon();
    const carol = await human("carol", ["#test", "#alerts"]);
    carol.send(`PRIVMSG #test :@${NICK} signout`);
    const alert = await carol.waitFor(privmsg(NICK, "#alerts", /cannot run its agent/));
    expect(parseRawLine(alert).params[1]).toContain("requires authentication");
    await eventually(() => d.daemon.status().circuit_open && !d.daemon.status().running);
    // More mentions, and several restart delays (0.2 s), later: still one runtime, one alert.
    carol.send(`PRIVMSG #test :@${NICK} are you there?`);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(d.log().filter((e) => e.kind === "start")).toHaveLength(1);
    const alerts = carol.lines.map(parseRawLine).filter((p) => p.command === "PRIVMSG" && p.params[0] === "#alerts" && /cannot run/.test(p.params[1] ?? ""));
    expect(alerts).toHaveLength(1);
  });

  it("restarts a crashed runtime and resumes its session", async () => {
    const d = await daemon();
    const dave = await human("dave", ["#test", "#alerts"]);
    const firstSession = d.daemon.status().session_id;
    expect(firstSession).toBeTruthy();
    dave.send(`PRIVMSG #test :@${NICK} crash`);
    await dave.waitFor(privmsg(NICK, "#alerts", /^\[ERROR\] spark-copilot crashed: process exited with code 3$/));
    await eventually(() => d.daemon.status().running && d.daemon.status().turn_count >= 2);
    expect(d.log().filter((e) => e.kind === "start")).toHaveLength(2);
    expect(d.received("session.resume").map((e) => e.params!.sessionId)).toEqual([firstSession]);
    expect(d.daemon.status().session_id).toBe(firstSession);
    dave.send(`PRIVMSG #test :@${NICK} history`);
    // crash, the resume prompt, and this one: the conversation went on in the same session.
    await dave.waitFor(privmsg(NICK, "#test", new RegExp(`^history: 3 prompts in session ${firstSession}$`)));
  });
});

async function eventually<T>(check: () => T | undefined | null | false): Promise<T> {
  for (;;) {
    const value = check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
