/**
 * Who may prompt and command an agent, by IRC account, on the embedded server with accounts
 * required: `operators:` are accounts (nobody on IRC when there are none), `allow:` decides
 * whose mentions become prompts, and everyone else gets one short notice per hour and no turn.
 * Also the explicit nick opt-in (`operators_by_nick`) for servers without accounts.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AccountStore, startServer, type IrcServer } from "@culture/server";
import { afterEach, describe, expect, it } from "vitest";
import { embeddedAccountStorePath } from "../src/identity/local-credentials.js";
import { connectRawClient, parseRawLine, type RawIrcClient } from "../src/testing/irc-servers.js";
import { eventually, startTestDaemon, type TestDaemon } from "./helpers/daemon-harness.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
});

interface Setup {
  server: IrcServer;
  store: AccountStore;
  d: TestDaemon;
}

async function setup(config: Record<string, unknown>, agent: Record<string, unknown> = {}): Promise<Setup> {
  const home = mkdtempSync(join(tmpdir(), "culture-access-"));
  const store = new AccountStore(embeddedAccountStorePath({ CULTURE_HOME: home }));
  const server = await startServer({ port: 0, stateDir: null, accountsFile: store.path });
  cleanups.push(() => server.close());
  const d = await startTestDaemon({ port: server.port, home, nick: "spark-bot", config, agent });
  cleanups.push(() => d.stop());
  return { server, store, d };
}

async function user(s: Setup, account: string, nick = account): Promise<RawIrcClient> {
  if (!s.store.has(account)) await s.store.add(account, `${account}-pw`, "human");
  const c = await connectRawClient(s.server.port, nick, { password: `${account}:${account}-pw` });
  cleanups.push(() => c.close());
  await c.join("#test");
  return c;
}

const fromBot = (command: string, target: string, text: RegExp) => (line: string) => {
  const p = parseRawLine(line);
  return p.command === command && p.nick === "spark-bot" && p.params[0] === target && text.test(p.params[1] ?? "");
};

/** Every line `c` has received once the server has answered a PING sent now. */
async function settled(c: RawIrcClient): Promise<string[]> {
  const token = `s${Math.random().toString(36).slice(2)}`;
  c.send(`PING :${token}`);
  await c.waitFor(new RegExp(`PONG .*${token}`));
  return c.lines;
}

describe("operators are accounts", { timeout: 60_000 }, () => {
  it("with none configured, nobody on IRC may abort or resume", async () => {
    const s = await setup({});
    const alice = await user(s, "alice");
    alice.send("PRIVMSG #test :@spark-bot abort");
    await alice.waitFor(fromBot("NOTICE", "alice", /^only operators \(by IRC account\) can abort spark-bot\.$/));
  });

  it("an operator's account may; another account may not, whatever nick it uses", async () => {
    const s = await setup({ operators: ["alice"] });
    const mallory = await user(s, "mallory", "alice_");
    mallory.send("PRIVMSG #test :@spark-bot abort");
    await mallory.waitFor(fromBot("NOTICE", "alice_", /^only operators \(by IRC account\) can abort spark-bot\.$/));
    const alice = await user(s, "alice");
    alice.send("PRIVMSG #test :@spark-bot abort");
    await alice.waitFor(fromBot("PRIVMSG", "#test", /^alice: aborted the current task/));
  });
});

describe("allow: who may prompt", { timeout: 60_000 }, () => {
  it("a list of accounts: others' mentions are not prompts, and they are told once", async () => {
    const s = await setup({}, { allow: ["alice"] });
    const bob = await user(s, "bob");
    bob.send("PRIVMSG #test :@spark-bot run this for me");
    await bob.waitFor(fromBot("NOTICE", "bob", /^spark-bot only takes prompts from certain accounts; your message was not passed on\.$/));
    bob.send("PRIVMSG #test :@spark-bot please?");
    bob.send("PRIVMSG spark-bot :a DM then");
    const alice = await user(s, "alice");
    alice.send("PRIVMSG #test :@spark-bot hello");
    await alice.waitFor(fromBot("PRIVMSG", "#test", /^I heard: \[IRC @mention in #test\] <alice> @spark-bot hello$/));
    // Only alice's mention was a turn; bob got exactly one notice.
    expect(s.d.daemon.status().turn_count).toBe(1);
    const lines = await settled(bob);
    expect(lines.filter(fromBot("NOTICE", "bob", /./))).toHaveLength(1);
    expect(lines.some(fromBot("PRIVMSG", "#test", /bob/))).toBe(false);
  });

  it("the default on the embedded server is logged-in users: every user there is one", async () => {
    const s = await setup({});
    const bob = await user(s, "bob");
    bob.send("PRIVMSG #test :@spark-bot hi");
    await bob.waitFor(fromBot("PRIVMSG", "#test", /^I heard: \[IRC @mention in #test\] <bob> @spark-bot hi$/));
  });

  it("accounts, on an open server: anonymous users are not prompts, logged-in ones are", async () => {
    const home = mkdtempSync(join(tmpdir(), "culture-access-"));
    const store = new AccountStore(embeddedAccountStorePath({ CULTURE_HOME: home }));
    const server = await startServer({ port: 0, stateDir: null, accountsFile: store.path, open: true });
    cleanups.push(() => server.close());
    const d = await startTestDaemon({ port: server.port, home, nick: "spark-bot" });
    cleanups.push(() => d.stop());
    const anon = await connectRawClient(server.port, "anon");
    cleanups.push(() => anon.close());
    await anon.join("#test");
    anon.send("PRIVMSG #test :@spark-bot do something");
    await anon.waitFor(fromBot("NOTICE", "anon", /^spark-bot only takes prompts from users logged in to an account/));
    expect(d.daemon.status().turn_count).toBe(0);
  });
});

void eventually;
