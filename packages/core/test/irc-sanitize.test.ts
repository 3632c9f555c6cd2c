import { describe, expect, it } from "vitest";
import { isCultureError } from "../src/errors.js";
import { ircLower } from "../src/irc/case-mapping.js";
import { isChannelName, sanitizeChannel, sanitizeParameter, sanitizeTarget, stripIrcUnsafe } from "../src/irc/sanitize.js";

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return isCultureError(err) ? err.code : "not a CultureError";
  }
  return undefined;
}

describe("sanitize", () => {
  it("strips CR, LF and NUL and nothing else", () => {
    expect(stripIrcUnsafe("a\rb\nc\0d e\tf")).toBe("abcd e\tf");
  });

  it.each([
    ["#chan", "#chan"],
    ["  #chan\r\n", "#chan"],
    ["bob", "bob"],
    ["bo\0b", "bob"],
  ])("accepts target %j as %j", (input, clean) => {
    expect(sanitizeTarget(input)).toBe(clean);
  });

  it.each([
    ["#chan\r\nJOIN #evil"],
    ["#a,#b"],
    ["#a b"],
    [""],
    ["\r\n"],
    [":bob"],
    ["bob\r\nPRIVMSG #x :hi"],
  ])("rejects target %j with E_IRC_INVALID_TARGET", (input) => {
    expect(codeOf(() => sanitizeTarget(input))).toBe("E_IRC_INVALID_TARGET");
  });

  it("requires a channel prefix for channels (JOIN 0 parts everything)", () => {
    expect(sanitizeChannel("#ok")).toBe("#ok");
    expect(sanitizeChannel("&local")).toBe("&local");
    expect(codeOf(() => sanitizeChannel("0"))).toBe("E_IRC_INVALID_TARGET");
    expect(codeOf(() => sanitizeChannel("bob"))).toBe("E_IRC_INVALID_TARGET");
    expect(() => sanitizeChannel("bob")).toThrow(/starts with one of # &/);
    expect(sanitizeChannel("+modeless", "#&+")).toBe("+modeless");
  });

  it("turns line breaks in a trailing parameter into spaces", () => {
    expect(sanitizeParameter("new topic\r\nJOIN #evil\0")).toBe("new topic JOIN #evil");
  });

  it("knows channel names", () => {
    expect(isChannelName("#x")).toBe(true);
    expect(isChannelName("#")).toBe(false);
    expect(isChannelName("x")).toBe(false);
    expect(isChannelName("+x", "#+")).toBe(true);
  });
});

describe("ircLower", () => {
  it.each([
    ["#Foo[1]\\^", "rfc1459", "#foo{1}|~"],
    ["#Foo[1]\\^", "strict-rfc1459", "#foo{1}|^"],
    ["#Foo[1]\\^", "ascii", "#foo[1]\\^"],
    ["ÄBC", "rfc1459", "Äbc"],
  ])("%j under %s is %j", (input, mapping, expected) => {
    expect(ircLower(input, mapping)).toBe(expected);
  });
});
