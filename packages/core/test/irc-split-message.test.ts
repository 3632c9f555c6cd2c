import { describe, expect, it, vi } from "vitest";
import { IRC_LINE_MAX_BYTES, splitLine, splitMessage, textBudget, utf8Bytes } from "../src/irc/split-message.js";

const bytes = (s: string): number => Buffer.byteLength(s);

describe("splitMessage", () => {
  it("keeps a short line as it is", () => {
    expect(splitMessage("hello world", 100)).toEqual(["hello world"]);
  });

  it("splits on CR, LF and CRLF and drops blank and whitespace-only lines", () => {
    expect(splitMessage("one\r\ntwo\nthree\rfour\n\n   \n\t\nfive\n", 100)).toEqual(["one", "two", "three", "four", "five"]);
  });

  it("removes NUL", () => {
    expect(splitMessage("a\0b", 100)).toEqual(["ab"]);
  });

  it("returns nothing for empty or blank text", () => {
    expect(splitMessage("", 100)).toEqual([]);
    expect(splitMessage("\n \r\n", 100)).toEqual([]);
  });

  it("splits at the last space before the limit and drops that space", () => {
    expect(splitLine("aaa bbb ccc", 7)).toEqual(["aaa bbb", "ccc"]);
    expect(splitLine("aaa bbb ccc", 8)).toEqual(["aaa bbb", "ccc"]);
    expect(splitLine("aaaa bbbb cccc dddd", 10)).toEqual(["aaaa bbbb", "cccc dddd"]);
  });

  it("splits hard when a word is longer than the limit", () => {
    expect(splitLine("abcdefghij", 4)).toEqual(["abcd", "efgh", "ij"]);
    expect(splitLine("ab abcdefghij", 4)).toEqual(["ab", "abcd", "efgh", "ij"]);
  });

  it("never splits inside a UTF-8 character", () => {
    const text = "日本語のテキスト".repeat(20); // 3 bytes each, no spaces
    for (const max of [4, 5, 7, 10, 31]) {
      const pieces = splitLine(text, max);
      expect(pieces.join("")).toBe(text);
      for (const p of pieces) {
        expect(bytes(p)).toBeLessThanOrEqual(max);
        expect(Buffer.from(p, "utf8").toString("utf8")).toBe(p);
        expect(p).not.toMatch(/\uFFFD/);
      }
    }
  });

  it("keeps emoji graphemes (modifiers, ZWJ sequences) whole when they fit", () => {
    const family = "👨‍👩‍👧‍👦"; // 25 bytes
    const thumbs = "👍🏽"; // 8 bytes
    const text = (family + thumbs).repeat(6);
    const pieces = splitLine(text, 40);
    expect(pieces.join("")).toBe(text);
    const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
    for (const p of pieces) {
      expect(bytes(p)).toBeLessThanOrEqual(40);
      for (const { segment } of segmenter.segment(p)) expect([family, thumbs]).toContain(segment);
    }
  });

  it("falls back to code points for a grapheme longer than the limit, never splitting a surrogate pair", () => {
    const zalgo = "a" + "\u0301".repeat(30); // one grapheme of 61 bytes
    const pieces = splitLine(zalgo + "😀", 8);
    expect(pieces.join("")).toBe(zalgo + "😀");
    for (const p of pieces) {
      expect(bytes(p)).toBeLessThanOrEqual(8);
      expect(p).not.toMatch(/[\uD800-\uDBFF]$/);
    }
  });

  it("only ever drops the spaces it splits at (random text)", () => {
    const alphabet = ["a", "b", "é", "ß", "日", "語", "😀", " ", " ", " ", "xyz"];
    let seed = 42;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 200; round++) {
      let text = "";
      const len = 1 + rand(300);
      for (let i = 0; i < len; i++) text += alphabet[rand(alphabet.length)];
      const max = 4 + rand(60);
      const pieces = splitLine(text, max);
      const bad = pieces.filter((p) => bytes(p) > max || p.length === 0);
      expect(bad).toEqual([]);
      expect(pieces.join("").replace(/ /g, "")).toBe(text.replace(/ /g, ""));
      const dropped = (text.match(/ /g)?.length ?? 0) - (pieces.join("").match(/ /g)?.length ?? 0);
      expect(dropped).toBeLessThanOrEqual(Math.max(0, pieces.length - 1) + (text.startsWith(" ") ? 1 : 0) + (text.endsWith(" ") ? 1 : 0));
    }
  });

  it("segments a long line in bounded windows, never the whole line at once (linear time)", () => {
    // V8's grapheme segmenter is superlinear on one long string: handing it a 1 MB irc_send
    // froze the daemon. The splitter must only ever give it a window of a few pieces.
    const spy = vi.spyOn(Intl.Segmenter.prototype, "segment");
    try {
      const text = "word ".repeat(200_000); // 1 MB
      const pieces = splitMessage(text, 400);
      expect(pieces.join(" ").trimEnd()).toBe(text.trim());
      const mixed = "👍🏽 日本語のテキスト 🇫🇷🇩🇪 e\u0301t\u00E9 ".repeat(20_000);
      expect(splitMessage(mixed, 400).join(" ").replace(/ /g, "")).toBe(mixed.replace(/ /g, ""));
      const zalgo = ("Z" + "\u0301".repeat(300) + " ").repeat(200);
      expect(splitMessage(zalgo, 100).join("").replace(/ /g, "")).toBe(zalgo.replace(/ /g, ""));
      // The segmenter is only asked about one piece at a time, and only where the rules cannot tell.
      const longest = Math.max(0, ...spy.mock.calls.map(([s]) => String(s).length));
      expect(longest).toBeLessThanOrEqual(512);
    } finally {
      spy.mockRestore();
    }
  });

  it("splits long mixed text exactly as a whole-line segmentation would (window seams are invisible)", () => {
    const alphabet = ["a", "é", "日", "😀", "👨‍👩‍👧‍👦", "👍🏽", "🇫🇷", "🇩🇪", " ", " ", "e\u0301", "a" + "\u0301".repeat(40), "xyz"];
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 20; round++) {
      let text = "";
      const len = 2000 + rand(6000);
      for (let i = 0; i < len; i++) text += alphabet[rand(alphabet.length)];
      // From 100 bytes up no grapheme of this alphabet is longer than a piece (those fall back
      // to code points, where the two may cut differently, both within the guarantees).
      const max = 100 + rand(400);
      const got = splitLine(text, max);
      const want = referenceSplitLine(text, max);
      const at = got.findIndex((p, i) => p !== want[i]);
      expect({ round, max, at, got: got.slice(at, at + 2), want: want.slice(at, at + 2) }).toEqual({ round, max, at: -1, got: [], want: [] });
    }
  });

  it("counts UTF-8 bytes exactly as Buffer.byteLength does (lone surrogates included)", () => {
    for (const s of ["", "a", "é", "日", "😀", "\uD800", "\uDC00x", "a\uD83D", "👨‍👩‍👧‍👦"]) expect(utf8Bytes(s)).toBe(bytes(s));
  });

  it("rejects a budget too small for a character", () => {
    expect(() => splitMessage("x", 3)).toThrow(/maxBytes/);
  });
});

describe("textBudget", () => {
  it("makes the relayed line exactly 512 bytes when the text fills the budget", () => {
    const input = { command: "PRIVMSG" as const, target: "#général", nick: "spark-culture", user: "~spark", host: "127.0.0.1" };
    const budget = textBudget(input);
    const wire = `:${input.nick}!${input.user}@${input.host} PRIVMSG ${input.target} :${"x".repeat(budget)}\r\n`;
    expect(bytes(wire)).toBe(IRC_LINE_MAX_BYTES);
  });

  it("assumes the worst-case user (11) and host (63) when they are unknown", () => {
    const known = textBudget({ command: "NOTICE", target: "bob", nick: "n", user: "u".repeat(11), host: "h".repeat(63) });
    expect(textBudget({ command: "NOTICE", target: "bob", nick: "n" })).toBe(known);
    const wire = `:n!${"u".repeat(11)}@${"h".repeat(63)} NOTICE bob :${"x".repeat(known)}\r\n`;
    expect(bytes(wire)).toBe(512);
  });
});

/** The splitter before it was made linear: one segmentation of the whole line (the oracle). */
function referenceSplitLine(line: string, maxBytes: number): string[] {
  if (bytes(line) <= maxBytes) return line.length ? [line] : [];
  const pieces: string[] = [];
  let cur: string[] = [];
  let curBytes = 0;
  let lastSpace = -1;
  const flush = (): void => {
    if (cur.length) pieces.push(cur.join(""));
    cur = [];
    curBytes = 0;
    lastSpace = -1;
  };
  const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
  const units: string[] = [];
  for (const { segment } of segmenter.segment(line)) {
    if (bytes(segment) <= maxBytes) units.push(segment);
    else units.push(...segment);
  }
  for (const unit of units) {
    const n = bytes(unit);
    if (curBytes + n > maxBytes) {
      if (unit === " ") {
        flush();
        continue;
      }
      if (lastSpace > 0) {
        const rest = cur.slice(lastSpace + 1);
        pieces.push(cur.slice(0, lastSpace).join(""));
        cur = rest;
        curBytes = rest.reduce((t, u) => t + bytes(u), 0);
        lastSpace = rest.lastIndexOf(" ");
        if (lastSpace === 0) lastSpace = -1;
      }
      if (curBytes + n > maxBytes) flush();
    }
    if (unit === " " && cur.length > 0) lastSpace = cur.length;
    cur.push(unit);
    curBytes += n;
  }
  flush();
  return pieces;
}
