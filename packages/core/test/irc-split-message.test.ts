import { describe, expect, it } from "vitest";
import { IRC_LINE_MAX_BYTES, splitLine, splitMessage, textBudget } from "../src/irc/split-message.js";

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
