import { describe, expect, it } from "vitest";
import type { RawMessage } from "../src/irc/irc-line.js";
import { toMessageEvent, type MessageEventContext } from "../src/irc/message-event.js";

const NOW = Date.parse("2026-01-02T03:04:05.000Z");

function line(prefixNick: string, command: string, params: string[], tags: Record<string, string> = {}): RawMessage {
  return { tags, prefix: prefixNick ? `${prefixNick}!u@h` : "irc.example", nick: prefixNick, ident: "u", hostname: "h", command, params };
}

function context(over: Partial<MessageEventContext> = {}): MessageEventContext {
  const joined = new Map([["#chan", "#Chan"]]);
  return {
    chantypes: "#&",
    statusmsg: "@+",
    fold: (name) => name.toLowerCase(),
    isMe: (nick) => nick.toLowerCase() === "spark-bot",
    joinedName: (key) => joined.get(key),
    inHistoryBatch: (ref) => ref === "hist1",
    accountOf: (nick, tags) => tags.account ?? (nick === "alice" ? "alice-acct" : null),
    now: () => NOW,
    ...over,
  };
}

describe("toMessageEvent", () => {
  it("a channel PRIVMSG uses the joined channel's spelling, the server-time and the account", () => {
    const out = toMessageEvent(line("alice", "PRIVMSG", ["#CHAN", "hello there"], { time: "2026-01-01T00:00:00.123Z" }), context());
    expect(out).toEqual({
      self: false,
      channelKey: "#chan",
      event: {
        kind: "privmsg",
        nick: "alice",
        target: "#Chan",
        text: "hello there",
        account: "alice-acct",
        tags: { time: "2026-01-01T00:00:00.123Z" },
        time: Date.parse("2026-01-01T00:00:00.123Z"),
        isDm: false,
        bufferKey: "#Chan",
      },
    });
  });

  it("a DM is buffered under the sender; our own DM echo under its target", () => {
    const dm = toMessageEvent(line("bob", "PRIVMSG", ["spark-bot", "hi"]), context());
    expect(dm).toMatchObject({ self: false, channelKey: null, event: { isDm: true, target: "spark-bot", bufferKey: "DM:bob", time: NOW } });
    const echo = toMessageEvent(line("spark-bot", "PRIVMSG", ["bob", "hi back"]), context());
    expect(echo).toMatchObject({ self: true, channelKey: null, event: { isDm: true, target: "bob", bufferKey: "DM:bob" } });
  });

  it("NOTICE and /me ACTION have their kinds; other CTCP and server notices are not events", () => {
    expect(toMessageEvent(line("bob", "NOTICE", ["#chan", "fyi"]), context())?.event.kind).toBe("notice");
    const action = toMessageEvent(line("bob", "PRIVMSG", ["#chan", "\x01ACTION waves\x01"]), context());
    expect(action?.event).toMatchObject({ kind: "action", text: "waves" });
    expect(toMessageEvent(line("bob", "PRIVMSG", ["spark-bot", "\x01VERSION\x01"]), context())).toBeNull();
    expect(toMessageEvent(line("bob", "NOTICE", ["#chan", "\x01ACTION waves\x01"]), context())).toBeNull();
    expect(toMessageEvent(line("", "NOTICE", ["*", "*** Looking up your hostname"]), context())).toBeNull();
  });

  it("a STATUSMSG target (@#chan) is a message to the channel", () => {
    const out = toMessageEvent(line("bob", "PRIVMSG", ["@#chan", "ops only"]), context());
    expect(out).toMatchObject({ channelKey: "#chan", event: { target: "#Chan", isDm: false } });
    // Without STATUSMSG the prefix is not stripped and `@#chan` is not a channel name.
    const plain = toMessageEvent(line("bob", "PRIVMSG", ["@#chan", "ops only"]), context({ statusmsg: "" }));
    expect(plain).toMatchObject({ channelKey: null, event: { isDm: true, bufferKey: "DM:bob" } });
  });

  it("a line in a history batch is replayed; a bad time tag falls back to now", () => {
    const out = toMessageEvent(line("bob", "PRIVMSG", ["#chan", "earlier"], { batch: "hist1", time: "not a time" }), context());
    expect(out?.event).toMatchObject({ replayed: true, time: NOW });
    const live = toMessageEvent(line("bob", "PRIVMSG", ["#chan", "now"], { batch: "other" }), context());
    expect(live?.event.replayed).toBeUndefined();
  });

  it("a channel we have not joined keeps the spelling of the line", () => {
    const out = toMessageEvent(line("bob", "PRIVMSG", ["&Other", "x"]), context());
    expect(out).toMatchObject({ channelKey: "&other", event: { target: "&Other", bufferKey: "&Other", account: null } });
  });
});
