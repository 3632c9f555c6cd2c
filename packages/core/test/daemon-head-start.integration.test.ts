/**
 * The agent starts beside the IRC connect (daemon/agent-head-start.ts), on the embedded server
 * behind a TCP proxy that can hold the daemon's registration: the agent's runner is up while
 * the daemon is still registering, yet nothing is prompted before the daemon runs; what the
 * agent reported before the alerts existed still reaches #alerts; a preflight that says the
 * agent cannot run, a runner start that fails, and an IRC server that cannot be reached are
 * reported as they were when the agent started after the join, leaving no agent process.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, type IrcServer } from "@culture/server";
import { isCultureError } from "../src/errors.js";
import { startTcpProxy, type TcpProxy } from "../src/testing/chaos/tcp-proxy.js";
import { connectRawClient, freePort, parseRawLine, type RawIrcClient } from "../src/testing/irc-servers.js";
import { agentProcesses, createTestDaemon, eventually, type CreatedTestDaemon } from "./helpers/daemon-harness.js";

describe("the agent's head start", () => {
  let server: IrcServer;
  let proxy: TcpProxy;
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    server = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
    proxy = await startTcpProxy({ targetPort: server.port });
  });
  afterAll(async () => {
    await proxy?.close();
    await server?.close();
  });
  afterEach(async () => {
    proxy.resume();
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  async function human(nick: string, channels: string[]): Promise<RawIrcClient> {
    const c = await connectRawClient(server.port, nick);
    cleanups.push(() => c.close());
    for (const ch of channels) await c.join(ch);
    return c;
  }

  async function created(nick: string, agent: Record<string, unknown> = {}, port = proxy.port, config: Record<string, unknown> = {}): Promise<CreatedTestDaemon> {
    const d = await createTestDaemon({ port, nick, agent, config });
    cleanups.push(() => d.stop());
    return d;
  }

  const privmsgs = (c: RawIrcClient, from: string, target: string) =>
    c.lines.map(parseRawLine).filter((p) => p.command === "PRIVMSG" && p.nick === from && p.params[0] === target);

  it("has the runner up while IRC still registers, prompts nothing before the daemon runs, then answers a mention sent at the join once", async () => {
    const alice = await human("alice", ["#test"]);
    const d = await created("spark-early");
    const prompts: string[] = [];
    d.daemon.hooks.beforePrompt.tap("test", (prompt) => (prompts.push(String(prompt)), prompt));
    proxy.stall();
    const started = d.start();
    let startedYet = false;
    void started.then(() => (startedYet = true), () => undefined);
    // The agent's runner is up (its session open) while the daemon's registration is held.
    const early = await eventually(() => {
      const s = d.daemon.status();
      return s.running === true ? s : null;
    }, "the runner to start while IRC registers");
    if (!early) throw new Error("unreachable");
    expect(early.daemon_state).toBe("starting");
    expect(early.connected).toBe(false);
    expect(proxy.heldText()).toMatch(/NICK spark-early/);
    expect(startedYet).toBe(false);
    expect(agentProcesses(d.home)).toHaveLength(1);
    // A mention the moment it joins: it waits for the daemon to run, then is answered once.
    const joined = alice.waitFor((_l, p) => p.command === "JOIN" && p.nick === "spark-early" && p.params[0] === "#test");
    proxy.resume();
    await joined;
    alice.send("PRIVMSG #test :@spark-early first");
    expect(prompts).toEqual([]);
    await started;
    await alice.waitFor((_l, p) => p.command === "PRIVMSG" && p.nick === "spark-early" && /first$/.test(p.params[1] ?? ""));
    alice.send("PRIVMSG #test :@spark-early second");
    await alice.waitFor((_l, p) => p.command === "PRIVMSG" && p.nick === "spark-early" && /second$/.test(p.params[1] ?? ""));
    expect(privmsgs(alice, "spark-early", "#test").map((p) => p.params[1])).toEqual(["I heard: [IRC @mention in #test] <alice> @spark-early first", "I heard: [IRC @mention in #test] <alice> @spark-early second"]);
    expect(prompts).toHaveLength(2);
    const status = d.daemon.status();
    expect(status).toMatchObject({ daemon_state: "ready", turn_count: 2, connected: true });
    // One agent process: the early one, not a second started after the join.
    expect(agentProcesses(d.home)).toHaveLength(1);
  });

  it("an agent that crashes right after its start, while IRC still registers, is alerted in #alerts once the alerts exist", async () => {
    const ops = await human("ops", ["#alerts"]);
    // No restart before the test looks: the one crash is the one that happened before the alerts existed.
    const d = await created("spark-crashy", { startup: "crash-after-ready" }, proxy.port, { restart: { delay_seconds: 60, max_crashes: 3, window_seconds: 300 } });
    proxy.stall();
    const started = d.start();
    await eventually(() => (d.daemon.status().crashes as number) >= 1, "the agent crash to be counted while IRC registers");
    expect(d.daemon.status().connected).toBe(false);
    proxy.resume();
    await started.catch(() => undefined);
    await ops.waitFor((_l, p) => p.command === "PRIVMSG" && p.nick === "spark-crashy" && p.params[0] === "#alerts" && /crashed: process exited with code 1/.test(p.params[1] ?? ""));
  });

  it("a preflight that says the agent cannot run is acted on after the alerts exist: the daemon is up, cannot_run, one alert with the fix", async () => {
    const ops = await human("ops2", ["#alerts"]);
    const d = await created("spark-nologin", { signed_in: false });
    proxy.stall();
    const started = d.start();
    await new Promise((r) => setTimeout(r, 100));
    proxy.resume();
    await started;
    expect(d.daemon.cannotRun).toBeTruthy();
    await ops.waitFor((_l, p) => p.command === "PRIVMSG" && p.nick === "spark-nologin" && p.params[0] === "#alerts" && /cannot run its agent/.test(p.params[1] ?? ""));
    expect(agentProcesses(d.home)).toHaveLength(0);
  });

  it("a runner start that fails is reported after the IRC connect, with the runner's error, and leaves nothing running", async () => {
    const d = await created("spark-dud", { startup: "crash" });
    const home = d.home;
    proxy.stall();
    let settled = false;
    const started = d.start().then(
      () => null,
      (e: unknown) => e,
    );
    void started.then(() => (settled = true));
    await eventually(() => proxy.heldText().includes("NICK spark-dud"), "the registration to be held");
    // The agent died at its start, but the daemon waits for its IRC connect like before.
    await new Promise((r) => setTimeout(r, 300));
    expect(settled).toBe(false);
    proxy.resume();
    const err = await started;
    expect(err).toBeInstanceOf(Error);
    expect(String((err as Error).message)).toMatch(/exit|start/i);
    expect(agentProcesses(home)).toHaveLength(0);
  });

  it("an IRC server that cannot be reached wins over the agent starting beside it: E_IRC_UNREACHABLE, and its agent is gone when start() rejects", async () => {
    const port = await freePort();
    const d = await created("spark-lonely", {}, port);
    const home = d.home;
    const err = await d.start().then(
      () => null,
      (e: unknown) => e,
    );
    expect(isCultureError(err, "E_IRC_UNREACHABLE")).toBe(true);
    expect((err as Error).message).toContain(`127.0.0.1:${port}`);
    expect(agentProcesses(home)).toHaveLength(0);
  });
});
