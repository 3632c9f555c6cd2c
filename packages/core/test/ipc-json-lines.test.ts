import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_LINE_BYTES, JsonLinesDecoder, encodeJsonLine, type JsonLine } from "../src/ipc/json-lines.js";

const enc = (s: string) => new TextEncoder().encode(s);
const values = (items: JsonLine[]) => items.map((i) => (i.ok ? i.value : `ERR:${i.error.kind}:${i.line}`));

describe("JsonLinesDecoder", () => {
  it("splits on newlines, keeps the partial last line, skips blank lines", () => {
    const d = new JsonLinesDecoder();
    expect(values(d.write(enc('{"a":1}\n{"b"')))).toEqual([{ a: 1 }]);
    expect(values(d.write(enc(':2}\n\n   \r\n[3]\r\n')))).toEqual([{ b: 2 }, [3]]);
    expect(values(d.write(enc('"tail"')))).toEqual([]);
    expect(values(d.end())).toEqual(["tail"]);
  });

  it("decodes a multi-byte character split across chunks", () => {
    const bytes = enc('{"t":"héllo ☃ 😀"}\n');
    const d = new JsonLinesDecoder();
    const out: JsonLine[] = [];
    for (let i = 0; i < bytes.length; i++) out.push(...d.write(bytes.subarray(i, i + 1)));
    expect(values(out)).toEqual([{ t: "héllo ☃ 😀" }]);
  });

  it("reports invalid JSON with its line number and goes on", () => {
    const d = new JsonLinesDecoder();
    const out = d.write(enc('{"ok":1}\nnot json\n\n{"ok":2}\n'));
    expect(values(out)).toEqual([{ ok: 1 }, "ERR:invalid_json:2", { ok: 2 }]);
    const err = out[1];
    expect(err?.ok === false && err.error.message).toMatch(/^invalid JSON at line 2: Unexpected token/);
  });

  it("reports invalid UTF-8 and goes on", () => {
    const d = new JsonLinesDecoder();
    const bad = new Uint8Array([0x22, 0xff, 0xfe, 0x22, 0x0a]);
    expect(values([...d.write(bad), ...d.write(enc("1\n"))])).toEqual(["ERR:invalid_utf8:1", 1]);
  });

  it("reports an oversized line as soon as it crosses the limit, discards it without buffering, and recovers", () => {
    const d = new JsonLinesDecoder({ maxLineBytes: 16 });
    expect(values(d.write(enc('{"x":"0123456789')))).toEqual([]); // 15 bytes: still fine
    const over = d.write(enc("abcdef"));
    expect(values(over)).toEqual(["ERR:line_too_long:1"]);
    expect(over[0]?.ok === false && over[0].error.message).toBe("line exceeds 16 bytes; discarded");
    // The rest of the line is dropped as it arrives: nothing is held.
    for (let i = 0; i < 100; i++) expect(d.write(enc("zzzzzzzzzz"))).toEqual([]);
    expect((d as unknown as { bytes: number; parts: string[] }).bytes).toBe(0);
    expect((d as unknown as { parts: string[] }).parts).toEqual([]);
    expect(values(d.write(enc('zz"}\n{"next":true}\n')))).toEqual([{ next: true }]);
    // A line of exactly the limit is accepted.
    expect(values(d.write(enc(`"${"a".repeat(14)}"\n`)))).toEqual(["a".repeat(14)]);
  });

  it("counts line numbers across discarded and blank lines", () => {
    const d = new JsonLinesDecoder({ maxLineBytes: 4 });
    expect(values(d.write(enc('1\n\n"long line"\n[\n')))).toEqual([1, "ERR:line_too_long:3", "ERR:invalid_json:4"]);
  });

  it("defaults to 1 MiB", () => {
    expect(DEFAULT_MAX_LINE_BYTES).toBe(1_048_576);
    expect(new JsonLinesDecoder().maxLineBytes).toBe(1_048_576);
    expect(() => new JsonLinesDecoder({ maxLineBytes: 0 })).toThrow(RangeError);
  });
});

describe("encodeJsonLine", () => {
  it("writes compact JSON and a newline, like the reference encoder", () => {
    expect(encodeJsonLine({ type: "response", id: "x", ok: true, data: {} })).toBe('{"type":"response","id":"x","ok":true,"data":{}}\n');
  });

  it("escapes everything outside printable ASCII as Python's json.dumps does", () => {
    // json.dumps({"t": "é☃😀\x7f\n"}, separators=(",", ":"))
    expect(encodeJsonLine({ t: "é☃😀\u007f\n" })).toBe('{"t":"\\u00e9\\u2603\\ud83d\\ude00\\u007f\\n"}\n');
    expect(JSON.parse(encodeJsonLine({ t: "é☃😀" }))).toEqual({ t: "é☃😀" });
  });
});
