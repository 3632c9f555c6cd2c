/**
 * The build gives irc-framework two more stand-ins (packages/core/tsup.config.ts): one small
 * module for the 14 lodash functions it requires, and Intl.Segmenter behind grapheme-splitter's
 * API. Here irc-framework's own code runs twice, once on the real packages and once on the
 * stand-ins (its require() of `lodash/<name>` and `grapheme-splitter` answered from
 * src/irc/shims/), through the same conversation with a server; what it emits, writes and keeps
 * must be the same. Then each lodash function is compared with lodash on the inputs
 * irc-framework gives it, and the grapheme splitter on scripts where a cut would show.
 */
import { EventEmitter } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import GraphemeSplitter from "../src/irc/shims/grapheme-splitter-intl.js";
import * as lite from "../src/irc/shims/lodash-lite.js";

const ifRequire = createRequire(createRequire(import.meta.url).resolve("irc-framework/package.json"));
const ifSource = join(dirname(ifRequire.resolve("irc-framework/package.json")), "src");
const Module = ifRequire("node:module") as { _load: (request: string, parent: { filename?: string } | undefined, isMain: boolean) => unknown };
const lodash = ifRequire("lodash") as Record<string, (...args: any[]) => any>;
const RealSplitter = ifRequire("grapheme-splitter") as new () => { splitGraphemes(s: string): string[] };

type Framework = { Client: any; Helpers: any; ircLineParser: (line: string) => any };

/**
 * Runs `use` on a fresh copy of irc-framework, on the real lodash and grapheme-splitter or on the
 * stand-ins (its require() answered from src/irc/shims/ for as long as `use` runs: it requires
 * some of its files only when a client is made). Also says which lodash functions it required.
 */
async function withIrcFramework<T>(shims: boolean, use: (framework: Framework) => T | Promise<T>): Promise<{ result: T; used: Set<string> }> {
  const used = new Set<string>();
  for (const key of Object.keys(ifRequire.cache)) if (key.startsWith(ifSource)) delete ifRequire.cache[key];
  const load = Module._load;
  Module._load = function (request, parent, isMain) {
    if (parent?.filename?.startsWith(ifSource)) {
      if (request.startsWith("lodash/")) used.add(request.slice(7));
      if (shims && request.startsWith("lodash/")) return (lite as Record<string, unknown>)[request.slice(7)] ?? fail(request);
      if (shims && request === "grapheme-splitter") return GraphemeSplitter;
    }
    return load.call(this, request, parent, isMain);
  };
  try {
    return { result: await use(ifRequire(ifSource) as Framework), used };
  } finally {
    Module._load = load;
    for (const key of Object.keys(ifRequire.cache)) if (key.startsWith(ifSource)) delete ifRequire.cache[key];
  }
}
const fail = (request: string) => {
  throw new Error(`the stand-in has no ${request}`);
};

/** A transport that records what the client writes and connects at once. */
function fakeTransport(written: string[]) {
  return class extends EventEmitter {
    connect() {
      queueMicrotask(() => this.emit("open"));
    }
    writeLine(line: string, cb?: () => void) {
      written.push(line);
      cb?.();
    }
    isConnected() {
      return true;
    }
    setEncoding() {
      return true;
    }
    disposeSocket() {}
    close() {}
  };
}

// What a server says: CAP negotiation (uniq, intersection, difference), ISUPPORT with PREFIX and
// STATUSMSG (find on a string, reduce), NAMES and channel modes (each, find with an object,
// pull), WHO (map by property name), tagged messages (clone of a null-prototype object),
// a missing MOTD (clone of params), MONITOR (map), CTCP ACTION and query messages (extend).
const serverLines = [
  ":irc.test CAP * LS * :multi-prefix away-notify extended-join server-time",
  ":irc.test CAP * LS :message-tags echo-message batch account-tag chghost userhost-in-names cap-notify",
  ":irc.test CAP * ACK :multi-prefix away-notify server-time message-tags extended-join",
  ":irc.test CAP * NAK :chghost",
  ":irc.test CAP * NEW :setname",
  ":irc.test CAP * DEL :away-notify",
  ":irc.test 001 me :Welcome to the test network me",
  ":irc.test 005 me PREFIX=(qaohv)~&@%+ CHANMODES=beI,k,l,imnpst STATUSMSG=~&@%+ CHANTYPES=# NETWORK=Test MONITOR=100 :are supported",
  ":irc.test 422 me :MOTD File is missing",
  ":me!u@h JOIN #a * :Me",
  ":irc.test 353 me = #a :~me @alice +bob carol",
  ":irc.test 366 me #a :End of /NAMES list.",
  ":alice!a@h MODE #a +ov-v+bk carol bob bob *!*@bad sekrit",
  ":alice!a@h MODE #a -o+h carol carol",
  ":irc.test 352 me #a alice h irc.test alice H@ :0 Alice",
  ":irc.test 352 me #a me h irc.test me G~ :0 Me",
  ":irc.test 315 me #a :End of /WHO list.",
  "@time=2020-01-01T00:00:00.000Z;+draft/reply=abc;account=al :alice!a@h PRIVMSG #a :hello there",
  ":alice!a@h PRIVMSG @#a :for the ops",
  ":alice!a@h NOTICE me :a notice",
  ":alice!a@h PRIVMSG me :\x01ACTION waves\x01",
  "@+typing=active :alice!a@h TAGMSG #a",
  ":irc.test 730 me :alice!a@h,bob!b@h",
  ":irc.test 731 me :carol",
  ":bob!b@h PART #a :bye",
  ":alice!a@h KICK #a carol :out",
];

/** Runs the conversation and returns everything observable: events, written lines, state. */
async function converse(framework: Framework) {
  const written: string[] = [];
  const events: unknown[] = [];
  const client = new framework.Client({ nick: "me", username: "u", gecos: "Me", transport: fakeTransport(written), auto_reconnect: false, ping_interval: 0, ping_timeout: 0 });
  client.on("raw", () => {});
  const seen = ["registered", "join", "userlist", "mode", "wholist", "privmsg", "notice", "action", "message", "tagmsg", "users online", "users offline", "part", "kick", "motd", "cap ls", "cap ack", "cap nak", "cap new", "cap del"];
  for (const name of seen) client.on(name, (e: unknown) => events.push([name, e]));
  client.requestCap(["server-time", "batch", "server-time"]);
  client.connect();
  await new Promise((r) => setImmediate(r));
  const channel = client.channel("#a");
  for (const line of serverLines) client.connection.addReadBuffer(line);
  channel.say("hi from a channel object"); // partial
  client.whois("alice", "alice", () => {}); // each over arguments
  client.say("#a", `${"word ".repeat(90)}${"👩‍👩‍👧‍👦🇫🇷é".repeat(40)}`); // lineBreak over graphemes
  client.action("#a", "漢字".repeat(200));
  const who = new Promise((resolve) => client.who("", resolve)); // defer, bind: an empty target answers at once
  events.push(["who", await who]);
  const state = {
    cap: { ...client.network.cap, available: [...client.network.cap.available] },
    options: client.network.options,
    users: channel.users,
    modeList: client.command_handler.parseModeList("+ovk-b+l alice bob key *!*@x 10", []),
    flags: framework.Helpers.parseWhoFlags("G*@+", client.network.options),
    target: client.network.extractTargetGroup("@#a"),
  };
  client.connection.clearTimers?.();
  client.removeAllListeners();
  const lines = written.map((l) => l.replace(/^PING \d+$/, "PING <now>"));
  return JSON.parse(JSON.stringify({ events, written: lines, state }, (_k, v) => (typeof v === "function" ? "[fn]" : v instanceof Map || v instanceof Set ? [...v] : v)));
}

describe("irc-framework on the stand-ins", () => {
  it("requires only lodash functions the stand-in has, and the stand-in has no others", () => {
    const required = new Set<string>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) walk(join(dir, entry.name));
        else if (entry.name.endsWith(".js")) for (const m of readFileSync(join(dir, entry.name), "utf8").matchAll(/require\(['"]lodash\/(\w+)['"]\)/g)) required.add(m[1]!);
      }
    };
    walk(ifSource);
    expect([...required].sort()).toEqual(Object.keys(lite).sort());
  });

  it("does and says the same as on lodash and grapheme-splitter through a whole conversation", async () => {
    const { result: before } = await withIrcFramework(false, converse);
    const { result: after, used } = await withIrcFramework(true, converse);
    expect([...used].sort()).toEqual(Object.keys(lite).sort()); // every one was required, from the stand-in
    expect(after.written.length).toBeGreaterThan(10);
    // The conversation reached the code that uses each function.
    expect(after.state.cap.enabled).toEqual(["multi-prefix", "server-time", "message-tags", "extended-join"]);
    expect(after.state.users.find((u: { nick: string }) => u.nick === "alice").modes).toEqual(["o"]);
    expect(after.state.target).toEqual({ target: "#a", target_group: "@" });
    expect(after.state.flags.parsedFlags.channel_modes).toEqual(["o", "v"]);
    expect(after.events.find((e: [string]) => e[0] === "users online")[1].nicks).toEqual(["alice", "bob"]);
    expect(after).toEqual(before);
  });
});

describe("the lodash stand-in, function by function against lodash", () => {
  /** Each side gets its own copy of the arguments (extend writes to its first). */
  const same = (name: keyof typeof lite, ...args: unknown[]) => {
    const copy = args.map((a) => (a && typeof a === "object" && Object.getPrototypeOf(a) === Object.prototype ? { ...a } : a));
    expect((lite[name] as (...a: unknown[]) => unknown)(...args), `${name}(${JSON.stringify(args)})`).toEqual(lodash[name]!(...copy));
  };

  it("each, find, filter, map and reduce over arrays, array-likes, strings, objects and nothing", () => {
    const users = [{ nick: "a", modes: ["o"] }, { nick: "b", modes: [] }, { nick: "c", x: { y: 1, z: 2 } }];
    for (const p of [{ nick: "b" }, { nick: "z" }, { x: { y: 1 } }, {}, "modes", "x"]) {
      same("find", users, p);
      same("filter", users, p);
    }
    same("find", "~&@%+", (c: string) => c === "@");
    same("find", null, () => true);
    same("find", { a: 1, b: 2 }, (v: number) => v > 1);
    same("find", [0, NaN, 2], { valueOf: 1 });
    same("map", users, "nick");
    same("map", ["a!b@c", "d"], (s: string, i: number) => `${i}:${s}`);
    same("map", undefined, "x");
    same("map", { a: 1, b: 2 }, (v: number, k: string) => k + v);
    same("reduce", [{ mode: "o" }, { mode: "v" }], (l: string[], p: { mode: string }) => [...l, p.mode], []);
    same("reduce", [1, 2, 3], (a: number, b: number) => a + b);
    same("reduce", [], (a: number, b: number) => a + b);
    for (const fn of [lite.each, lodash.each!]) {
      const seen: unknown[] = [];
      const r = fn([1, 2, 3, 4], (v: number, i: number) => {
        seen.push([v, i]);
        return v !== 2; // false stops
      });
      expect([seen, r]).toEqual([[[1, 0], [2, 1]], [1, 2, 3, 4]]);
      const keys: unknown[] = [];
      fn({ PRIVMSG: 1, NOTICE: 2 }, (v: number, k: string) => void keys.push(k + v));
      (function (..._args: unknown[]) {
        fn(arguments, (v: unknown) => void keys.push(v));
      })("x", 1);
      expect(keys).toEqual(["PRIVMSG1", "NOTICE2", "x", 1]);
    }
  });

  it("uniq, intersection, difference and pull, with repeats and NaN", () => {
    same("uniq", ["a", "b", "a", NaN, NaN, 0, -0]);
    same("uniq", null);
    same("intersection", ["a", "b", "b", "c"], ["b", "c", "d"], ["c", "b"]);
    same("intersection", ["a"], null);
    same("difference", ["a", "b", "a", "c"], ["a"], ["c", "x"]);
    same("difference", null, ["a"]);
    for (const fn of [lite.pull, lodash.pull!]) {
      const modes = ["o", "v", "o", "h"];
      expect(fn(modes, "o")).toBe(modes);
      expect(modes).toEqual(["v", "h"]);
      expect(fn(undefined as unknown as string[], "o")).toBeUndefined();
    }
  });

  it("clone, extend, bind, partial and defer", async () => {
    const tags = Object.assign(Object.create(null) as Record<string, string>, { time: "t", "+x": "y" });
    for (const fn of [lite.clone, lodash.clone!]) {
      const c = fn(tags);
      expect([c, Object.getPrototypeOf(c)]).toEqual([{ time: "t", "+x": "y" }, Object.prototype]);
      const params = ["me", "no motd"];
      expect(fn(params)).toEqual(params);
      expect(fn(params)).not.toBe(params);
      expect([fn(undefined), fn("s"), fn(3)]).toEqual([undefined, "s", 3]);
    }
    class Proto {
      inherited = 1;
    }
    Object.assign(Proto.prototype, { fromProto: 2 });
    same("extend", { type: "privmsg" }, new Proto(), null, { a: 1 });
    expect(lite.extend({}, JSON.parse('{"__proto__": {"polluted": true}}')).polluted).toBeUndefined();
    const self = { n: 1, get(this: { n: number }, a: number, b: number) {
      return [this?.n, a, b];
    } };
    expect(lite.bind(self.get, { n: 7 }, 2)(3)).toEqual(lodash.bind!(self.get, { n: 7 }, 2)(3));
    const withThis = { n: 9, p: lite.partial(self.get, 5), q: lodash.partial!(self.get, 5) };
    expect(withThis.p(6)).toEqual(withThis.q(6));
    const order: string[] = [];
    await new Promise<void>((done) => {
      lite.defer((x: string) => {
        order.push(x);
        done();
      }, "deferred");
      order.push("sync");
    });
    expect(order).toEqual(["sync", "deferred"]);
    expect(() => lite.defer(null as never)).toThrow(TypeError);
  });
});

describe("the grapheme splitter on Intl.Segmenter", () => {
  const splitter = new GraphemeSplitter();
  const cases: [string, string[]][] = [
    ["abc", ["a", "b", "c"]],
    ["e\u0301a\u0308\u0323", ["e\u0301", "a\u0308\u0323"]], // combining marks stay on their base
    ["🇫🇷🇯🇵🇺", ["🇫🇷", "🇯🇵", "🇺"]], // flags are pairs of regional indicators
    ["👩‍👩‍👧‍👦x", ["👩‍👩‍👧‍👦", "x"]], // a ZWJ family is one
    ["👍🏽🧑🏿‍🚀❤️‍🔥", ["👍🏽", "🧑🏿‍🚀", "❤️‍🔥"]], // skin tones, ZWJ sequences of Emoji 13
    ["漢字かな", ["漢", "字", "か", "な"]],
    ["\u1100\u1161\u11a8한글", ["\u1100\u1161\u11a8", "한", "글"]], // Hangul jamo compose one syllable
    ["a\r\nb", ["a", "\r\n", "b"]],
    ["", []],
  ];

  it("splits emoji sequences, flags, combining marks, CJK and Hangul as Unicode says", () => {
    for (const [text, graphemes] of cases) {
      expect(splitter.splitGraphemes(text), text).toEqual(graphemes);
      expect([...splitter.iterateGraphemes(text)]).toEqual(graphemes);
      expect(splitter.countGraphemes(text)).toBe(graphemes.length);
    }
    // Where the package (Unicode 10 tables) agrees, the two agree; newer emoji it would cut.
    const real = new RealSplitter();
    for (const text of ["abc", "e\u0301a\u0308\u0323", "🇫🇷🇯🇵🇺", "漢字かな", "\u1100\u1161\u11a8한글", "a\r\nb"]) expect(splitter.splitGraphemes(text)).toEqual(real.splitGraphemes(text));
    for (const text of ["❤️‍🔥", "🧑‍🤝‍🧑", "🫱🏽‍🫲🏿", "😶‍🌫️"]) {
      expect(splitter.splitGraphemes(text)).toEqual([text]);
      expect(real.splitGraphemes(text).length).toBeGreaterThan(1);
    }
  });

  it("irc-framework's lineBreak never cuts a grapheme of a long message", async () => {
    const { result: lineBreak } = await withIrcFramework(true, () => (ifRequire(join(ifSource, "linebreak.js")) as { lineBreak: (s: string, o: object) => Iterable<string> }).lineBreak);
    const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
    const text = cases.map((c) => c[0].replace(/\s/g, "")).join("").repeat(30);
    for (const bytes of [25, 26, 27, 28, 29, 30, 31, 64]) {
      const blocks = [...lineBreak(text, { bytes, allowBreakingWords: true, allowBreakingGraphemes: true })];
      expect(blocks.join("")).toBe(text);
      const boundaries = new Set([...segmenter.segment(text)].map((s) => s.index));
      let at = 0;
      for (const block of blocks) {
        expect(Buffer.byteLength(block)).toBeLessThanOrEqual(bytes);
        expect(boundaries.has(at), `cut at ${at} for ${bytes} bytes`).toBe(true);
        at += block.length;
      }
    }
  });
});
