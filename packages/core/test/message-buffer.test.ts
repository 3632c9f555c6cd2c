import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { MessageBuffer, normaliseBufferKey } from "../src/buffer/message-buffer.js";
import { isCultureError } from "../src/errors.js";

const msg = (i: number) => ({ nick: `n${i}`, text: `m${i}`, timestamp: 1_700_000_000 + i });
const texts = (r: { messages: { text: string }[] }) => r.messages.map((m) => m.text);

describe("MessageBuffer", () => {
  it("returns unread messages oldest first and advances only past what it returned", () => {
    const buf = new MessageBuffer(10);
    for (let i = 1; i <= 5; i++) buf.add("#general", msg(i));
    expect(buf.unread("#general")).toBe(5);
    const first = buf.read("#general", 2);
    expect(texts(first)).toEqual(["m1", "m2"]);
    expect(first.skipped).toBe(0);
    expect(buf.unread("#general")).toBe(3);
    expect(texts(buf.read("#general", 50))).toEqual(["m3", "m4", "m5"]);
    expect(buf.read("#general", 50)).toEqual({ messages: [], skipped: 0 });
    buf.add("#general", msg(6));
    expect(buf.read("#general", 50).messages).toEqual([msg(6)]);
  });

  it("reports messages that fell off the ring once, as skipped", () => {
    const buf = new MessageBuffer(3);
    for (let i = 1; i <= 7; i++) buf.add("#c", msg(i));
    expect(buf.unread("#c")).toBe(3);
    const r = buf.read("#c", 2);
    expect(r.skipped).toBe(4);
    expect(texts(r)).toEqual(["m5", "m6"]);
    const r2 = buf.read("#c", 2);
    expect(r2.skipped).toBe(0);
    expect(texts(r2)).toEqual(["m7"]);
  });

  it("counts only the overwritten part of a partially read ring as skipped", () => {
    const buf = new MessageBuffer(4);
    for (let i = 1; i <= 4; i++) buf.add("#c", msg(i));
    expect(texts(buf.read("#c", 2))).toEqual(["m1", "m2"]); // m3, m4 unread
    for (let i = 5; i <= 7; i++) buf.add("#c", msg(i)); // ring: m4..m7, m3 lost
    const r = buf.read("#c", 10);
    expect(r.skipped).toBe(1);
    expect(texts(r)).toEqual(["m4", "m5", "m6", "m7"]);
  });

  it("keeps working across many wrap-arounds", () => {
    const buf = new MessageBuffer(5);
    let next = 1;
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 3; i++) buf.add("#c", msg(next++));
      const r = buf.read("#c", 3);
      expect(r.skipped).toBe(0);
      expect(texts(r)).toEqual([`m${next - 3}`, `m${next - 2}`, `m${next - 1}`]);
    }
  });

  it("keeps keys apart and treats them case-insensitively", () => {
    const buf = new MessageBuffer(5);
    buf.add("#General", msg(1));
    buf.add("#general", msg(2));
    buf.add("DM:Alice", msg(3));
    buf.add("dm:ALICE", msg(4));
    buf.add("#other", msg(5));
    expect(buf.keys()).toEqual(["#general", "DM:alice", "#other"]);
    expect(texts(buf.read("#GENERAL", 10))).toEqual(["m1", "m2"]);
    expect(texts(buf.read("DM:alice", 10))).toEqual(["m3", "m4"]);
    expect(texts(buf.read("#other", 10))).toEqual(["m5"]);
    expect(normaliseBufferKey("Dm:Bob")).toBe("DM:bob");
  });

  it("reads of an unknown key are empty", () => {
    const buf = new MessageBuffer(5);
    expect(buf.read("#nowhere", 5)).toEqual({ messages: [], skipped: 0 });
    expect(buf.unread("#nowhere")).toBe(0);
  });

  it("returns copies: callers cannot change what is buffered", () => {
    const buf = new MessageBuffer(5);
    const entry = msg(1);
    buf.add("#c", entry);
    entry.text = "changed";
    const [m] = buf.read("#c", 1).messages;
    expect(m?.text).toBe("m1");
  });

  it("forgets a deleted key", () => {
    const buf = new MessageBuffer(5);
    buf.add("#c", msg(1));
    expect(buf.delete("#C")).toBe(true);
    expect(buf.keys()).toEqual([]);
    expect(buf.delete("#c")).toBe(false);
  });

  it("validates the size and the limit", () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => new MessageBuffer(bad)).toThrow(/buffer_size must be an integer >= 1/);
    }
    const buf = new MessageBuffer(2);
    buf.add("#c", msg(1));
    for (const bad of [0, -3, 2.5]) {
      let caught: unknown;
      try {
        buf.read("#c", bad);
      } catch (err) {
        caught = err;
      }
      expect(isCultureError(caught, "E_INVALID_ARGUMENT")).toBe(true);
      expect((caught as Error).message).toMatch(/limit must be an integer >= 1/);
    }
    expect(buf.unread("#c")).toBe(1); // a rejected read does not move the position
  });

  it("adds in constant time per message (the ring never shifts)", () => {
    // A counting check, not a timing one: the backing array never grows past `size`.
    const buf = new MessageBuffer(100);
    for (let i = 0; i < 10_000; i++) buf.add("#c", msg(i));
    const ring = (buf as unknown as { rings: Map<string, { nicks: unknown[]; texts: unknown[]; times: unknown[] }> }).rings.get("#c");
    expect([ring?.nicks.length, ring?.texts.length, ring?.times.length]).toEqual([100, 100, 100]);
    const r = buf.read("#c", 1000);
    expect(r.skipped).toBe(9_900);
    expect(r.messages[0]?.text).toBe("m9900");
    expect(r.messages.at(-1)?.text).toBe("m9999");
  });

  it("gives back exactly what was added: any text, fractional timestamps, many nicks", () => {
    const odd = ["héllo wörld ✓ and more text", "emoji 🎉🎉 at length over thirteen", "lone \ud800 surrogate, long enough", "", "x", "tab\tand \\ backslash \"quoted\""];
    const buf = new MessageBuffer(5000);
    const added = [];
    for (let i = 0; i < 3000; i++) {
      // More distinct nicks than the nick table holds, so it starts over at least twice.
      const line = `:nick${i}!u@h PRIVMSG #c :${odd[i % odd.length]} ${i}`;
      const entry = { nick: line.slice(1, line.indexOf("!")), text: line.slice(line.indexOf(" :") + 2), timestamp: 1_700_000_000.123 + i / 7 };
      added.push({ ...entry });
      buf.add("#c", entry);
    }
    const r = buf.read("#c", 5000);
    expect(r.skipped).toBe(0);
    expect(r.messages).toEqual(added);
  });

  it("does not keep the IRC lines its texts were cut from", () => {
    // V8 keeps a substring of a long string as a slice holding the whole parent: 200 texts cut
    // from 200 distinct 100 KB lines must not keep 20 MB of lines alive.
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const buf = new MessageBuffer(200);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 200; i++) {
      const line = `@tag=${String(i).repeat(100_000 / String(i).length)} :nick!u@h PRIVMSG #c :message number ${i} of the flood`;
      buf.add("#c", { nick: "nick", text: line.slice(line.indexOf(" :", line.indexOf("PRIVMSG")) + 2), timestamp: i });
    }
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    expect(grown).toBeLessThan(5 * 2 ** 20);
    expect(buf.read("#c", 1).messages[0]?.text).toBe("message number 0 of the flood");
  });
});
