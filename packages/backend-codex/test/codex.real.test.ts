/**
 * The codex backend proven against the REAL Codex CLI (0.169.0, `codex app-server`, its native
 * binary), in culture's real daemon on the embedded IRC server, with a scripted OpenAI
 * Responses API as the model (the only fake). The agent speaks on IRC by running
 * `culture channel send` itself, inside Codex's default `workspace-write` sandbox.
 * Needs `npm run build` and `node scripts/install-agent-clis.mjs codex`.
 */
import { connectRawClient, eventually, ircReplyScript, parseRawLine, type RawIrcClient, type ScriptedModelApi, type TestDaemon } from "@culture/core/testing";
import { startServer, type IrcServer } from "@culture/server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { makeCodexHome, startRealCodexDaemon, startResponsesApi, type CodexHome, type RealCodexDaemonOptions } from "./helpers/real-codex.js";

const NICK = "spark-codex";

describe("the codex backend with the real Codex CLI", () => {
  let irc: IrcServer;
  const cleanups: Array<() => Promise<void> | void> = [];

  beforeAll(async () => {
    irc = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
  });
  afterAll(async () => {
    await irc?.close();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
  });

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
  async function setup(opts: Partial<Omit<RealCodexDaemonOptions, "ircPort" | "api" | "home">> & { humanNick?: string } = {}): Promise<Setup> {
    const api = await startResponsesApi(ircReplyScript());
    cleanups.push(() => api.close());
    const home = makeCodexHome(api);
    cleanups.push(() => home.remove());
    const human = await connectRawClient(irc.port, opts.humanNick ?? "alice");
    cleanups.push(() => human.close());
    await human.join("#test");
    await human.join("#alerts");
    const started = startRealCodexDaemon({ ircPort: irc.port, api, home, ...opts });
    cleanups.push(async () => (await started.catch(() => undefined))?.stop());
    await human.waitFor((_, p) => p.command === "JOIN" && p.nick === (opts.nick ?? NICK) && p.params[0] === "#test", 30_000);
    return { api, home, human, started };
  }

  const privmsg = (target: string, text: RegExp, from = NICK) => (line: string) => {
    const p = parseRawLine(line);
    return p.command === "PRIVMSG" && p.nick === from && p.params[0] === target && text.test(p.params[1] ?? "");
  };

  it("a mention sent the moment the daemon joined: the agent runs `culture channel send` itself, in the default sandbox", async () => {
    const { api, human, started } = await setup();
    human.send(`PRIVMSG #test :@${NICK} hello there`);
    const reply = await human.waitFor(privmsg("#test", /./), 60_000);
    expect(parseRawLine(reply).params[1]).toBe(`echo: @${NICK} hello there (prompt 1)`);
    const d = await started;
    // The reply came from the agent's own shell call, not the relay: the tool result is culture's output.
    const toolTurn = await eventually(() => api.turns().find((t) => t.afterToolResult), "the tool result to reach the model");
    expect(toolTurn.toolResults.at(-1)?.output).toMatch(/Process exited with code 0/);
    await eventually(() => d.daemon.status().activity === "idle", "the turn to end");
  });
});
