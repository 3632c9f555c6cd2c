// Channels from raw sockets: JOIN/PART/KICK/TOPIC/NAMES/LIST/INVITE, channel and user
// modes, and every error numeric they can cause. Clients have no caps here, so lines carry
// no tags and are compared exactly.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, type IrcServer } from "../src/index.js";
import { RawClient } from "./helpers/raw-client.js";

let server: IrcServer;
const open: RawClient[] = [];
const user = async (nick: string): Promise<RawClient> => {
  const c = await RawClient.register(server.port, nick);
  open.push(c);
  return c;
};
const P = (nick: string): string => `${nick}!~${nick}@127.0.0.1`;

beforeAll(async () => {
  server = await startServer({ port: 0, stateDir: null });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await server.close();
});

describe("JOIN and PART", () => {
  it("creates the channel with the joiner as op, sends NAMES, and tells members about joins and parts", async () => {
    const op = await user("op");
    op.send("JOIN #Room");
    expect(await op.collectUntil(/ 366 /)).toEqual([
      `:${P("op")} JOIN #Room`,
      ":culture.local 353 op = #Room :@op",
      ":culture.local 366 op #Room :End of /NAMES list",
    ]);
    const guest = await user("guest");
    guest.send("JOIN #room"); // case-insensitive: same channel, its first spelling is kept
    expect(await guest.collectUntil(/ 366 /)).toEqual([
      `:${P("guest")} JOIN #Room`,
      ":culture.local 353 guest = #Room :@op guest",
      ":culture.local 366 guest #Room :End of /NAMES list",
    ]);
    expect(await op.next()).toBe(`:${P("guest")} JOIN #Room`);
    guest.send("PART #room :see you");
    expect(await guest.next()).toBe(`:${P("guest")} PART #Room :see you`);
    expect(await op.next()).toBe(`:${P("guest")} PART #Room :see you`);
    guest.send("PART #Room");
    expect(await guest.next()).toBe(":culture.local 442 guest #Room :You're not on that channel");
    guest.send("PART #nowhere");
    expect(await guest.next()).toBe(":culture.local 403 guest #nowhere :No such channel");
  });

  it("joins several channels with keys, ignores a repeat join, and JOIN 0 parts all", async () => {
    const a = await user("multi");
    a.send("JOIN #one,#two");
    await a.waitFor(/ 366 multi #two /);
    a.send("JOIN #one");
    expect(await a.sync()).toEqual([]);
    a.send("JOIN 0");
    expect(await a.next()).toBe(`:${P("multi")} PART #one :Left all channels`);
    expect(await a.next()).toBe(`:${P("multi")} PART #two :Left all channels`);
  });

  it("rejects invalid channel names with 403", async () => {
    const a = await user("badname");
    a.send("JOIN nochan");
    expect(await a.next()).toBe(":culture.local 403 badname nochan :No such channel");
    a.send(`JOIN #${"x".repeat(64)}`);
    expect(await a.next()).toBe(`:culture.local 403 badname #${"x".repeat(64)} :No such channel`);
  });

  it("enforces +k (475), +l (471), +i (473, INVITE lets in) and +b (474)", async () => {
    const op = await user("keeper");
    const other = await user("visitor");
    op.send("JOIN #locked");
    await op.waitFor(/ 366 /);

    op.send("MODE #locked +k sesame");
    expect(await op.next()).toBe(`:${P("keeper")} MODE #locked +k sesame`);
    other.send("JOIN #locked");
    expect(await other.next()).toBe(":culture.local 475 visitor #locked :Cannot join channel (+k)");
    other.send("JOIN #locked wrong");
    expect(await other.next()).toBe(":culture.local 475 visitor #locked :Cannot join channel (+k)");
    other.send("JOIN #locked sesame");
    expect(await other.waitFor(/JOIN/)).toBe(`:${P("visitor")} JOIN #locked`);
    other.send("PART #locked");
    await other.waitFor(/PART/);
    op.send("MODE #locked -k *");
    op.send("MODE #locked +l 1");
    await op.waitFor(/MODE #locked \+l 1$/);
    other.send("JOIN #locked");
    expect(await other.next()).toBe(":culture.local 471 visitor #locked :Cannot join channel (+l)");
    op.send("MODE #locked -l+i");
    expect(await op.waitFor(/MODE #locked -l\+i$/)).toBe(`:${P("keeper")} MODE #locked -l+i`);
    other.send("JOIN #locked");
    expect(await other.next()).toBe(":culture.local 473 visitor #locked :Cannot join channel (+i)");
    op.send("INVITE visitor #locked");
    expect(await op.waitFor(/ 341 /)).toBe(":culture.local 341 keeper visitor #locked");
    expect(await other.next()).toBe(`:${P("keeper")} INVITE visitor #locked`);
    other.send("JOIN #locked");
    expect(await other.next()).toBe(`:${P("visitor")} JOIN #locked`);
    await other.waitFor(/ 366 /);
    op.send("KICK #locked visitor");
    await other.waitFor(/KICK/);
    op.send("MODE #locked -i");
    op.send("MODE #locked +b visitor");
    expect(await op.waitFor(/\+b/)).toBe(`:${P("keeper")} MODE #locked +b visitor!*@*`);
    other.send("JOIN #locked");
    expect(await other.next()).toBe(":culture.local 474 visitor #locked :Cannot join channel (+b)");
    op.send("MODE #locked b");
    const bans = await op.collectUntil(/ 368 /);
    expect(bans[0]).toMatch(new RegExp(`^:culture\\.local 367 keeper #locked visitor!\\*@\\* ${P("keeper").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\d+$`));
    expect(bans[1]).toBe(":culture.local 368 keeper #locked :End of channel ban list");
  });

  it("limits channels per client (405)", async () => {
    const a = await user("hoarder");
    a.send(`JOIN ${Array.from({ length: 100 }, (_, i) => `#h${i}`).join(",")}`);
    await a.waitFor(/ 366 hoarder #h99 /);
    a.send("JOIN #h100");
    expect(await a.next()).toBe(":culture.local 405 hoarder #h100 :You have joined too many channels");
  });
});

describe("KICK, TOPIC, INVITE", () => {
  it("lets ops kick (482, 441, 401, 442, 403 otherwise) and tells everyone", async () => {
    const op = await user("boss");
    const a = await user("worker");
    const outsider = await user("outsider");
    op.send("JOIN #work");
    await op.waitFor(/ 366 /);
    a.send("JOIN #work");
    await a.waitFor(/ 366 /);
    await op.waitFor(/JOIN/);
    a.send("KICK #work boss");
    expect(await a.next()).toBe(":culture.local 482 worker #work :You're not channel operator");
    outsider.send("KICK #work worker");
    expect(await outsider.next()).toBe(":culture.local 442 outsider #work :You're not on that channel");
    outsider.send("KICK #nowhere worker");
    expect(await outsider.next()).toBe(":culture.local 403 outsider #nowhere :No such channel");
    op.send("KICK #work outsider");
    expect(await op.next()).toBe(":culture.local 441 boss outsider #work :They aren't on that channel");
    op.send("KICK #work ghost");
    expect(await op.next()).toBe(":culture.local 401 boss ghost :No such nick/channel");
    op.send("KICK #work worker :off you go");
    expect(await op.next()).toBe(`:${P("boss")} KICK #work worker :off you go`);
    expect(await a.next()).toBe(`:${P("boss")} KICK #work worker :off you go`);
    a.send("PRIVMSG #work :still here?");
    expect(await a.next()).toBe(":culture.local 404 worker #work :Cannot send to channel");
  });

  it("queries, sets and locks the topic (331, 332, 333, 482 under +t)", async () => {
    const op = await user("chair");
    const a = await user("member");
    op.send("JOIN #talk");
    await op.waitFor(/ 366 /);
    a.send("JOIN #talk");
    await a.waitFor(/ 366 /);
    await op.waitFor(/JOIN/);
    a.send("TOPIC #talk");
    expect(await a.next()).toBe(":culture.local 331 member #talk :No topic is set");
    a.send("TOPIC #talk :mine now");
    expect(await a.next()).toBe(":culture.local 482 member #talk :You're not channel operator");
    op.send("TOPIC #talk :Agenda: ship it");
    expect(await op.next()).toBe(`:${P("chair")} TOPIC #talk :Agenda: ship it`);
    expect(await a.next()).toBe(`:${P("chair")} TOPIC #talk :Agenda: ship it`);
    a.send("TOPIC #talk");
    expect(await a.next()).toBe(":culture.local 332 member #talk :Agenda: ship it");
    expect(await a.next()).toMatch(new RegExp(`^:culture\\.local 333 member #talk chair!~chair@127\\.0\\.0\\.1 \\d+$`));
    op.send("MODE #talk -t");
    await a.waitFor(/MODE #talk -t/);
    a.send("TOPIC #talk :open topic");
    expect(await a.next()).toBe(`:${P("member")} TOPIC #talk :open topic`);
    const late = await user("late");
    late.send("JOIN #talk");
    const joined = await late.collectUntil(/ 366 /);
    expect(joined[1]).toBe(":culture.local 332 late #talk :open topic");
    late.send("TOPIC #talk :x");
    // -t: any member may set it.
    expect(await late.next()).toBe(`:${P("late")} TOPIC #talk :x`);
    const outsider = await user("nosy");
    outsider.send("TOPIC #talk :hijack");
    expect(await outsider.next()).toBe(":culture.local 442 nosy #talk :You're not on that channel");
  });

  it("answers INVITE errors (401, 403, 442, 443, 482) and 301 for an away target", async () => {
    const op = await user("host");
    const b = await user("friend");
    const c = await user("stranger");
    op.send("JOIN #party");
    await op.waitFor(/ 366 /);
    b.send("JOIN #party");
    await b.waitFor(/ 366 /);
    op.send("INVITE ghost #party");
    expect(await op.waitFor(/ 401 /)).toBe(":culture.local 401 host ghost :No such nick/channel");
    op.send("INVITE friend #party");
    expect(await op.next()).toBe(":culture.local 443 host friend #party :is already on channel");
    op.send("INVITE friend #nope");
    expect(await op.next()).toBe(":culture.local 403 host #nope :No such channel");
    c.send("INVITE friend #party");
    expect(await c.next()).toBe(":culture.local 442 stranger #party :You're not on that channel");
    op.send("MODE #party +i");
    await op.waitFor(/MODE/);
    await b.waitFor(/MODE/);
    b.send("INVITE stranger #party");
    expect(await b.next()).toBe(":culture.local 482 friend #party :You're not channel operator");
    c.send("AWAY :lunch");
    await c.waitFor(/ 306 /);
    op.send("INVITE stranger #party");
    expect(await op.collectUntil(/ 301 /)).toEqual([
      ":culture.local 341 host stranger #party",
      ":culture.local 301 host stranger :lunch",
    ]);
  });
});

describe("NAMES, LIST and secrecy", () => {
  it("lists channels with counts and topics, hides +s channels and +i users from outsiders", async () => {
    const a = await user("lister");
    const hidden = await user("ghosty");
    a.send("JOIN #pub");
    await a.waitFor(/ 366 /);
    a.send("TOPIC #pub :public things");
    hidden.send("MODE ghosty +i");
    expect(await hidden.next()).toBe(`:${P("ghosty")} MODE ghosty :+i`);
    hidden.send("JOIN #pub,#secret");
    await hidden.waitFor(/ 366 ghosty #secret /);
    hidden.send("MODE #secret +s");
    await hidden.waitFor(/MODE #secret \+s/);
    const outsider = await user("peeker");
    outsider.send("LIST");
    const list = await outsider.collectUntil(/ 323 /);
    expect(list[0]).toBe(":culture.local 321 peeker Channel :Users  Name");
    // ghosty is +i and peeker shares no channel: the count covers visible users only.
    expect(list).toContain(":culture.local 322 peeker #pub 1 :public things");
    expect(list.some((l) => l.includes("#secret"))).toBe(false);
    expect(list.at(-1)).toBe(":culture.local 323 peeker :End of /LIST");
    outsider.send("NAMES #pub");
    expect(await outsider.collectUntil(/ 366 /)).toEqual([
      ":culture.local 353 peeker = #pub :@lister",
      ":culture.local 366 peeker #pub :End of /NAMES list",
    ]);
    outsider.send("NAMES #secret");
    expect(await outsider.next()).toBe(":culture.local 366 peeker #secret :End of /NAMES list");
    hidden.send("NAMES #secret");
    expect(await hidden.collectUntil(/ 366 /)).toEqual([
      ":culture.local 353 ghosty @ #secret :@ghosty",
      ":culture.local 366 ghosty #secret :End of /NAMES list",
    ]);
    outsider.send("MODE ghosty +i");
    expect(await outsider.next()).toBe(":culture.local 502 peeker :Can't change mode for other users");
    outsider.send("MODE peeker +x");
    expect(await outsider.next()).toBe(":culture.local 501 peeker :Unknown MODE flag");
    outsider.send("MODE peeker");
    expect(await outsider.next()).toBe(":culture.local 221 peeker +");
  });
});

describe("channel MODE", () => {
  it("shows modes (324, 329), gives and takes op and voice, and reports bad modes", async () => {
    const op = await user("moder");
    const b = await user("voiced");
    op.send("JOIN #m");
    await op.waitFor(/ 366 /);
    b.send("JOIN #m");
    await b.waitFor(/ 366 /);
    await op.waitFor(/JOIN/);
    op.send("MODE #m");
    expect(await op.next()).toBe(":culture.local 324 moder #m +nt");
    expect(await op.next()).toMatch(/^:culture\.local 329 moder #m \d+$/);
    b.send("MODE #m +m");
    expect(await b.next()).toBe(":culture.local 482 voiced #m :You're not channel operator");
    op.send("MODE #m +mv voiced");
    expect(await op.next()).toBe(`:${P("moder")} MODE #m +mv voiced`);
    expect(await b.next()).toBe(`:${P("moder")} MODE #m +mv voiced`);
    b.send("PRIVMSG #m :I may speak");
    expect(await op.next()).toBe(`:${P("voiced")} PRIVMSG #m :I may speak`);
    op.send("MODE #m -v+o voiced voiced");
    expect(await op.next()).toBe(`:${P("moder")} MODE #m -v+o voiced voiced`);
    op.send("MODE #m -o voiced");
    await op.next();
    b.send("PRIVMSG #m :muted?");
    expect(await b.waitFor(/ 404 /)).toBe(":culture.local 404 voiced #m :Cannot send to channel");
    op.send("MODE #m +z");
    expect(await op.next()).toBe(":culture.local 472 moder z :is unknown mode char to me");
    op.send("MODE #m +o nobody");
    expect(await op.next()).toBe(":culture.local 401 moder nobody :No such nick/channel");
    op.send("MODE #m +l abc");
    expect(await op.next()).toBe(":culture.local 696 moder #m l abc :Invalid limit");
    op.send("MODE #m +k");
    expect(await op.next()).toBe(":culture.local 461 moder MODE :Not enough parameters");
    op.send("MODE #nosuch");
    expect(await op.next()).toBe(":culture.local 403 moder #nosuch :No such channel");
    op.send("MODE #m +n");
    expect(await op.sync()).toEqual([]); // already +n: nothing changed, nothing sent
  });

  it("keeps +n: outsiders cannot send unless -n", async () => {
    const op = await user("guard");
    const out = await user("shouter");
    op.send("JOIN #quiet");
    await op.waitFor(/ 366 /);
    out.send("PRIVMSG #quiet :hello from outside");
    expect(await out.next()).toBe(":culture.local 404 shouter #quiet :Cannot send to channel");
    op.send("MODE #quiet -n");
    await op.next();
    out.send("PRIVMSG #quiet :hello from outside");
    expect(await op.next()).toBe(`:${P("shouter")} PRIVMSG #quiet :hello from outside`);
  });
});
