// Messages and presence: PRIVMSG/NOTICE/TAGMSG with their errors, IRCv3 tags (server-time,
// msgid, client tags), echo-message, AWAY, NICK and QUIT as peers see them, WHO/WHOIS.
import IRC from "irc-framework";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, type IrcServer } from "../src/index.js";
import { RawClient, tagsOf, withoutTags } from "./helpers/raw-client.js";

let server: IrcServer;
const open: RawClient[] = [];
const user = async (nick: string, caps?: string[]): Promise<RawClient> => {
  const c = await RawClient.register(server.port, nick, { caps });
  open.push(c);
  return c;
};
const P = (nick: string): string => `${nick}!~${nick}@127.0.0.1`;
const joinAll = async (channel: string, ...clients: RawClient[]): Promise<void> => {
  for (const c of clients) {
    c.send(`JOIN ${channel}`);
    await c.waitFor(/ 366 /);
  }
  // Everyone has seen everyone's JOIN once each client's own sync returns.
  for (const c of clients) await c.sync();
};

beforeAll(async () => {
  server = await startServer({ port: 0, stateDir: null });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await server.close();
});

describe("PRIVMSG and NOTICE", () => {
  it("delivers once per distinct target: a repeated target (in any case) is one message", async () => {
    const a = await user("anna2");
    const b = await user("ben2");
    await joinAll("#rep", a, b);
    a.send("PRIVMSG ben2,ben2,BEN2,ben2 :one dm");
    a.send("PRIVMSG #rep,#REP,#rep :one channel line");
    a.send("PRIVMSG ben2 :done");
    await b.waitFor(/:done$/);
    const got = b.lines.filter((l) => / PRIVMSG /.test(l)).map((l) => withoutTags(l).replace(/^\S+ /, ""));
    expect(got).toEqual(["PRIVMSG ben2 :one dm", "PRIVMSG #rep :one channel line", "PRIVMSG ben2 :done"]);
  });

  it("delivers to channel members (not back to the sender) and to nicks", async () => {
    const a = await user("anna");
    const b = await user("ben");
    await joinAll("#chat", a, b);
    a.send("PRIVMSG #chat :hello, channel");
    expect(await b.next()).toBe(`:${P("anna")} PRIVMSG #chat :hello, channel`);
    a.send("NOTICE #chat :a notice");
    expect(await b.next()).toBe(`:${P("anna")} NOTICE #chat :a notice`);
    a.send("PRIVMSG BEN :psst"); // nicks are case-insensitive
    expect(await b.next()).toBe(`:${P("anna")} PRIVMSG ben :psst`);
    a.send("PRIVMSG ben,#chat :both");
    expect(await b.next()).toBe(`:${P("anna")} PRIVMSG ben :both`);
    expect(await b.next()).toBe(`:${P("anna")} PRIVMSG #chat :both`);
    expect(await a.sync()).toEqual([]); // no echo without echo-message
  });

  it("answers 411, 412, 401, 403, 404, 407 to PRIVMSG and stays silent for NOTICE", async () => {
    const a = await user("errs");
    a.send("PRIVMSG :");
    expect(await a.next()).toBe(":culture.local 411 errs :No recipient given (PRIVMSG)");
    a.send("PRIVMSG someone");
    expect(await a.next()).toBe(":culture.local 412 errs :No text to send");
    a.send("PRIVMSG nobody :hi");
    expect(await a.next()).toBe(":culture.local 401 errs nobody :No such nick/channel");
    a.send("PRIVMSG #void :hi");
    expect(await a.next()).toBe(":culture.local 403 errs #void :No such channel");
    const owner = await user("owner");
    await joinAll("#closed", owner);
    a.send("PRIVMSG #closed :let me in");
    expect(await a.next()).toBe(":culture.local 404 errs #closed :Cannot send to channel");
    // Repeated targets count once (one delivery per distinct target): four distinct ones fit.
    a.send("PRIVMSG owner,owner,OWNER,owner,owner :five");
    a.send("PRIVMSG owner,n1,n2,n3,n4 :five");
    for (const n of ["n1", "n2", "n3"]) expect(await a.next()).toBe(`:culture.local 401 errs ${n} :No such nick/channel`);
    expect(await a.next()).toBe(":culture.local 407 errs n4 :Too many targets");
    a.send("NOTICE nobody :hi");
    a.send("NOTICE #void :hi");
    a.send("NOTICE #closed :hi");
    a.send("NOTICE someone");
    expect(await a.sync()).toEqual([]);
  });

  it("cuts relayed text to fit 512 bytes on a character boundary", async () => {
    const a = await user("longtalker");
    const b = await user("reader");
    await joinAll("#long", a, b);
    const text = "é".repeat(240); // 480 bytes: fits from the client, not with our prefix added
    a.send(`PRIVMSG #long :${text}`);
    const got = await b.next();
    expect(Buffer.byteLength(got) + 2).toBeLessThanOrEqual(512);
    expect(got.startsWith(`:${P("longtalker")} PRIVMSG #long :éé`)).toBe(true);
    expect(got).not.toContain("\ufffd");
  });

  it("sends ops-only and voiced-or-better messages with STATUSMSG prefixes", async () => {
    const op = await user("chief");
    const v = await user("vee");
    const pleb = await user("pleb");
    await joinAll("#ranks", op, v, pleb);
    op.send("MODE #ranks +v vee");
    await Promise.all([op.waitFor(/MODE/), v.waitFor(/MODE/), pleb.waitFor(/MODE/)]);
    pleb.send("PRIVMSG @#ranks :to ops only");
    expect(await op.next()).toBe(`:${P("pleb")} PRIVMSG @#ranks :to ops only`);
    pleb.send("PRIVMSG +#ranks :to voiced");
    expect(await op.next()).toBe(`:${P("pleb")} PRIVMSG +#ranks :to voiced`);
    expect(await v.next()).toBe(`:${P("pleb")} PRIVMSG +#ranks :to voiced`);
    expect(await v.sync()).toEqual([]);
  });
});

describe("IRCv3 tags", () => {
  it("stamps server-time and msgid per recipient caps, forwards client tags only with message-tags", async () => {
    const sender = await user("tagger", ["message-tags"]);
    const rich = await user("rich", ["message-tags", "server-time"]);
    const timeOnly = await user("clock", ["server-time"]);
    const plain = await user("plainy");
    await joinAll("#tags", sender, rich, timeOnly, plain);
    const before = Date.now();
    sender.send("@+draft/reply=abc;+x=a\\sb;notclient=1 PRIVMSG #tags :tagged");
    const r = await rich.next();
    const t = await timeOnly.next();
    const p = await plain.next();
    expect(withoutTags(r)).toBe(`:${P("tagger")} PRIVMSG #tags :tagged`);
    const rt = tagsOf(r);
    expect(rt.get("msgid")).toMatch(/^\S+$/);
    expect(rt.get("+draft/reply")).toBe("abc");
    expect(rt.get("+x")).toBe("a\\sb"); // still escaped on the wire
    expect(rt.has("notclient")).toBe(false); // only + tags come from clients
    const time = Date.parse(rt.get("time")!);
    expect(rt.get("time")).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(time).toBeGreaterThanOrEqual(before - 1);
    expect([...tagsOf(t).keys()]).toEqual(["time"]);
    expect(tagsOf(t).get("time")).toBe(rt.get("time"));
    expect(p).toBe(`:${P("tagger")} PRIVMSG #tags :tagged`);
    sender.send("PRIVMSG #tags :second");
    const r2 = await rich.next();
    expect(tagsOf(r2).get("msgid")).not.toBe(rt.get("msgid"));
  });

  it("relays TAGMSG only to clients with message-tags", async () => {
    const a = await user("typer", ["message-tags"]);
    const b = await user("watcher", ["message-tags"]);
    const c = await user("oldclient");
    await joinAll("#typing", a, b, c);
    a.send("@+typing=active TAGMSG #typing");
    const got = await b.next();
    expect(withoutTags(got)).toBe(`:${P("typer")} TAGMSG #typing`);
    expect(tagsOf(got).get("+typing")).toBe("active");
    expect(await c.sync()).toEqual([]);
    a.send("@+typing=active TAGMSG watcher");
    expect(withoutTags(await b.next())).toBe(`:${P("typer")} TAGMSG watcher`);
  });

  it("echoes a client's own messages with echo-message, same msgid as the recipients get", async () => {
    const a = await user("echoer", ["echo-message", "message-tags"]);
    const b = await user("hearer", ["message-tags"]);
    await joinAll("#echo", a, b);
    a.send("PRIVMSG #echo :hear me");
    const echoed = await a.next();
    const heard = await b.next();
    expect(withoutTags(echoed)).toBe(`:${P("echoer")} PRIVMSG #echo :hear me`);
    expect(tagsOf(echoed).get("msgid")).toBe(tagsOf(heard).get("msgid"));
    a.send("PRIVMSG hearer :direct");
    expect(withoutTags(await a.next())).toBe(`:${P("echoer")} PRIVMSG hearer :direct`);
    expect(withoutTags(await b.next())).toBe(`:${P("echoer")} PRIVMSG hearer :direct`);
  });

  it("works with irc-framework: its privmsg events carry our server time and msgid", async () => {
    const raw = await user("rawsender");
    await joinAll("#fw", raw);
    const client = new IRC.Client();
    const registered = new Promise<void>((resolve) => client.once("registered", () => resolve()));
    client.connect({ host: "127.0.0.1", port: server.port, nick: "fwreader", username: "fw", gecos: "fw", auto_reconnect: false });
    await registered;
    const joined = new Promise<void>((resolve) => client.once("join", () => resolve()));
    client.join("#fw");
    await joined;
    await raw.waitFor(/JOIN #fw/);
    const got = new Promise<IRC.MessageEvent>((resolve) => client.once("privmsg", resolve));
    raw.send("PRIVMSG #fw :for the library");
    const event = await got;
    expect(event).toMatchObject({ nick: "rawsender", target: "#fw", message: "for the library" });
    expect(event.tags.msgid).toMatch(/\S+/);
    expect(event.time).toBe(Date.parse(event.tags.time!));
    const closed = new Promise<void>((resolve) => client.once("socket close", () => resolve()));
    client.quit("bye");
    await closed;
  });
});

describe("presence", () => {
  it("AWAY: 306/305, 301 to senders of DMs, away-notify to peers, G in WHO", async () => {
    const a = await user("sleepy");
    const b = await user("notified", ["away-notify"]);
    await joinAll("#presence", a, b);
    a.send("AWAY :gone fishing");
    expect(await a.next()).toBe(":culture.local 306 sleepy :You have been marked as being away");
    expect(await b.next()).toBe(`:${P("sleepy")} AWAY :gone fishing`);
    b.send("PRIVMSG sleepy :you there?");
    expect(await b.next()).toBe(":culture.local 301 notified sleepy :gone fishing");
    b.send("WHO sleepy");
    expect(await b.next()).toBe(":culture.local 352 notified #presence ~sleepy 127.0.0.1 culture.local sleepy G@ :0 sleepy realname");
    a.send("AWAY");
    expect(await a.waitFor(/ 305 /)).toBe(":culture.local 305 sleepy :You are no longer marked as being away");
    expect(await b.waitFor(/AWAY/)).toBe(`:${P("sleepy")} AWAY`);
  });

  it("tells peers about NICK changes and QUITs, each once", async () => {
    const a = await user("changer");
    const b = await user("observer");
    await joinAll("#one", a, b);
    await joinAll("#two", a, b);
    a.send("NICK changed");
    expect(await a.next()).toBe(`:${P("changer")} NICK changed`);
    expect(await b.next()).toBe(`:${P("changer")} NICK changed`);
    a.send("QUIT :so long");
    expect(await a.next()).toBe("ERROR :Closing Link: 127.0.0.1 (Quit: so long)");
    expect(await b.next()).toBe(":changed!~changer@127.0.0.1 QUIT :Quit: so long");
    expect(await b.sync()).toEqual([]);
    await a.closed;
    b.send("NAMES #one");
    expect(await b.next()).toBe(":culture.local 353 observer = #one :observer");
  });

  it("tells peers when a connection just drops", async () => {
    const a = await user("dropper");
    const b = await user("witness");
    await joinAll("#drop", a, b);
    a.socket.destroy();
    expect(await b.next()).toBe(`:${P("dropper")} QUIT :Connection closed`);
  });

  it("WHOIS and WHO describe users; USERHOST and ISON answer", async () => {
    const a = await user("subject");
    const b = await user("asker");
    await joinAll("#place", a, b);
    b.send("WHOIS subject");
    const whois = await b.collectUntil(/ 318 /);
    expect(whois[0]).toBe(":culture.local 311 asker subject ~subject 127.0.0.1 * :subject realname");
    expect(whois[1]).toBe(":culture.local 319 asker subject :@#place");
    expect(whois[2]).toBe(":culture.local 312 asker subject culture.local :culture (culture embedded IRC server)");
    expect(whois[3]).toMatch(/^:culture\.local 317 asker subject \d+ \d+ :seconds idle, signon time$/);
    expect(whois[4]).toBe(":culture.local 318 asker subject :End of /WHOIS list");
    b.send("WHOIS ghost");
    expect(await b.collectUntil(/ 318 /)).toEqual([
      ":culture.local 401 asker ghost :No such nick/channel",
      ":culture.local 318 asker ghost :End of /WHOIS list",
    ]);
    b.send("WHOIS");
    expect(await b.next()).toBe(":culture.local 431 asker :No nickname given");
    b.send("WHO #place");
    expect(await b.collectUntil(/ 315 /)).toEqual([
      ":culture.local 352 asker #place ~subject 127.0.0.1 culture.local subject H@ :0 subject realname",
      ":culture.local 352 asker #place ~asker 127.0.0.1 culture.local asker H :0 asker realname",
      ":culture.local 315 asker #place :End of /WHO list",
    ]);
    b.send("WHO subj*");
    expect(await b.collectUntil(/ 315 /)).toEqual([
      ":culture.local 352 asker #place ~subject 127.0.0.1 culture.local subject H@ :0 subject realname",
      ":culture.local 315 asker subj* :End of /WHO list",
    ]);
    b.send("USERHOST subject nobody");
    expect(await b.next()).toBe(":culture.local 302 asker :subject=+~subject@127.0.0.1");
    b.send("ISON subject nobody asker");
    expect(await b.next()).toBe(":culture.local 303 asker :subject asker");
  });

  it("multi-prefix, userhost-in-names and extended-join change NAMES and JOIN", async () => {
    const op = await user("prefixed");
    await joinAll("#fancy", op);
    op.send("MODE #fancy +v prefixed");
    await op.waitFor(/MODE/);
    const rich = await user("fancy", ["multi-prefix", "userhost-in-names", "extended-join"]);
    rich.send("JOIN #fancy");
    expect(await rich.collectUntil(/ 366 /)).toEqual([
      `:${P("fancy")} JOIN #fancy * :fancy realname`,
      `:culture.local 353 fancy = #fancy :@+${P("prefixed")} ${P("fancy")}`,
      ":culture.local 366 fancy #fancy :End of /NAMES list",
    ]);
  });
});
