/**
 * The Claude backend end to end: a real InspIRCd, a real agent daemon with `agent: claude`
 * (found through culture's own install, so `npm run build` first), the real Claude Agent SDK
 * driving the fake Claude Code CLI, real IRC clients acting as humans, and the real
 * `culture channel` CLI run by the fake's Bash tool. The only fake is Claude Code.
 */
import { createLogger, type AgentDaemon } from "@culture/core";
import { connectRawClient, parseRawLine, startIrcServer, startTestDaemon, type RawIrcClient, type RunningIrcServer } from "@culture/core/testing";
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FAKE_CLAUDE, type FakeEvent } from "./fake-claude-harness.js";

const CLI = fileURLToPath(new URL("../../cli/dist/main.js", import.meta.url));
const EVALUATOR = fileURLToPath(new URL("./fixtures/scripted-evaluator.mjs", import.meta.url));
const NICK = "spark-claude";

interface TestDaemon {
  daemon: AgentDaemon;
  home: string;
  /** The daemon's log lines. */
  lines: string[];
  events(): FakeEvent[];
  eventsOf(kind: string): FakeEvent[];
}

describe("the claude backend in a daemon on InspIRCd", () => {
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

  async function daemon(opts: { agent?: Record<string, unknown>; config?: Record<string, unknown> } = {}): Promise<TestDaemon> {
    const home = mkdtempSync(join(tmpdir(), "culture-ce-"));
    const directory = join(home, "project");
    mkdirSync(directory);
    const logFile = join(home, "fake.log");
    const lines: string[] = [];
    const d = await startTestDaemon({
      port: server.port,
      nick: NICK,
      home,
      ...(opts.config ? { config: opts.config } : {}),
      agent: { agent: "claude", directory, executable: FAKE_CLAUDE, api_retry_delay_seconds: 0.05, ...opts.agent },
      // A key, as a signed-in user has: without one the daemon's preflight (claude-doctor.ts) holds every prompt.
      env: { ANTHROPIC_API_KEY: "sk-ant-test", FAKE_CLAUDE_LOG: logFile, FAKE_CLAUDE_STATE: join(home, "sessions"), FAKE_EVALUATOR_STATE: join(home, "evaluator") },
      logger: createLogger({ level: "debug", write: (line) => lines.push(line), scope: NICK }),
    });
    cleanups.push(() => d.stop());
    const events = (): FakeEvent[] =>
      existsSync(logFile)
        ? readFileSync(logFile, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as FakeEvent)
        : [];
    return { daemon: d.daemon, home, lines, events, eventsOf: (kind) => events().filter((e) => e.event === kind) };
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

  it("hands a mention to Claude Code as the exact prompt, and the agent answers on IRC through culture channel", async () => {
    const d = await daemon();
    const alice = await human("alice");
    const said = `@${NICK} exec node ${CLI} channel send '#test' hello-from-claude && echo final-text`;
    alice.send(`PRIVMSG #test :${said}`);
    await alice.waitFor(privmsg(NICK, "#test", /^hello-from-claude$/));
    expect(d.eventsOf("user").map((e) => e.text)).toEqual([`[IRC @mention in #test] <alice> ${said}`]);
    // The agent posted to the origin itself, so (relay: auto) its final text is not relayed: the
    // next line from the agent is the answer to the next mention.
    alice.send(`PRIVMSG #test :@${NICK} ping`);
    const next = await alice.waitFor(privmsg(NICK, "#test", /./));
    expect(parseRawLine(next).params[1]).toBe(`I heard: [IRC @mention in #test] <alice> @${NICK} ping`);
    // One long-lived Claude Code session, with culture's agent prompt appended to Claude Code's.
    expect(d.eventsOf("spawn")).toHaveLength(1);
    expect(String(d.eventsOf("initialize")[0]!.request!.appendSystemPrompt)).toContain(`You are ${NICK}`);
    expect(d.daemon.status()).toMatchObject({ backend: "claude", running: true, turn_count: 2 });
  });

  it("feeds tool calls to the supervisor and delivers its correction at the next tool call", async () => {
    const d = await daemon({
      config: { supervisor: { agent: "command", command: [process.execPath, EVALUATOR], eval_interval: 1, escalation_threshold: 5 } },
    });
    const bob = await human("bob");
    bob.send(`PRIVMSG #test :@${NICK} tool first`);
    await bob.waitFor(privmsg(NICK, "#test", /^tool done$/));
    // The tool call reached the supervisor, whose evaluator answered CORRECTION; the whisper
    // waits for the agent's next tool boundary.
    const marker = join(d.home, "evaluator", "corrected");
    await waitUntil(() => existsSync(marker) && d.lines.some((l) => l.includes("supervisor] whisper ")));
    const prompts = readFileSync(join(d.home, "evaluator", "prompts.log"), "utf8");
    expect(prompts).toContain("tool call: Read");
    bob.send(`PRIVMSG #test :@${NICK} tool second`);
    await bob.waitFor(privmsg(NICK, "#test", /^tool done; context: \[SUPERVISOR\/CORRECTION\] Stop and re-read the failing test\.$/));
    const contexts = d.eventsOf("hook").map((e) => e.answer?.response?.hookSpecificOutput?.additionalContext ?? null);
    expect(contexts).toEqual([null, "[SUPERVISOR/CORRECTION] Stop and re-read the failing test."]);
  });

  it("restarts a crashed Claude Code resuming the same session, and opens the circuit after three crashes", async () => {
    const d = await daemon();
    const erin = await human("erin", ["#test", "#alerts"]);
    erin.send(`PRIVMSG #test :@${NICK} hello`);
    await erin.waitFor(privmsg(NICK, "#test", /^I heard: /));
    const session = d.daemon.status().session_id;
    expect(session).toMatch(/^[0-9a-f-]{36}$/);

    erin.send(`PRIVMSG #test :@${NICK} crash`);
    await erin.waitFor(privmsg(NICK, "#alerts", /^\[ERROR\] spark-claude crashed: process exited with code 3$/));
    await waitUntil(() => d.daemon.status().running && d.daemon.status().turn_count >= 3);
    expect(d.daemon.status().session_id).toBe(session);
    const spawns = d.eventsOf("spawn");
    expect(spawns).toHaveLength(2);
    expect(spawns[1]!.argv).toContain(`--resume=${session}`);
    // The restarted session's first turn is the daemon's resume prompt.
    expect(d.eventsOf("user").at(-1)!.text).toMatch(/^\[culture\] Your previous agent session ended unexpectedly \(process exited with code 3\)/);

    erin.send(`PRIVMSG #test :@${NICK} crash`);
    await waitUntil(() => d.daemon.status().running && d.daemon.status().turn_count >= 5);
    erin.send(`PRIVMSG #test :@${NICK} crash`);
    await erin.waitFor(privmsg(NICK, "#alerts", /^\[SPIRALING\] .*restarts stopped/));
    await waitUntil(() => d.daemon.status().circuit_open);
    expect(d.daemon.status().running).toBe(false);
    expect(d.eventsOf("spawn")).toHaveLength(3);
    expect(new Set(d.eventsOf("spawn").slice(1).map((s) => s.argv!.find((a) => a.startsWith("--resume="))))).toEqual(new Set([`--resume=${session}`]));
  });

  it("turns an authentication error into one alert naming claude login, with no restart loop", async () => {
    const d = await daemon({ agent: { env: { FAKE_CLAUDE_AUTH_ERROR: "1" } } });
    const fay = await human("fay", ["#test", "#alerts"]);
    const mark = fay.lines.length;
    fay.send(`PRIVMSG #test :@${NICK} hello?`);
    const alert = await fay.waitFor(privmsg(NICK, "#alerts", /^\[ERROR\] spark-claude cannot run its agent: /));
    expect(parseRawLine(alert).params[1]).toContain("requires authentication");
    await waitUntil(() => d.daemon.status().circuit_open);
    expect(d.daemon.status().description).toMatch(/^agent cannot run: /);
    // More mentions wait for an operator; nothing is restarted. Give a restart loop every
    // chance to show itself (ten restart delays), then count.
    fay.send(`PRIVMSG #test :@${NICK} hello again?`);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(d.eventsOf("spawn")).toHaveLength(1);
    expect(d.eventsOf("user")).toHaveLength(1);
    const alertLines = fay
      .since(mark)
      .map(parseRawLine)
      .filter((p) => p.command === "PRIVMSG" && p.nick === NICK && p.params[0] === "#alerts")
      .map((p) => p.params[1] ?? "");
    // One alert (its message spans several IRC lines), and it names the fix.
    expect(alertLines.filter((l) => l.startsWith("["))).toHaveLength(1);
    expect(alertLines.join("\n")).toContain("claude login");
    expect(alertLines.join("\n")).toContain("ANTHROPIC_API_KEY");
    // The synthetic "Invalid API key" text was never relayed to the channel.
    expect(fay.since(mark).some((l) => l.includes("Invalid API key"))).toBe(false);
  });
});

/** Polls `check` every 50 ms until it is true (vitest's timeout bounds it). */
async function waitUntil(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 50));
}
