import { describe, expect, it } from "vitest";
import { isMentioned, mentionNames } from "../src/irc/mentions.js";

describe("isMentioned", () => {
  const nicks = ["spark-culture"];
  it.each([
    ["@spark-culture hi", nicks, true],
    ["@culture hi", nicks, true],
    ["hey @CULTURE, look", nicks, true],
    ["(@culture)", nicks, true],
    ["done @culture.", nicks, true],
    ["@culture: ping", nicks, true],
    ["@culture!", nicks, true],
    ["culture without at", nicks, false],
    ["@culturex", nicks, false],
    ["@culture_", nicks, false],
    ["@culture-bot", nicks, false],
    ["@culture2", nicks, false],
    ["mail@culture", nicks, false],
    ["x_@culture", nicks, false],
    ["@spark", nicks, false],
    ["@spark-cult", nicks, false],
    ["@botany is a plant", ["spark-bot"], false],
    ["@bot do it", ["spark-bot"], true],
    ["@bötany", ["x-bö"], false],
    ["é@bö", ["x-bö"], false],
    ["@bö!", ["x-bö"], true],
    ["@spark-culture_ hi", ["spark-culture", "spark-culture_"], true],
    ["@culture_ hi", ["spark-culture", "spark-culture_"], true],
    ["@a[b] hi", ["a[b]"], true],
    ["@a.b", ["a.b"], true],
    ["@axb", ["a.b"], false],
    ["nothing", [], false],
  ] as const)("%j with %j -> %s", (text, names, expected) => {
    expect(isMentioned(text, names)).toBe(expected);
  });

  // Unicode traps: NFKC first (compatibility forms read as what they look like), then the
  // server's CASEMAPPING (never Unicode case folding), and a combining mark glues onto the name.
  it.each([
    ["@Spark-Bot hi", "rfc1459", true],
    ["@SPARK-BOT", "ascii", true],
    ["@spark-botş is someone else", "rfc1459", false],
    ["@spark-bot\u0301 is someone else", "rfc1459", false],
    ["@bot\u0308 (bot with a diaeresis)", "rfc1459", false],
    ["@spark-bot\uFE0F", "rfc1459", false],
    ["\u0301@spark-bot", "rfc1459", false],
    ["\uFF20spark-bot fullwidth at sign", "rfc1459", true],
    ["\uFF20\uFF53\uFF50\uFF41\uFF52\uFF4B-\uFF42\uFF4F\uFF54 fullwidth letters", "rfc1459", true],
    ["\uFE6Bbot small commercial at", "rfc1459", true],
    ["@spar\u212A-bot (Kelvin sign: NFKC makes it K)", "rfc1459", true],
    ["@\u017Fpark-bot (long s: NFKC makes it s)", "rfc1459", true],
    ["@spark-b\u00D8t (Ø is not o)", "rfc1459", false],
    ["@spark-\u0299ot (small capital B is not b)", "rfc1459", false],
    ["@spark-bo\u0165 (ť)", "rfc1459", false],
    ["@\uD835\uDC1Bot (mathematical bold b: NFKC makes it b)", "rfc1459", true],
    ["@spark-bot\u{1F600} grinning", "rfc1459", true],
    ["\u{1F600}@spark-bot", "rfc1459", true],
  ] as const)("%j under %s -> %s (nick spark-bot)", (text, mapping, expected) => {
    expect(isMentioned(text, ["spark-bot"], mapping)).toBe(expected);
  });

  it.each([
    // Dotless i and dotted capital I are other letters to IRC: no folding onto i.
    ["@SPARK-IRIS", "rfc1459", true],
    ["@spark-\u0131ris (dotless i)", "rfc1459", false],
    ["@spark-\u0130ris (dotted capital I)", "rfc1459", false],
    ["@spark-i\u0307ris (i + combining dot)", "rfc1459", false],
  ] as const)("%j under %s -> %s (nick spark-iris)", (text, mapping, expected) => {
    expect(isMentioned(text, ["spark-iris"], mapping)).toBe(expected);
  });

  it.each([
    // rfc1459: []\~ are the upper case of {}|^; strict-rfc1459 leaves ~ and ^ apart; ascii only letters.
    ["@bot{1} hi", "rfc1459", true],
    ["@BOT[1] hi", "rfc1459", true],
    ["@bot|x hi", "rfc1459", true],
    ["@bot^ hi", "rfc1459", true],
    ["@bot{1} hi", "strict-rfc1459", true],
    ["@bot^ hi", "strict-rfc1459", false],
    ["@bot{1} hi", "ascii", false],
    ["@BOT[1] hi", "ascii", true],
  ] as const)("%j under %s -> %s (nicks bot[1], bot\\x, bot~)", (text, mapping, expected) => {
    expect(isMentioned(text, ["bot[1]", "bot\\x", "bot~"], mapping)).toBe(expected);
  });

  it("derives the name after <server>-", () => {
    expect(mentionNames("spark-culture")).toEqual(["spark-culture", "culture"]);
    expect(mentionNames("solo")).toEqual(["solo"]);
    expect(mentionNames("a-b-c")).toEqual(["a-b-c", "b-c"]);
  });
});
