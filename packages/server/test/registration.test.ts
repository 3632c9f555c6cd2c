// Registration, the welcome burst and ISUPPORT, CAP negotiation and PASS, from raw sockets
// (exact wire lines) and from irc-framework (a real client library's expectations).
import IRC from "irc-framework";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, type IrcServer } from "../src/index.js";
import { RawClient } from "./helpers/raw-client.js";

let server: IrcServer;
const clients: RawClient[] = [];
const connect = async (): Promise<RawClient> => {
  const c = await RawClient.connect(server.port);
  clients.push(c);
  return c;
};
const register = async (nick: string, opts: { caps?: string[] } = {}): Promise<RawClient> => {
  const c = await RawClient.register(server.port, nick, opts);
  clients.push(c);
  return c;
};

beforeAll(async () => {
  server = await startServer({ port: 0, stateDir: null, accounts: { bot: "secret" } });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await server.close();
});

describe("registration", () => {
  it("sends 001-005, LUSERS and 422 with the client's nick, then counts it", async () => {
    const c = await connect();
    c.send("NICK alice");
    c.send("USER alice 0 * :Alice Example");
    const burst = await c.collectUntil(/ 422 /);
    expect(burst[0]).toBe(":culture.local 001 alice :Welcome to the culture IRC Network alice!~alice@127.0.0.1");
    expect(burst[1]).toBe(":culture.local 002 alice :Your host is culture.local, running version culture-ircd-0.1.0");
    expect(burst[2]).toMatch(/^:culture\.local 003 alice :This server was created \w{3}, \d\d \w{3} \d{4} /);
    expect(burst[3]).toBe(":culture.local 004 alice culture.local culture-ircd-0.1.0 i biklmnostv bklov");
    const isupport = burst.filter((l) => l.includes(" 005 "));
    expect(isupport.length).toBeGreaterThanOrEqual(1);
    for (const line of isupport) {
      expect(line).toMatch(/ :are supported by this server$/);
      // At most 13 tokens + nick + text: within RFC 1459's 15 parameters.
      expect(line.split(" ").length - 3 - 5).toBeLessThanOrEqual(13);
    }
    const tokens = isupport.flatMap((l) => l.split(" :")[0]!.split(" ").slice(3));
    expect(tokens).toEqual(expect.arrayContaining([
      "CASEMAPPING=rfc1459", "CHANTYPES=#&", "PREFIX=(ov)@+", "CHANMODES=b,k,l,imnst", "NICKLEN=32",
      "CHANNELLEN=64", "TOPICLEN=390", "NETWORK=culture", "CHATHISTORY=1000", "MSGREFTYPES=msgid,timestamp",
      "MODES=4", "MAXTARGETS=4", "AWAYLEN=200", "KICKLEN=390",
    ]));
    expect(burst).toContain(":culture.local 251 alice :There are 1 users and 0 invisible on 1 servers");
    expect(burst).toContain(":culture.local 255 alice :I have 1 clients and 0 servers");
    expect(burst.at(-1)).toBe(":culture.local 422 alice :MOTD File is missing");
    expect(server.clientCount).toBe(1);
  });

  it("answers 451 to commands before registration, but PING works", async () => {
    const c = await connect();
    c.send("JOIN #a");
    expect(await c.next()).toBe(":culture.local 451 * :You have not registered");
    c.send("BOGUS x");
    expect(await c.next()).toBe(":culture.local 451 * :You have not registered");
    c.send("PING :early");
    expect(await c.next()).toBe(":culture.local PONG culture.local :early");
  });

  it("rejects missing, erroneous and taken nicks (431, 432, 433), case-insensitively", async () => {
    await register("Taken[1]");
    const c = await connect();
    c.send("NICK");
    expect(await c.next()).toBe(":culture.local 431 * :No nickname given");
    c.send("NICK 9lives");
    expect(await c.next()).toBe(":culture.local 432 * 9lives :Erroneous nickname");
    c.send(`NICK ${"n".repeat(33)}`);
    expect(await c.next()).toBe(`:culture.local 432 * ${"n".repeat(33)} :Erroneous nickname`);
    c.send("NICK taken{1}");
    expect(await c.next()).toBe(":culture.local 433 * taken{1} :Nickname is already in use");
    c.send("NICK free");
    c.send("USER free 0 * :Free");
    expect(await c.next()).toMatch(/^:culture\.local 001 free /);
  });

  it("reserves a nick for a client that is still registering", async () => {
    const a = await connect();
    a.send("NICK pending");
    await a.sync();
    const b = await connect();
    b.send("NICK pending");
    expect(await b.next()).toBe(":culture.local 433 * pending :Nickname is already in use");
  });

  it("answers 461 to USER with too few parameters, 462 to USER after registration, 421 to unknown commands", async () => {
    const c = await connect();
    c.send("USER onlyone");
    expect(await c.next()).toBe(":culture.local 461 * USER :Not enough parameters");
    await c.registerAs("regd");
    c.send("USER again 0 * :x");
    expect(await c.next()).toBe(":culture.local 462 regd :You may not reregister");
    c.send("FROBNICATE now");
    expect(await c.next()).toBe(":culture.local 421 regd FROBNICATE :Unknown command");
    c.send("PRIVMSG");
    expect(await c.next()).toBe(":culture.local 411 regd :No recipient given (PRIVMSG)");
    c.send("JOIN");
    expect(await c.next()).toBe(":culture.local 461 regd JOIN :Not enough parameters");
  });

  it("renames a registered client and tells it", async () => {
    const c = await register("before");
    c.send("NICK after");
    expect(await c.next()).toMatch(/^(@\S+ )?:before!~before@127\.0\.0\.1 NICK after$/);
    c.send("NICK AFTER");
    expect(await c.next()).toMatch(/^(@\S+ )?:after!~before@127\.0\.0\.1 NICK AFTER$/);
  });
});

describe("CAP negotiation", () => {
  it("lists capabilities, with values for 302, and holds registration until CAP END", async () => {
    const c = await connect();
    c.send("CAP LS");
    const ls = await c.next();
    expect(ls).toBe(
      ":culture.local CAP * LS :account-tag away-notify batch cap-notify draft/chathistory echo-message extended-join invite-notify message-tags multi-prefix sasl server-time userhost-in-names",
    );
    c.send("CAP LS 302");
    expect(await c.next()).toContain(" sasl=PLAIN ");
    c.send("NICK capper");
    c.send("USER capper 0 * :Cap");
    expect(await c.sync()).toEqual([]); // no 001 while negotiating
    c.send("CAP REQ :message-tags server-time");
    expect(await c.next()).toBe(":culture.local CAP capper ACK :message-tags server-time");
    c.send("CAP REQ :server-time no-such-cap");
    expect(await c.next()).toBe(":culture.local CAP capper NAK :server-time no-such-cap");
    c.send("CAP REQ :-server-time");
    expect(await c.next()).toBe(":culture.local CAP capper ACK :-server-time");
    c.send("CAP LIST");
    // cap-notify comes with CAP LS 302.
    expect(await c.next()).toBe(":culture.local CAP capper LIST :cap-notify message-tags");
    c.send("CAP FROB");
    expect(await c.next()).toBe(":culture.local 410 capper FROB :Invalid CAP command");
    c.send("CAP END");
    expect(await c.next()).toMatch(/^:culture\.local 001 capper /);
  });

  it("does not offer sasl without accounts", async () => {
    const plain = await startServer({ port: 0, stateDir: null });
    try {
      const c = await RawClient.connect(plain.port);
      clients.push(c);
      c.send("CAP LS 302");
      const ls = await c.next();
      expect(ls).toContain("draft/chathistory");
      expect(ls).not.toContain("sasl");
    } finally {
      await plain.close();
    }
  });

  it("registers irc-framework, which parses our ISUPPORT and gets its caps", async () => {
    const client = new IRC.Client();
    const registered = new Promise<void>((resolve) => client.once("registered", () => resolve()));
    client.connect({ host: "127.0.0.1", port: server.port, nick: "ircfw", username: "ircfw", gecos: "irc-framework", auto_reconnect: false, enable_echomessage: true });
    await registered;
    await new Promise<void>((resolve) => {
      const check = () => (client.network.options.CASEMAPPING ? resolve() : setTimeout(check, 5));
      check();
    });
    expect(client.network.options.CASEMAPPING).toBe("rfc1459");
    expect(client.network.options.PREFIX).toEqual([{ symbol: "@", mode: "o" }, { symbol: "+", mode: "v" }]);
    expect(client.network.options.CHANTYPES).toEqual(["#", "&"]);
    expect(client.network.name).toBe("culture");
    expect(client.network.cap.enabled).toEqual(
      expect.arrayContaining(["message-tags", "server-time", "batch", "echo-message", "account-tag", "multi-prefix", "extended-join", "away-notify"]),
    );
    const closed = new Promise<void>((resolve) => client.once("socket close", () => resolve()));
    client.quit("done");
    await closed;
  });
});

describe("PASS", () => {
  let locked: IrcServer;
  beforeAll(async () => {
    locked = await startServer({ port: 0, stateDir: null, password: "letmein" });
  });
  afterAll(async () => {
    await locked.close();
  });

  it("refuses a wrong password with 464 and ERROR, and closes", async () => {
    const c = await RawClient.connect(locked.port);
    clients.push(c);
    c.send("PASS wrong");
    c.send("NICK intruder");
    c.send("USER intruder 0 * :x");
    expect(await c.next()).toBe(":culture.local 464 intruder :Password incorrect");
    expect(await c.next()).toBe("ERROR :Closing Link: 127.0.0.1 (Bad password)");
    await c.closed;
    expect(locked.clientCount).toBe(0);
  });

  it("registers with the right password, and refuses PASS afterwards", async () => {
    const c = await RawClient.connect(locked.port);
    clients.push(c);
    c.send("PASS letmein");
    await c.registerAs("friend");
    c.send("PASS letmein");
    expect(await c.next()).toBe(":culture.local 462 friend :You may not reregister");
  });
});
