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

  it("derives the name after <server>-", () => {
    expect(mentionNames("spark-culture")).toEqual(["spark-culture", "culture"]);
    expect(mentionNames("solo")).toEqual(["solo"]);
    expect(mentionNames("a-b-c")).toEqual(["a-b-c", "b-c"]);
  });
});
