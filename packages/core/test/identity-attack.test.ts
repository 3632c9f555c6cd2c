/**
 * The attack from issue 17 on the embedded server, with all defaults: 20 users send the agent
 * 30 CTCP VERSION requests each. Before, irc-framework answered every one straight to the
 * socket, outside culture's send-rate limit, and the server closed the agent for Excess Flood;
 * during the reconnect delay an attacker took the agent's nick and received its DMs. Now the
 * agent answers nothing automatically and stays connected, and the nick belongs to the agent's
 * account: nobody else can take it, even while the agent is away.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AccountStore, startServer, type IrcServer } from "@culture/server";
import { afterEach, describe, expect, it } from "vitest";
import { embeddedAccountStorePath } from "../src/identity/local-credentials.js";
import { connectRawClient, parseRawLine, type RawIrcClient } from "../src/testing/irc-servers.js";
import { startTestDaemon, type TestDaemon } from "./helpers/daemon-harness.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
});

async function setup(): Promise<{ server: IrcServer; home: string; store: AccountStore; d: TestDaemon }> {
  const home = mkdtempSync(join(tmpdir(), "culture-attack-"));
  const store = new AccountStore(embeddedAccountStorePath({ CULTURE_HOME: home }));
  const server = await startServer({ port: 0, stateDir: null, accountsFile: store.path });
  cleanups.push(() => server.close());
  const d = await startTestDaemon({ port: server.port, home, nick: "spark-bot" });
  cleanups.push(() => d.stop());
  return { server, home, store, d };
}

async function user(server: IrcServer, store: AccountStore, nick: string): Promise<RawIrcClient> {
  if (!store.has(nick)) await store.add(nick, `${nick}-pw`, "human");
  const c = await connectRawClient(server.port, nick, { password: `${nick}:${nick}-pw` });
  cleanups.push(() => c.close());
  return c;
}

describe("the CTCP flood and nick theft attack, embedded server", { timeout: 60_000 }, () => {
  it("20 users x 30 CTCP VERSION get no replies and do not disconnect the agent", async () => {
    const { server, store, d } = await setup();
    const attackers = await Promise.all(Array.from({ length: 20 }, (_, i) => user(server, store, `attacker${i}`)));
    const alice = await user(server, store, "alice");
    await alice.join("#test");
    await Promise.all(
      attackers.map(async (a) => {
        for (let i = 0; i < 30; i++) a.send("PRIVMSG spark-bot :\x01VERSION\x01");
        a.send("PING :flooded");
        await a.waitFor(/PONG .*flooded/);
      }),
    );
    // The agent reads in order: when it answers alice it has read every CTCP, and any automatic
    // reply it wrote would have reached the server before this answer.
    alice.send("PRIVMSG #test :@spark-bot still there?");
    await alice.waitFor((_l, p) => p.command === "PRIVMSG" && p.nick === "spark-bot" && p.params[0] === "#test", 20_000);
    expect(d.daemon.status().connected).toBe(true);
    for (const a of attackers) {
      a.send("PING :after");
      await a.waitFor(/PONG .*after/);
      expect(a.lines.filter((l) => parseRawLine(l).command === "NOTICE" && l.includes("\x01VERSION"))).toEqual([]);
    }
    alice.send("WHOIS spark-bot");
    expect(await alice.waitFor(/ 311 | 401 /)).toMatch(/ 311 alice spark-bot /);
  });

  it("nobody can take the agent's nick, even while it is away, so its DMs never reach an attacker", async () => {
    const { server, store, d } = await setup();
    const attacker = await user(server, store, "mallory");
    attacker.send("NICK spark-bot");
    expect(await attacker.waitFor(/ 433 /)).toMatch(/ 433 mallory spark-bot :Nickname is reserved/);
    // The agent goes away (as after a disconnect, during its reconnect delay).
    await d.daemon.stop();
    attacker.send("NICK spark-bot");
    expect(await attacker.waitFor(/ 433 /)).toMatch(/ 433 mallory spark-bot :Nickname is reserved/);
    const alice = await user(server, store, "alice");
    alice.send("PRIVMSG spark-bot :the secret is 42");
    expect(await alice.waitFor(/ 401 /)).toMatch(/ 401 alice spark-bot /);
    attacker.send("PING :end");
    await attacker.waitFor(/PONG .*end/);
    expect(attacker.lines.some((l) => l.includes("the secret"))).toBe(false);
  });
});
