/**
 * The operator-join NOTICE on a network whose JOINs do not carry the account (InspIRCd + Atheme
 * with extended-join off, as some networks run): the daemon asks WHO for the joiner's account
 * before telling them the pending approvals. The operator (by account) gets the NOTICE; a client
 * logged in to another account gets nothing.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRawClient, parseRawLine, startInspircdAtheme, type InspircdAtheme, type RawIrcClient } from "../src/testing/irc-servers.js";
import { startTestDaemon, type TestDaemon } from "./helpers/daemon-harness.js";

const APPROVAL_BACKEND = fileURLToPath(new URL("./fixtures/approval-backend", import.meta.url));

let net: InspircdAtheme;
let d: TestDaemon;
const clients: RawIrcClient[] = [];

beforeAll(async () => {
  net = await startInspircdAtheme({ extendedJoin: false });
  for (const [account, pw] of [["alice", "alice-pw-1"], ["bob", "bob-pw-1"], ["mallory", "mallory-pw-1"], ["spark-bot", "agent-pw-1"]]) await net.registerAccount(account!, pw!);
  d = await startTestDaemon({
    port: net.port,
    nick: "spark-bot",
    config: { server: { name: "spark", host: "127.0.0.1", port: net.port, sasl: { account: "spark-bot", password: "agent-pw-1" } }, operators: ["alice"] },
    agent: { agent: APPROVAL_BACKEND, channels: ["#dev"], permissions: { mode: "ask" } },
  });
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await d?.stop();
  await net?.stop();
});

/** A client that asks for extended-join (the server does not offer it), optionally identified. */
async function client(nick: string, password?: string): Promise<RawIrcClient> {
  const c = await connectRawClient(net.port, nick, { caps: ["account-tag", "extended-join", "account-notify"] });
  clients.push(c);
  if (password) {
    c.send(`PRIVMSG NickServ :IDENTIFY ${password}`);
    await c.waitFor((_l, p) => p.command === "900", 10_000);
  }
  return c;
}

const joinNotice = (nick: string) => (l: string) => {
  const p = parseRawLine(l);
  return p.command === "NOTICE" && p.nick === "spark-bot" && p.params[0] === nick;
};

describe("pending approvals for an operator who joins, found by WHO (no extended-join)", { timeout: 90_000 }, () => {
  it("the operator by account gets the NOTICE; someone logged in to another account gets nothing", async () => {
    const bob = await client("bob", "bob-pw-1");
    await bob.join("#dev");
    bob.send("PRIVMSG #dev :@spark-bot ask shell rm -rf build");
    await bob.waitFor((l) => /\[APPROVAL \d+\] wants to run/.test(l) && parseRawLine(l).nick === "spark-bot", 30_000);

    // mallory joins first, logged in to her own account, under a nick nobody registered.
    const mallory = await client("ally", "mallory mallory-pw-1");
    await mallory.join("#dev");
    const joined = await bob.waitFor((l) => parseRawLine(l).command === "JOIN" && parseRawLine(l).nick === "ally", 15_000);
    expect(parseRawLine(joined).params).toEqual(["#dev"]); // no account in the JOIN: the daemon must ask WHO

    // Then the real alice, logged in to her account from another unregistered nick.
    const alice = await client("alice-real", "alice alice-pw-1");
    await alice.join("#dev");
    expect(parseRawLine(await alice.waitFor(joinNotice("alice-real"), 15_000)).params[1]).toBe("1 approval request pending in #dev; operators who may answer (by account): alice");
    expect(parseRawLine(await alice.waitFor(joinNotice("alice-real"), 15_000)).params[1]).toMatch(/^#\d+ Bash "rm -rf build" /);
    // The joins were handled in order (one WHO each, answered in order): mallory's came first.
    expect(mallory.lines.filter(joinNotice("ally"))).toEqual([]);
  });
});
