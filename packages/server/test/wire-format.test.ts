// The pure pieces under the protocol: message grammar, tag escaping, byte framing and
// limits, casemapping, masks, the flood gate and the history ring.
import { describe, expect, it } from "vitest";
import { ircLower, isValidChannelName, isValidNick } from "../src/casemapping.js";
import { FloodGate } from "../src/flood-gate.js";
import { HistoryStore, parseHistoryRef, type HistoryEntry } from "../src/history-store.js";
import { LineReader } from "../src/line-reader.js";
import { escapeTagValue, formatParams, formatTags, parseMessage, truncateUtf8, unescapeTagValue } from "../src/message.js";
import { matchMask, normalizeBanMask } from "../src/wildcard.js";

describe("parseMessage", () => {
  it.each([
    ["PRIVMSG #c :hello world", { command: "PRIVMSG", params: ["#c", "hello world"], source: undefined }],
    ["privmsg #c hello", { command: "PRIVMSG", params: ["#c", "hello"], source: undefined }],
    [":nick!u@h NOTICE  me   :x  y ", { command: "NOTICE", params: ["me", "x  y "], source: "nick!u@h" }],
    ["PING :", { command: "PING", params: [""], source: undefined }],
    ["CAP REQ :a b", { command: "CAP", params: ["REQ", "a b"], source: undefined }],
    ["USER a 0 * ::colon", { command: "USER", params: ["a", "0", "*", ":colon"], source: undefined }],
  ])("%s", (line, want) => {
    const msg = parseMessage(line);
    expect(msg).toMatchObject(want);
  });

  it("returns null for lines without a command", () => {
    expect(parseMessage("")).toBeNull();
    expect(parseMessage("@a=b")).toBeNull();
    expect(parseMessage(":prefix")).toBeNull();
    expect(parseMessage("   ")).toBeNull();
  });

  it("unescapes tag values and keeps bare tags", () => {
    const msg = parseMessage("@+draft/reply=a\\sb\\:c\\\\d\\r\\n;flag;+x=y\\ TAGMSG #c")!;
    expect(msg.tags.get("+draft/reply")).toBe("a b;c\\d\r\n");
    expect(msg.tags.get("flag")).toBe("");
    expect(msg.tags.get("+x")).toBe("y");
    expect(msg.command).toBe("TAGMSG");
  });
});

describe("formatting", () => {
  it("adds a colon to the last parameter only when needed, or when asked", () => {
    expect(formatParams("PRIVMSG", ["#c", "hi"])).toBe("PRIVMSG #c hi");
    expect(formatParams("PRIVMSG", ["#c", "hi there"])).toBe("PRIVMSG #c :hi there");
    expect(formatParams("PRIVMSG", ["#c", ":)"])).toBe("PRIVMSG #c ::)");
    expect(formatParams("PRIVMSG", ["#c", ""])).toBe("PRIVMSG #c :");
    expect(formatParams("PRIVMSG", ["#c", "hi"], true)).toBe("PRIVMSG #c :hi");
  });

  it("escapes tag values so they round-trip", () => {
    const value = "semi; space \\ cr\r lf\n";
    expect(escapeTagValue(value)).toBe("semi\\:\\sspace\\s\\\\\\scr\\r\\slf\\n");
    expect(unescapeTagValue(escapeTagValue(value))).toBe(value);
    expect(formatTags([["a", "1"], ["b", ""], ["+c", "x y"]])).toBe("a=1;b;+c=x\\sy");
  });

  it("truncates UTF-8 on a character boundary", () => {
    const text = "é".repeat(300); // 600 bytes
    const cut = truncateUtf8(text, 511);
    expect(Buffer.byteLength(cut)).toBe(510);
    expect(cut).toBe("é".repeat(255));
    expect(truncateUtf8("short", 10)).toBe("short");
    expect(truncateUtf8("😀😀", 5)).toBe("😀");
  });
});

describe("LineReader", () => {
  const lines = (r: LineReader, chunk: string | Buffer) => r.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, "utf8"));

  it("splits on CRLF, LF and CR, skips empty lines, keeps partial lines", () => {
    const r = new LineReader();
    expect(lines(r, "A\r\nB\nC\rD")).toEqual([
      { kind: "line", line: "A" },
      { kind: "line", line: "B" },
      { kind: "line", line: "C" },
    ]);
    expect(lines(r, "E\r\n\r\n\n")).toEqual([{ kind: "line", line: "DE" }]);
  });

  it("accepts 510 bytes plus CRLF and rejects 511", () => {
    const r = new LineReader();
    const ok = `PRIVMSG #c :${"x".repeat(510 - 12)}`;
    expect(Buffer.byteLength(ok)).toBe(510);
    expect(lines(r, `${ok}\r\n`)).toEqual([{ kind: "line", line: ok }]);
    expect(lines(r, `${ok}y\r\n`)).toEqual([{ kind: "too-long" }]);
  });

  it("allows 8191 bytes of tags on top of the 512", () => {
    const r = new LineReader();
    const tags = `@+t=${"a".repeat(8191 - 5)} `; // exactly 8191 bytes with the space
    expect(Buffer.byteLength(tags)).toBe(8191);
    const body = `PRIVMSG #c :${"x".repeat(498)}`;
    expect(lines(r, `${tags}${body}\r\n`)).toEqual([{ kind: "line", line: tags + body }]);
    expect(lines(r, `@+t=${"a".repeat(8191 - 4)} ${body}\r\n`)).toEqual([{ kind: "too-long" }]);
  });

  it("refuses an endless line once it passes every limit, then resumes after its line end", () => {
    const r = new LineReader();
    expect(lines(r, "x".repeat(9000))).toEqual([{ kind: "too-long" }]);
    expect(lines(r, "x".repeat(100000))).toEqual([]);
    expect(lines(r, "still the same line\r\nPING :ok\r\n")).toEqual([{ kind: "line", line: "PING :ok" }]);
  });

  it("decodes invalid UTF-8 lossily and drops NULs", () => {
    const r = new LineReader();
    const bad = Buffer.concat([Buffer.from("PRIVMSG #c :a"), Buffer.from([0xff, 0xc3, 0x00, 0x28]), Buffer.from("b\r\n")]);
    expect(lines(r, bad)).toEqual([{ kind: "line", line: "PRIVMSG #c :a\ufffd\ufffd(b" }]);
  });

  it("reassembles a multi-byte character split across chunks", () => {
    const r = new LineReader();
    const bytes = Buffer.from("PRIVMSG #c :é\r\n");
    const at = bytes.indexOf(0xc3) + 1;
    expect(lines(r, bytes.subarray(0, at))).toEqual([]);
    expect(lines(r, bytes.subarray(at))).toEqual([{ kind: "line", line: "PRIVMSG #c :é" }]);
  });
});

describe("casemapping rfc1459", () => {
  it("folds letters and []\\~ to {}|^", () => {
    expect(ircLower("Nick[A]\\~")).toBe("nick{a}|^");
    expect(ircLower("#Chan")).toBe("#chan");
  });
  it("validates nicks and channel names", () => {
    expect(isValidNick("spark-culture", 32)).toBe(true);
    expect(isValidNick("[bot]_^", 32)).toBe(true);
    expect(isValidNick("1abc", 32)).toBe(false);
    expect(isValidNick("-abc", 32)).toBe(false);
    expect(isValidNick("a b", 32)).toBe(false);
    expect(isValidNick("a".repeat(33), 32)).toBe(false);
    expect(isValidChannelName("#ok", 64)).toBe(true);
    expect(isValidChannelName("&local", 64)).toBe(true);
    expect(isValidChannelName("#", 64)).toBe(false);
    expect(isValidChannelName("nochan", 64)).toBe(false);
    expect(isValidChannelName("#a,b", 64)).toBe(false);
    expect(isValidChannelName("#a\x07", 64)).toBe(false);
  });
});

describe("masks", () => {
  it.each([
    ["*", "anything", true],
    ["nick!*@*", "Nick!~u@127.0.0.1", true],
    ["*!*@127.0.0.?", "a!b@127.0.0.1", true],
    ["*!*@127.0.0.?", "a!b@127.0.0.10", false],
    ["a*b*c", "axxbyyc", true],
    ["a*b*c", "axxbyy", false],
    ["*a*a*a*a*a*a*a*b", "a".repeat(200), false],
  ])("%s ~ %s = %s", (mask, text, want) => {
    expect(matchMask(mask, text)).toBe(want);
  });
  it("completes partial ban masks", () => {
    expect(normalizeBanMask("bad")).toBe("bad!*@*");
    expect(normalizeBanMask("u@h")).toBe("*!u@h");
    expect(normalizeBanMask("n!u")).toBe("n!u@*");
    expect(normalizeBanMask("n!u@h")).toBe("n!u@h");
  });
});

describe("FloodGate", () => {
  it("runs a burst at once, then one item per refill, in order; overflow fires once", () => {
    let now = 0;
    const ran: number[] = [];
    let overflows = 0;
    const gate = new FloodGate<number>({ burst: 3, perSecond: 2, maxQueued: 2 }, (n) => ran.push(n), () => overflows++, () => now);
    for (let i = 1; i <= 5; i++) gate.submit(i, 1);
    expect(ran).toEqual([1, 2, 3]);
    expect(gate.queued).toBe(2);
    gate.submit(6, 1); // queue full: overflow
    expect(overflows).toBe(1);
    expect(gate.queued).toBe(0);
    gate.close();
  });

  it("drains queued items as points refill", async () => {
    const ran: number[] = [];
    const gate = new FloodGate<number>({ burst: 1, perSecond: 1000, maxQueued: 10 }, (n) => ran.push(n), () => {});
    for (let i = 1; i <= 4; i++) gate.submit(i, 1);
    expect(ran).toEqual([1]);
    await new Promise((r) => setTimeout(r, 50));
    expect(ran).toEqual([1, 2, 3, 4]);
    gate.close();
  });
});

describe("HistoryStore queries", () => {
  const store = new HistoryStore({ size: 5, dir: null, flushDelayMs: 10, logger: { debug() {}, info() {}, warn() {}, error() {} } });
  const entry = (i: number): HistoryEntry => ({
    msgid: `m${i}`, time: 1000 * i, command: "PRIVMSG", source: "a!b@c", account: null, target: "#Chan", text: `t${i}`, clientTags: null,
  });
  for (let i = 1; i <= 7; i++) store.append(entry(i)); // ring keeps 3..7
  const texts = (es: HistoryEntry[]) => es.map((e) => e.text);
  const id = (m: string) => parseHistoryRef(`msgid=${m}`)!;
  const ts = (ms: number) => parseHistoryRef(`timestamp=${new Date(ms).toISOString()}`)!;

  it("keeps the newest entries, looked up case-insensitively", () => {
    expect(texts(store.latest("#chan", null, 10))).toEqual(["t3", "t4", "t5", "t6", "t7"]);
    expect(texts(store.latest("#CHAN", null, 2))).toEqual(["t6", "t7"]);
    expect(texts(store.latest("#chan", id("m5"), 10))).toEqual(["t6", "t7"]);
  });
  it("answers BEFORE/AFTER/AROUND/BETWEEN by msgid and timestamp", () => {
    expect(texts(store.before("#chan", id("m6"), 2))).toEqual(["t4", "t5"]);
    expect(texts(store.before("#chan", ts(6000), 10))).toEqual(["t3", "t4", "t5"]);
    expect(texts(store.after("#chan", id("m4"), 2))).toEqual(["t5", "t6"]);
    expect(texts(store.after("#chan", ts(4000), 10))).toEqual(["t5", "t6", "t7"]);
    expect(texts(store.around("#chan", id("m5"), 3))).toEqual(["t4", "t5", "t6"]);
    expect(texts(store.between("#chan", id("m3"), id("m7"), 10))).toEqual(["t4", "t5", "t6"]);
    expect(texts(store.between("#chan", id("m7"), id("m3"), 2))).toEqual(["t5", "t6"]);
    expect(store.before("#chan", id("gone"), 5)).toEqual([]);
    expect(store.latest("#other", null, 5)).toEqual([]);
  });
  it("parses references", () => {
    expect(parseHistoryRef("*")).toBeNull();
    expect(parseHistoryRef("timestamp=nonsense")).toBeNull();
    expect(parseHistoryRef("msgid=")).toBeNull();
    expect(parseHistoryRef("timestamp=2024-01-02T03:04:05.678Z")).toEqual({ kind: "timestamp", time: Date.parse("2024-01-02T03:04:05.678Z") });
  });
});
