/**
 * The build replaces two of irc-framework's dependencies (packages/core/tsup.config.ts):
 * iconv-lite by a UTF-8-only module, socks by its absence. The UTF-8 module must give the
 * same text and bytes as iconv-lite for everything a connection reads and writes, and refuse
 * (throw, which irc-framework's setEncoding turns into `false`) any other encoding.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import * as utf8 from "../src/irc/shims/iconv-lite-utf8.js";
import { SocksClient } from "../src/irc/shims/socks-none.js";

// The real iconv-lite, as irc-framework (a dev dependency here) would load it.
const iconv = createRequire(createRequire(import.meta.url).resolve("irc-framework/package.json"))("iconv-lite") as typeof utf8;

const lines: Buffer[] = [
  Buffer.from(":alice!a@h PRIVMSG #general :hello\r\n"),
  Buffer.from("PRIVMSG #x :emoji 🎉 and CJK 漢字 and é"),
  Buffer.from([0xef, 0xbb, 0xbf, 0x41, 0x42]), // a byte-order mark first: dropped
  Buffer.from([0x41, 0xef, 0xbb, 0xbf, 0x42]), // one inside: kept
  Buffer.from([0x41, 0xff, 0xfe, 0x42, 0xc3]), // invalid and truncated bytes: U+FFFD
  Buffer.from([0xed, 0xa0, 0x80, 0x41]), // an encoded surrogate
  Buffer.alloc(0),
];

describe("the UTF-8 stand-in for iconv-lite", () => {
  it("decodes every line as iconv-lite does", () => {
    for (const line of lines) expect(utf8.decode(line, "utf8")).toBe(iconv.decode(line, "utf8"));
  });

  it("encodes as iconv-lite does", () => {
    for (const text of ["PRIVMSG #a :hi\r\n", "🎉 漢字 é", "lone \ud800 surrogate", ""]) {
      expect(utf8.encode(text, "utf8").equals(iconv.encode(text, "utf8"))).toBe(true);
    }
  });

  it("knows UTF-8 by its usual names and refuses any other encoding", () => {
    for (const name of ["utf8", "UTF-8", "utf-8", " Utf8 "]) expect(utf8.encodingExists(name)).toBe(true);
    for (const name of ["latin1", "windows-1252", "utf16", "utf-88", "base64", ""]) {
      expect(utf8.encodingExists(name)).toBe(false);
      expect(() => utf8.encode("x", name)).toThrow(/Encoding not recognized.*UTF-8 only/);
      expect(() => utf8.decode(Buffer.from("x"), name)).toThrow(/Encoding not recognized/);
    }
  });
});

it("a SOCKS proxy is refused, not silently ignored", () => {
  expect(() => SocksClient.createConnection()).toThrow(/SOCKS proxies are not supported/);
});
