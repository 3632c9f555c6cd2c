/**
 * The agent daemon end to end: a real IRC server (InspIRCd and ngIRCd), a real daemon, the
 * echo backend's real agent process, raw IRC clients acting as humans, and the real
 * `culture` CLI. The only fake is the agent.
 */
import { statSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isCultureError } from "../src/errors.js";
import { socketPath, runtimeDir } from "../src/paths.js";
import { createAgentDaemon } from "../src/daemon/create-daemon.js";
import { startServer } from "@culture/server";
import { connectRawClient, freePort, parseRawLine, startIrcServer, type RawIrcClient } from "../src/testing/irc-servers.js";
import { CLI, eventually, startTestDaemon, type TestDaemon } from "./helpers/daemon-harness.js";

const SERVERS = ["embedded", "inspircd", "ngircd"] as const;

/** A running IRC server of any kind: the embedded one in this process, or a real IRCd. */
async function startAnyServer(kind: (typeof SERVERS)[number]): Promise<{ port: number; stop(): Promise<void> }> {
  if (kind !== "embedded") return startIrcServer(kind);
  const server = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
  return { port: server.port, stop: () => server.close() };
}

describe.each(SERVERS)("daemon on %s", (kind) => {
  let server: { port: number; stop(): Promise<void> };
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    server = await startAnyServer(kind);
  });
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  async function daemon(opts: Parameters<typeof startTestDaemon>[0] extends infer O ? Omit<O & object, "port"> : never = {}): Promise<TestDaemon> {
    const d = await startTestDaemon({ port: server.port, ...opts });
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

  it("turns a mention and a DM into the exact prompts and relays the replies; @botany does not trigger @bot", async () => {
    const d = await daemon({ nick: "spark-bot" });
    const alice = await human("alice");
    alice.send("PRIVMSG #test :@botany is a word, not a mention");
    alice.send("PRIVMSG #test :hey @bot, hello there");
    const reply = await alice.waitFor(privmsg("spark-bot", "#test", /^I heard: /));
    // The first reply is for the real mention (by <name>): @botany produced no prompt.
    expect(parseRawLine(reply).params[1]).toBe("I heard: [IRC @mention in #test] <alice> hey @bot, hello there");
    alice.send("PRIVMSG spark-bot :psst, a secret");
    const dm = await alice.waitFor(privmsg("spark-bot", "alice", /I heard/));
    expect(parseRawLine(dm).params[1]).toBe("I heard: [IRC DM] <alice> psst, a secret");
    const status = d.daemon.status();
    expect(status.turn_count).toBe(2);
    expect(status.activity).toBe("idle");
    expect(status.connected).toBe(true);
    expect(status.channels.map((c) => c.toLowerCase()).sort()).toEqual(["#alerts", "#test"]);
    // The daemon buffered both channel lines (and its own reply) for irc_read.
    const read = await d.culture(["channel", "read", "#test", "--json"]);
    expect(read.exitCode).toBe(0);
    const texts = (JSON.parse(read.stdout).messages as Array<{ text: string }>).map((m) => m.text);
    expect(texts).toContain("@botany is a word, not a mention");
    expect(texts).toContain("hey @bot, hello there");
  });

  it("lets the agent speak through `culture channel` and never injects IRC commands", async () => {
    const d = await daemon();
    const bob = await human("bob");
    const before = bob.lines.length;
    const sent = await d.culture(["channel", "send", "#test", "line one\r\nQUIT :gotcha\nline three"]);
    expect(sent.exitCode).toBe(0);
    await bob.waitFor(privmsg("spark-bot", "#test", /^line three$/));
    const fromBot = bob
      .since(before)
      .map(parseRawLine)
      .filter((p) => p.nick === "spark-bot");
    expect(fromBot.map((p) => [p.command, p.params[1]])).toEqual([
      ["PRIVMSG", "line one"],
      ["PRIVMSG", "QUIT :gotcha"],
      ["PRIVMSG", "line three"],
    ]);
    // A target with CR/LF cannot smuggle a command either: it is rejected or cleaned.
    const evil = await d.culture(["channel", "send", "#test\r\nJOIN #evil", "x"]);
    expect(evil.exitCode).not.toBe(0);
    expect(d.daemon.status().channels).not.toContain("#evil");
    // Sending to a channel we are not in is an error, not a silent success.
    const unjoined = await d.culture(["channel", "send", "#nowhere", "hello?"]);
    expect(unjoined.exitCode).toBe(1);
    expect(unjoined.stderr).toMatch(/#nowhere/);
    expect(d.daemon.status().connected).toBe(true);
  });

  it("relay auto: the agent's own send to the origin suppresses the relayed final text", async () => {
    await daemon({ agent: { relay: "auto" } });
    const carol = await human("carol");
    carol.send(`PRIVMSG #test :@spark-bot exec node ${CLI} channel send '#test' from-the-tool && echo final-text`);
    await carol.waitFor(privmsg("spark-bot", "#test", /^from-the-tool$/));
    carol.send("PRIVMSG #test :@spark-bot ping");
    const next = await carol.waitFor(privmsg("spark-bot", "#test", /./));
    // The next line is the reply to "ping": "final-text" was never relayed.
    expect(parseRawLine(next).params[1]).toBe("I heard: [IRC @mention in #test] <carol> @spark-bot ping");
  });

  it("relay always posts the final text; relay never posts nothing", async () => {
    await daemon({ nick: "spark-always", agent: { relay: "always" } });
    await daemon({ nick: "spark-never", agent: { relay: "never" } });
    const dave = await human("dave");
    dave.send(`PRIVMSG #test :@spark-always exec node ${CLI} channel send '#test' tool-line && echo final-always`);
    await dave.waitFor(privmsg("spark-always", "#test", /^tool-line$/));
    await dave.waitFor(privmsg("spark-always", "#test", /^final-always$/));
    const mark = dave.lines.length;
    dave.send("PRIVMSG #test :@spark-never hello");
    dave.send(`PRIVMSG #test :@spark-never exec node ${CLI} channel send '#test' never-tool`);
    await dave.waitFor(privmsg("spark-never", "#test", /^never-tool$/));
    const fromNever = dave.since(mark).map(parseRawLine).filter((p) => p.nick === "spark-never" && p.command === "PRIVMSG");
    expect(fromNever.map((p) => p.params[1])).toEqual(["never-tool"]);
  });

  it("irc_ask waits for the first answer addressed to the agent, alerts the question, and times out", async () => {
    const d = await daemon();
    const hal = await human("hal", ["#test", "#alerts"]);
    const asking = d.culture(["channel", "ask", "#test", "--timeout", "20", "Delete 47 files. Proceed?"]);
    await hal.waitFor(privmsg("spark-bot", "#test", /^Delete 47 files\. Proceed\?$/));
    await hal.waitFor(privmsg("spark-bot", "#alerts", /^\[QUESTION\] spark-bot needs input: "Delete 47 files\. Proceed\?"$/));
    hal.send("PRIVMSG #test :an unrelated remark");
    hal.send("PRIVMSG #test :@spark-bot yes, go ahead");
    const answered = await asking;
    expect(answered.exitCode).toBe(0);
    expect(answered.stdout).toContain("yes, go ahead");
    expect(answered.stdout).not.toContain("unrelated");
    // The answer went to the question, not into a new prompt.
    expect(d.daemon.status().turn_count).toBe(0);
    const timedOut = await d.culture(["channel", "ask", "#test", "--timeout", "1", "Anyone?", "--json"]);
    expect(timedOut.exitCode).toBe(0);
    expect(JSON.parse(timedOut.stdout)).toMatchObject({ answer: null, timed_out: true });
    await hal.waitFor(privmsg("spark-bot", "#alerts", /^\[TIMEOUT\] spark-bot got no answer in 1s to: "Anyone\?"$/));
  });

  it("joins, sets a topic, lists members and channels, and parts through culture channel", async () => {
    const d = await daemon();
    const ivy = await human("ivy", ["#test"]);
    expect((await d.culture(["channel", "join", "#side"])).exitCode).toBe(0);
    await ivy.join("#side");
    expect((await d.culture(["channel", "topic", "#side", "release\r\nQUIT :x day"])).exitCode).toBe(0);
    const topic = await d.culture(["channel", "topic", "#side", "--json"]);
    // CR/LF cannot end the TOPIC command early: the text stays one parameter.
    expect(JSON.parse(topic.stdout).topic).toMatch(/^release ?QUIT :x day$/);
    const who = await d.culture(["channel", "who", "#side", "--json"]);
    const nicks = (JSON.parse(who.stdout).members as Array<{ nick: string }>).map((m) => m.nick).sort();
    expect(nicks).toEqual(["ivy", "spark-bot"]);
    const channels = await d.culture(["channel", "channels", "--json"]);
    expect((JSON.parse(channels.stdout).channels as Array<{ channel: string }>).map((c) => c.channel.toLowerCase()).sort()).toEqual(["#alerts", "#side", "#test"]);
    expect((await d.culture(["channel", "part", "#side"])).exitCode).toBe(0);
    expect(d.daemon.status().channels.map((c) => c.toLowerCase())).not.toContain("#side");
    expect(d.daemon.status().connected).toBe(true);
  });

  it("restarts a crashed agent, opens the circuit after repeated crashes, and an operator's resume closes it", async () => {
    // These servers have no accounts: operators by nick is the explicit opt-in for that.
    const d = await daemon({ config: { operators: ["erin"], operators_by_nick: true } });
    const erin = await human("erin", ["#test", "#alerts"]);
    const firstSession = d.daemon.status().session_id;
    erin.send("PRIVMSG #test :@spark-bot crash");
    await erin.waitFor(privmsg("spark-bot", "#alerts", /^\[ERROR\] spark-bot crashed: process exited with code 1$/));
    await eventually(() => d.daemon.status().running && !d.daemon.status().circuit_open && d.daemon.status().turn_count >= 2, "the restart and its resume turn");
    // The new runner resumed the previous session.
    expect(d.daemon.status().session_id).toBe(firstSession);
    erin.send("PRIVMSG #test :@spark-bot crash");
    await eventually(() => d.daemon.status().running && d.daemon.status().turn_count >= 4, "the second restart");
    erin.send("PRIVMSG #test :@spark-bot crash");
    await erin.waitFor(privmsg("spark-bot", "#alerts", /^\[SPIRALING\] .*restarts stopped/));
    await eventually(() => d.daemon.status().circuit_open, "circuit open");
    const cli = await d.culture(["status", "--json", "--config", d.configPath], { nick: null });
    expect(JSON.parse(cli.stdout)[0]).toMatchObject({ nick: "spark-bot", state: "circuit-open", circuit_open: true });
    // Mentions wait while the circuit is open...
    erin.send("PRIVMSG #test :@spark-bot are you there?");
    // ...a stranger cannot resume it...
    const mallory = await human("mallory");
    mallory.send("PRIVMSG #test :@spark-bot resume");
    await mallory.waitFor((line) => {
      const p = parseRawLine(line);
      return p.command === "NOTICE" && p.nick === "spark-bot" && p.params[0] === "mallory" && p.params[1] === "only operators (by IRC account) can resume spark-bot.";
    });
    expect(d.daemon.status().circuit_open).toBe(true);
    // ...an operator can, and the kept mention is then answered.
    erin.send("PRIVMSG #test :@spark-bot resume");
    await erin.waitFor(privmsg("spark-bot", "#test", /^erin: resumed\.$/));
    await erin.waitFor(privmsg("spark-bot", "#test", /^I heard: \[IRC @mention in #test\] <erin> @spark-bot are you there\?$/));
    expect(d.daemon.status()).toMatchObject({ circuit_open: false, running: true });
  });

  it("times out a turn with no output, tells the origin, and keeps serving", async () => {
    const d = await daemon({ agent: { turn_timeout_seconds: 1 } });
    const fay = await human("fay");
    fay.send("PRIVMSG #test :@spark-bot hang");
    await eventually(() => d.daemon.status().activity === "working", "the turn to start");
    await fay.waitFor(privmsg("spark-bot", "#test", /no output for 1s/));
    fay.send("PRIVMSG #test :@spark-bot still alive?");
    await fay.waitFor(privmsg("spark-bot", "#test", /^I heard: .*still alive\?$/));
  });

  it("keeps mentions while paused and delivers them, oldest first, on resume", async () => {
    const d = await daemon();
    const gus = await human("gus");
    const paused = await d.culture(["pause", "spark-bot", "--config", d.configPath], { nick: null });
    expect(paused.stdout).toContain("Paused spark-bot");
    gus.send("PRIVMSG #test :@spark-bot first");
    gus.send("PRIVMSG #test :@spark-bot second");
    await eventually(() => (d.daemon.status().queued_prompts as number) === 2, "both mentions kept");
    expect(d.daemon.status()).toMatchObject({ paused: true, activity: "paused", turn_count: 0 });
    const resumed = await d.culture(["resume", "spark-bot", "--config", d.configPath], { nick: null });
    expect(resumed.stdout).toContain("Resumed spark-bot");
    const a = await gus.waitFor(privmsg("spark-bot", "#test", /I heard/));
    const b = await gus.waitFor(privmsg("spark-bot", "#test", /I heard/));
    expect([a, b].map((l) => parseRawLine(l).params[1])).toEqual([
      "I heard: [IRC @mention in #test] <gus> @spark-bot first",
      "I heard: [IRC @mention in #test] <gus> @spark-bot second",
    ]);
  });

  it("is a single instance with a private socket, and answers status over IPC", async () => {
    const d = await daemon();
    const sock = socketPath("spark-bot", d.env);
    expect(statSync(sock).mode & 0o777).toBe(0o600);
    expect(statSync(runtimeDir(d.env)).mode & 0o777).toBe(0o700);
    const second = await createAgentDaemon({ nick: "spark-bot", configPath: d.configPath, env: d.env }).then((x) => x.start()).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isCultureError(second, "E_ALREADY_RUNNING")).toBe(true);
    expect((second as Error).message).toBe(`agent spark-bot is already running (pid ${process.pid})`);
    // The first daemon is unharmed.
    const status = await d.culture(["channel", "status", "--json"]);
    expect(status.exitCode).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ nick: "spark-bot", running: true, paused: false, circuit_open: false, activity: "idle" });
  });
});

describe("daemon startup errors", () => {
  it("names host:port when the IRC server cannot be reached", async () => {
    const port = await freePort();
    const err = await startTestDaemon({ port }).then(
      (d) => d.stop().then(() => null),
      (e: unknown) => e,
    );
    expect(isCultureError(err, "E_IRC_UNREACHABLE")).toBe(true);
    expect((err as Error).message).toContain(`127.0.0.1:${port}`);
    expect((err as Error).message).toContain("culture server start");
  });
});
