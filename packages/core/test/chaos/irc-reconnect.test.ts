/**
 * Chaos suite, IRC side: a real daemon (echo agent) behind a TCP proxy that stalls and drops
 * the link, on culture's embedded server and on InspIRCd, both of which can be killed -9 and
 * restarted. Every case asserts that each mention a person sent became exactly one prompt and
 * that the daemon still answers afterwards. No sleeps: each step waits for what it needs
 * (the server's QUIT for the daemon, the proxy holding a line, the prompt itself).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  connectRawClient,
  parseRawLine,
  recordPrompts,
  startChaosServer,
  startTcpProxy,
  type ChaosServer,
  type ChaosServerKind,
  type PromptRecording,
  type RawIrcClient,
  type TcpProxy,
} from "../../src/testing/index.js";
import { pollUntil } from "../../src/testing/runner-recorder.js";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon-harness.js";

const KINDS: ChaosServerKind[] = ["embedded", "inspircd"];
const NICK = "spark-bot";

describe.each(KINDS)("chaos on %s: mentions around reconnects", (kind) => {
  let server: ChaosServer;
  const cleanups: Array<() => Promise<void>> = [];
  let channelCounter = 0;

  beforeAll(async () => {
    server = await startChaosServer(kind);
  });
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  interface Scene {
    channel: string;
    proxy: TcpProxy;
    d: TestDaemon;
    rec: PromptRecording;
    human(nick: string): Promise<RawIrcClient>;
    /** Sends `@spark-bot <marker>` from `who` to the channel. */
    mention(who: RawIrcClient, marker: string): void;
    /** Cuts the daemon's link and keeps it from reconnecting; resolves once the server saw it go. */
    cut(watcher: RawIrcClient): Promise<void>;
  }

  /** A fresh channel (created by alice, with history on InspIRCd) and a daemon behind a proxy. */
  async function scene(opts: { before?: (alice: RawIrcClient, channel: string) => Promise<void> } = {}): Promise<Scene & { alice: RawIrcClient }> {
    const channel = `#chaos${++channelCounter}`;
    const human = async (nick: string): Promise<RawIrcClient> => {
      const c = await connectRawClient(server.port, nick);
      cleanups.push(() => c.close());
      await c.join(channel);
      return c;
    };
    const alice = await human(`alice${channelCounter}`);
    await keepHistory(alice, channel);
    await opts.before?.(alice, channel);
    const proxy = await startTcpProxy({ targetPort: server.port });
    cleanups.push(() => proxy.close());
    // The chaos server is open but offers SASL: `allow: auto` would then take only logged-in users.
    const d = await startTestDaemon({ port: proxy.port, nick: NICK, channels: [channel], config: { allow: "everyone" } });
    cleanups.push(() => d.stop());
    const rec = recordPrompts(d.daemon);
    await alice.waitFor((_l, p) => p.command === "JOIN" && p.nick === NICK);
    return {
      channel,
      proxy,
      d,
      rec,
      alice,
      human,
      mention: (who, marker) => who.send(`PRIVMSG ${channel} :@${NICK} ${marker}`),
      async cut(watcher) {
        proxy.block();
        proxy.drop();
        await watcher.waitFor((_l, p) => p.command === "QUIT" && p.nick === NICK);
      },
    };
  }

  /** InspIRCd replays history on JOIN only in channels with mode +H. */
  async function keepHistory(op: RawIrcClient, channel: string): Promise<void> {
    if (kind !== "inspircd") return;
    op.send(`MODE ${channel} +H 50:1d`);
    await op.waitFor((_l, p) => p.command === "MODE" && p.params[0] === channel && (p.params[1] ?? "").includes("H"));
  }

  function expectOnce(rec: PromptRecording, markers: string[]): void {
    expect(Object.fromEntries(markers.map((m) => [m, rec.count(m)]))).toEqual(Object.fromEntries(markers.map((m) => [m, 1])));
  }

  it("delivers a mention sent while the link is dropped, once, after the reconnect", async () => {
    const s = await scene();
    s.mention(s.alice, "m-before");
    await s.rec.waitFor(["m-before"]);
    await s.cut(s.alice);
    s.mention(s.alice, "m-during-drop");
    s.proxy.unblock();
    await s.rec.waitFor(["m-during-drop"]);
    s.mention(s.alice, "m-after");
    await s.rec.waitFor(["m-after"]);
    expectOnce(s.rec, ["m-before", "m-during-drop", "m-after"]);
    expect(s.d.daemon.status().connected).toBe(true);
  });

  it("delivers a mention that was stuck in a stalled link when the link then drops", async () => {
    const s = await scene();
    s.mention(s.alice, "s-before");
    await s.rec.waitFor(["s-before"]);
    s.proxy.stall();
    s.mention(s.alice, "s-stalled");
    // The server sent it to the daemon: the stalled link holds it (then loses it in the drop).
    await pollUntil(() => s.proxy.heldText().includes("s-stalled"));
    await s.cut(s.alice);
    s.proxy.resume();
    s.proxy.unblock();
    await s.rec.waitFor(["s-stalled"]);
    s.mention(s.alice, "s-after");
    await s.rec.waitFor(["s-after"]);
    expectOnce(s.rec, ["s-before", "s-stalled", "s-after"]);
  });

  it("delivers a mention held by a stall once the link resumes (no reconnect)", async () => {
    const s = await scene();
    s.proxy.stall();
    s.mention(s.alice, "h-stalled");
    await pollUntil(() => s.proxy.heldText().includes("h-stalled"));
    s.proxy.resume();
    await s.rec.waitFor(["h-stalled"]);
    s.mention(s.alice, "h-after");
    await s.rec.waitFor(["h-after"]);
    expectOnce(s.rec, ["h-stalled", "h-after"]);
  });

  it("delivers a mention sent while the server was killed -9 and restarted, once", async () => {
    const s = await scene();
    s.mention(s.alice, "k-before");
    await s.rec.waitFor(["k-before"]);
    s.proxy.block();
    await server.kill();
    await server.restart();
    // alice's connection died with the server: she comes back and recreates the channel.
    const alice = await connectRawClient(server.port, `alice-back${channelCounter}`);
    cleanups.push(() => alice.close());
    await alice.join(s.channel);
    await keepHistory(alice, s.channel);
    s.mention(alice, "k-during-restart");
    s.proxy.unblock();
    await s.rec.waitFor(["k-during-restart"]);
    s.mention(alice, "k-after");
    await s.rec.waitFor(["k-after"]);
    expectOnce(s.rec, ["k-before", "k-during-restart", "k-after"]);
  });

  it("does not turn history said before the first join into prompts", async () => {
    const s = await scene({
      before: async (alice, channel) => {
        alice.send(`PRIVMSG ${channel} :@${NICK} f-old-history`);
        alice.send("PING :sync");
        await alice.waitFor((_l, p) => p.command === "PONG");
      },
    });
    s.mention(s.alice, "f-fresh");
    await s.rec.waitFor(["f-fresh"]);
    expect(s.rec.count("f-old-history")).toBe(0);
    expectOnce(s.rec, ["f-fresh"]);
  });

  it("turns a flood of mentions from several people, with a drop in the middle, into one prompt each", async () => {
    const s = await scene();
    const people = [s.alice, await s.human(`bob${channelCounter}`), await s.human(`carol${channelCounter}`)];
    const markers: string[] = [];
    const burst = (round: string): void => {
      for (let i = 0; i < 6; i++) {
        for (const [p, who] of people.entries()) {
          const marker = `fl-${round}-${p}-${i}`;
          markers.push(marker);
          s.mention(who, marker);
        }
      }
    };
    burst("a");
    await s.rec.waitFor(markers);
    await s.cut(s.alice);
    burst("b");
    s.proxy.unblock();
    burst("c");
    await s.rec.waitFor(markers);
    expectOnce(s.rec, markers);
  });

  it("turns one line with a repeated target into one prompt (DM and channel)", async () => {
    const s = await scene();
    s.alice.send(`PRIVMSG ${NICK},${NICK},${NICK.toUpperCase()},${NICK} :r-dm four targets`);
    s.alice.send(`PRIVMSG ${s.channel},${s.channel.toUpperCase()},${s.channel} :@${NICK} r-chan three targets`);
    s.mention(s.alice, "r-last");
    await s.rec.waitFor(["r-dm", "r-chan", "r-last"]);
    // The last prompt is in: anything repeated would have been queued before it.
    expectOnce(s.rec, ["r-dm", "r-chan", "r-last"]);
  });

  it("is not wedged by hostile lines: overlong, NUL, malformed tags, CTCP floods", async () => {
    const s = await scene();
    const mallory = await s.human(`mallory${channelCounter}`);
    mallory.send(`PRIVMSG ${s.channel} :@${NICK} x-overlong ${"é".repeat(2_000)}`);
    mallory.send(`@+a=\\\\;;;=x;+b=\\:\\s\\;\\ ;+=;+c PRIVMSG ${s.channel} :@${NICK} x-tags`);
    mallory.send(`PRIVMSG ${s.channel} :@${NICK} x-nul\0rest`);
    for (let i = 0; i < 40; i++) {
      mallory.send(`PRIVMSG ${NICK} :\x01VERSION\x01`);
      mallory.send(`PRIVMSG ${s.channel} :\x01PING ${i}\x01`);
      mallory.send(`PRIVMSG ${s.channel} :\x01ACTION pokes @${NICK}`);
    }
    mallory.send(`PRIVMSG ${s.channel} :\x01`);
    mallory.send(`PRIVMSG ${s.channel} :@${NICK}`);
    mallory.send(`PRIVMSG ${s.channel} :@${NICK} ${"\u0301".repeat(600)}`);
    s.mention(s.alice, "x-still-alive");
    await s.rec.waitFor(["x-still-alive"]);
    expectOnce(s.rec, ["x-still-alive"]);
    expect(s.rec.prompts.filter((p) => p.prompt.includes("VERSION") || p.prompt.includes("PING ")).length).toBe(0);
    // What the server made of each hostile line (InspIRCd cuts the overlong line, the embedded
    // server refuses it with 417; both refuse the malformed tags) is at most one prompt each.
    for (const marker of ["x-overlong", "x-tags", "x-nul"]) expect(s.rec.count(marker)).toBeLessThanOrEqual(1);
    // And the daemon still talks: its echo agent answers the last mention on IRC.
    await s.alice.waitFor((line) => {
      const p = parseRawLine(line);
      return p.command === "PRIVMSG" && p.nick === NICK && (p.params[1] ?? "").includes("x-still-alive");
    }, 30_000);
  });
});
