import { describe, expect, it } from "vitest";
import type { RawMessage } from "../src/irc/irc-line.js";
import { ReplyRequests } from "../src/irc/reply-requests.js";
import { topicRequest } from "../src/irc/topic-reply.js";
import { whoRequest, type WhoContext } from "../src/irc/who-reply.js";

function line(command: string, params: string[], nick = ""): RawMessage {
  return { tags: {}, prefix: nick, nick, ident: "", hostname: "", command, params };
}

/** A ReplyRequests wired to an array of sent lines, connected. */
function harness(timeoutMs = 10_000) {
  const sent: string[] = [];
  let open = true;
  const requests = new ReplyRequests({
    send: (l) => sent.push(l),
    timeoutMs,
    isOpen: () => open,
    notConnected: (what) => new Error(`not connected: ${what}`),
  });
  return { sent, requests, close: () => (open = false) };
}

const fold = (s: string): string => s.toLowerCase();
const prefix = [
  { symbol: "@", mode: "o" },
  { symbol: "+", mode: "v" },
];

describe("WHO replies", () => {
  it("WHOX: members with modes, away and account; the token keeps other 354s out; ends at 315", async () => {
    const { sent, requests } = harness();
    const accounts: Array<[string, string | undefined]> = [];
    const ctx: WhoContext = { whox: true, token: "123", prefix, fold, onAccount: (n, a) => accounts.push([n, a]) };
    const done = requests.send(whoRequest("#Chan", ctx));
    expect(sent).toEqual(["WHO #Chan %tnfa,123"]);
    expect(requests.claim(line("354", ["me", "999", "other", "H", "0"]))).toBe(false);
    expect(requests.claim(line("354", ["me", "123", "alice", "H@+", "alice-acct"]))).toBe(true);
    expect(requests.claim(line("354", ["me", "123", "bob", "G", "0"]))).toBe(true);
    expect(requests.claim(line("315", ["me", "#other", "End of /WHO list."]))).toBe(false);
    expect(requests.claim(line("315", ["me", "#CHAN", "End of /WHO list."]))).toBe(true);
    expect(await done).toEqual([
      { nick: "alice", modes: ["o", "v"], away: false, account: "alice-acct" },
      { nick: "bob", modes: [], away: true, account: null },
    ]);
    expect(accounts).toEqual([
      ["alice", "alice-acct"],
      ["bob", "0"],
    ]);
    // Finished: later lines are no longer claimed.
    expect(requests.claim(line("352", ["me", "#chan", "u", "h", "s", "late", "H", "0 x"]))).toBe(false);
  });

  it("plain WHO: 352 lines without accounts", async () => {
    const { sent, requests } = harness();
    const done = requests.send(whoRequest("#c", { whox: false, token: "1", prefix, fold, onAccount: () => {} }));
    expect(sent).toEqual(["WHO #c"]);
    requests.claim(line("352", ["me", "#c", "user", "host", "irc.example", "carol", "H+", "0 Carol"]));
    requests.claim(line("315", ["me", "#c", "End"]));
    expect(await done).toEqual([{ nick: "carol", modes: ["v"], away: false, account: null }]);
  });
});

describe("TOPIC replies", () => {
  it("a query ends at the PONG to its sentinel, with topic and setter", async () => {
    const { sent, requests } = harness();
    requests.nextId(); // the sentinel number comes from the shared counter
    const done = requests.send(topicRequest("#c", undefined, fold));
    expect(sent).toEqual(["TOPIC #c", "PING :culture-2"]);
    requests.claim(line("332", ["me", "#C", "the topic"]));
    requests.claim(line("333", ["me", "#c", "alice!u@h", "1700000000"]));
    requests.onPong("culture-1"); // not ours
    requests.onPong("culture-2");
    expect(await done).toEqual({ topic: "the topic", setBy: "alice" });
  });

  it("a change that is not echoed asks again; an echoed change is the result; an error numeric fails", async () => {
    const { requests } = harness();
    const unechoed = requests.send(topicRequest("#c", "same", fold));
    requests.onPong("culture-1");
    expect(await unechoed).toBe("query");

    const echoed = requests.send(topicRequest("#c", "new", fold));
    requests.claim(line("TOPIC", ["#c", "new"], "spark-bot"));
    requests.onPong("culture-2");
    expect(await echoed).toEqual({ topic: "new", setBy: "spark-bot" });

    const refused = requests.send(topicRequest("#c", "x", fold));
    requests.claim(line("482", ["me", "#c", "You're not channel operator"]));
    await expect(refused).rejects.toMatchObject({ code: "E_IRC_COMMAND_FAILED" });
  });
});

describe("ReplyRequests", () => {
  it("fails open requests on failAll and refuses new ones while not connected", async () => {
    const { requests, close } = harness();
    const pending = requests.send(topicRequest("#c", undefined, fold));
    requests.failAll(new Error("disconnected"));
    await expect(pending).rejects.toThrow("disconnected");
    requests.onPong("culture-1"); // the sentinel was forgotten: nothing happens
    close();
    await expect(requests.send(topicRequest("#c", undefined, fold))).rejects.toThrow("not connected: TOPIC #c");
  });

  it("times out with E_TIMEOUT", async () => {
    const { requests } = harness(20);
    await expect(requests.send(whoRequest("#c", { whox: false, token: "1", prefix, fold, onAccount: () => {} }))).rejects.toMatchObject({
      code: "E_TIMEOUT",
      message: "the IRC server did not answer WHO #c within 20 ms",
    });
  });

  it("serializes: a request starts after the one before it settled, even when that failed", async () => {
    const { requests } = harness();
    const order: string[] = [];
    let release!: () => void;
    const first = requests.serialized(
      () =>
        new Promise<void>((_, reject) => {
          order.push("first started");
          release = () => reject(new Error("first failed"));
        }),
    );
    const second = requests.serialized(async () => {
      order.push("second started");
    });
    await Promise.resolve();
    expect(order).toEqual(["first started"]);
    release();
    await expect(first).rejects.toThrow("first failed");
    await second;
    expect(order).toEqual(["first started", "second started"]);
  });
});
