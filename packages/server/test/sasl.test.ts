// SASL PLAIN against the accounts in the server options: success (900/903, then the account
// shows in tags, WHOIS and extended-join), every failure numeric, chunked payloads, and the
// same flows from irc-framework.
import IRC from "irc-framework";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, type IrcServer } from "../src/index.js";
import { RawClient, tagsOf, withoutTags } from "./helpers/raw-client.js";

const LONG_PASSWORD = "p".repeat(294); // "\0long\0" + 294 bytes = 300 bytes = exactly 400 base64 chars
let server: IrcServer;
const open: RawClient[] = [];
const plain = (user: string, pass: string, authz = ""): string => Buffer.from(`${authz}\0${user}\0${pass}`).toString("base64");

beforeAll(async () => {
  server = await startServer({ port: 0, stateDir: null, accounts: { bot: "secret", long: LONG_PASSWORD } });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await server.close();
});

/** Connects, asks for sasl, sets the nick; registration waits for CAP END. */
async function saslClient(nick: string): Promise<RawClient> {
  const c = await RawClient.connect(server.port);
  open.push(c);
  c.send("CAP LS 302");
  await c.waitFor(/ CAP \* LS /);
  c.send("CAP REQ :sasl");
  await c.waitFor(/ ACK /);
  c.send(`NICK ${nick}`);
  c.send(`USER ${nick} 0 * :${nick}`);
  return c;
}

describe("SASL PLAIN", () => {
  it("logs in before registration: 900, 903, then 001; the account shows in tags, WHOIS and extended-join", async () => {
    const watcher = await RawClient.register(server.port, "watcher", { caps: ["account-tag", "extended-join"] });
    open.push(watcher);
    watcher.send("JOIN #acct");
    await watcher.waitFor(/ 366 /);

    const c = await saslClient("botnick");
    c.send("AUTHENTICATE PLAIN");
    expect(await c.next()).toBe("AUTHENTICATE +");
    c.send(`AUTHENTICATE ${plain("bot", "secret")}`);
    expect(await c.next()).toBe(":culture.local 900 botnick botnick!~botnick@127.0.0.1 bot :You are now logged in as bot");
    expect(await c.next()).toBe(":culture.local 903 botnick :SASL authentication successful");
    c.send("CAP END");
    expect(await c.next()).toMatch(/^:culture\.local 001 botnick /);
    c.send("JOIN #acct");
    expect(withoutTags(await watcher.next())).toBe(":botnick!~botnick@127.0.0.1 JOIN #acct bot :botnick");
    c.send("PRIVMSG #acct :signed");
    const msg = await watcher.next();
    expect(tagsOf(msg).get("account")).toBe("bot");
    watcher.send("WHOIS botnick");
    expect(await watcher.waitFor(/ 330 /)).toBe(":culture.local 330 watcher botnick bot :is logged in as");
    c.send("AUTHENTICATE PLAIN");
    expect(await c.waitFor(/ 907 /)).toBe(":culture.local 907 botnick :You have already authenticated using SASL");
  });

  it("fails a wrong password, an unknown account and a mismatched authzid with 904, and stays unregistered", async () => {
    const c = await saslClient("wrongpw");
    for (const payload of [plain("bot", "nope"), plain("ghost", "secret"), plain("bot", "secret", "other")]) {
      c.send("AUTHENTICATE PLAIN");
      expect(await c.next()).toBe("AUTHENTICATE +");
      c.send(`AUTHENTICATE ${payload}`);
      expect(await c.next()).toBe(":culture.local 904 wrongpw :SASL authentication failed");
    }
    expect(await c.sync()).toEqual([]);
    c.send("CAP END");
    expect(await c.next()).toMatch(/^:culture\.local 001 wrongpw /); // SASL failure does not block registration
    c.send("WHOIS wrongpw");
    expect((await c.collectUntil(/ 318 /)).some((l) => l.includes(" 330 "))).toBe(false);
  });

  it("answers 908 for other mechanisms, 906 for an abort, 905 for an oversized chunk, 904 without the cap", async () => {
    const c = await saslClient("mechs");
    c.send("AUTHENTICATE EXTERNAL");
    expect(await c.next()).toBe(":culture.local 908 mechs PLAIN :are available SASL mechanisms");
    expect(await c.next()).toBe(":culture.local 904 mechs :SASL authentication failed");
    c.send("AUTHENTICATE PLAIN");
    await c.next();
    c.send("AUTHENTICATE *");
    expect(await c.next()).toBe(":culture.local 906 mechs :SASL authentication aborted");
    c.send("AUTHENTICATE PLAIN");
    await c.next();
    c.send(`AUTHENTICATE ${"A".repeat(401)}`);
    expect(await c.next()).toBe(":culture.local 905 mechs :SASL message too long");

    const nocap = await RawClient.connect(server.port);
    open.push(nocap);
    nocap.send("AUTHENTICATE PLAIN");
    expect(await nocap.next()).toBe(":culture.local 904 * :SASL authentication failed");
  });

  it("accepts a payload of exactly 400 characters followed by +", async () => {
    const c = await saslClient("chunky");
    const payload = plain("long", LONG_PASSWORD);
    expect(payload).toHaveLength(400);
    c.send("AUTHENTICATE PLAIN");
    await c.next();
    c.send(`AUTHENTICATE ${payload}`);
    expect(await c.sync()).toEqual([]); // waiting for more
    c.send("AUTHENTICATE +");
    expect(await c.next()).toBe(":culture.local 900 chunky chunky!~chunky@127.0.0.1 long :You are now logged in as long");
  });

  it("logs irc-framework in with its account option, and reports a failure to it", async () => {
    const ok = new IRC.Client();
    const loggedIn = new Promise<string>((resolve) => ok.once("loggedin", (e) => resolve(e.account)));
    const registered = new Promise<void>((resolve) => ok.once("registered", () => resolve()));
    ok.connect({ host: "127.0.0.1", port: server.port, nick: "fwbot", username: "fw", gecos: "fw", auto_reconnect: false, account: { account: "bot", password: "secret" } });
    expect(await loggedIn).toBe("bot");
    await registered;
    const closedOk = new Promise<void>((resolve) => ok.once("socket close", () => resolve()));
    ok.quit("bye");
    await closedOk;

    const bad = new IRC.Client();
    const failed = new Promise<string>((resolve) => bad.once("sasl failed", (e) => resolve(e.reason)));
    bad.connect({ host: "127.0.0.1", port: server.port, nick: "fwbad", username: "fw", gecos: "fw", auto_reconnect: false, account: { account: "bot", password: "wrong" } });
    expect(await failed).toBe("fail");
    const closedBad = new Promise<void>((resolve) => bad.once("socket close", () => resolve()));
    bad.quit("bye");
    await closedBad;
  });
});
