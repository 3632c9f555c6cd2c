/**
 * culture past one machine: two linked InspIRCd servers, an agent on each. A mention from a
 * human on server A reaches the agent on server B and the reply comes back across the link;
 * when server B dies and returns, its agent reconnects and answers again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRawClient, parseRawLine, startLinkedInspircd, type LinkedIrcServers, type RawIrcClient } from "../src/testing/irc-servers.js";
import { eventually, startTestDaemon, type TestDaemon } from "./helpers/daemon-harness.js";

describe("two linked IRC servers", () => {
  let net: LinkedIrcServers;
  let agentA: TestDaemon;
  let agentB: TestDaemon;
  let human: RawIrcClient;

  beforeAll(async () => {
    net = await startLinkedInspircd();
    agentA = await startTestDaemon({ port: net.a.port, nick: "spark-alpha" });
    agentB = await startTestDaemon({ port: net.b.port, nick: "spark-beta" });
    human = await connectRawClient(net.a.port, "alice");
    await human.join("#test");
  });
  afterAll(async () => {
    await human?.close().catch(() => undefined);
    await agentA?.stop().catch(() => undefined);
    await agentB?.stop().catch(() => undefined);
    await net?.stop();
  });

  const replyFrom = (nick: string, text: RegExp) => (line: string) => {
    const p = parseRawLine(line);
    return p.command === "PRIVMSG" && p.nick === nick && p.params[0] === "#test" && text.test(p.params[1] ?? "");
  };

  it("routes a mention on server A to the agent on server B and its reply back", async () => {
    human.send("PRIVMSG #test :@spark-beta hello from the other side");
    const line = await human.waitFor(replyFrom("spark-beta", /^I heard: /), 20_000);
    expect(parseRawLine(line).params[1]).toBe("I heard: [IRC @mention in #test] <alice> @spark-beta hello from the other side");
    human.send("PRIVMSG #test :@spark-alpha and you?");
    await human.waitFor(replyFrom("spark-alpha", /^I heard: .*and you\?$/), 20_000);
  });

  it("reconnects the agent on server B when B dies and comes back", async () => {
    await net.b.kill();
    await eventually(() => !agentB.daemon.status().connected, "the daemon on B to notice the outage", 20_000);
    await net.b.restart();
    await eventually(() => {
      const s = agentB.daemon.status();
      return s.connected && s.channels.map((c) => c.toLowerCase()).includes("#test");
    }, "the daemon on B to reconnect and rejoin", 30_000);
    const bob = await connectRawClient(net.b.port, "bob");
    try {
      await bob.join("#test");
      bob.send("PRIVMSG #test :@spark-beta welcome back");
      await bob.waitFor(replyFrom("spark-beta", /^I heard: .*welcome back$/), 20_000);
    } finally {
      await bob.close();
    }
  });
});
