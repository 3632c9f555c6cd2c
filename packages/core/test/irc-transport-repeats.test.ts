/**
 * A server that repeats a line (one copy per listed target for `PRIVMSG bot,bot,bot`, as
 * culture's embedded server did) must not turn it into several events: the transport drops
 * repeats by msgid and, for live lines, by millisecond server-time + sender + text. A scripted
 * peer plays that server, so the exact repeated lines are under the test's control.
 */
import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { serverSchema } from "../src/config/schema.js";
import type { IrcMessageEvent } from "../src/events.js";
import { IrcTransport } from "../src/irc/irc-transport.js";
import { silentLogger } from "../src/logger.js";
import { pollUntil } from "../src/testing/runner-recorder.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A peer that registers anyone and, on `PING :go`, plays `lines` and then `PRIVMSG bot :end`. */
async function scriptedPeer(lines: string[]): Promise<number> {
  const peer = createServer((sock) => {
    let buffer = "";
    let nick = "*";
    const send = (line: string): void => void sock.write(line + "\r\n");
    sock.on("error", () => {});
    sock.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, "");
        buffer = buffer.slice(nl + 1);
        const [cmd, arg] = line.split(" ");
        if (line.startsWith("CAP LS")) send(":peer.test CAP * LS :message-tags server-time");
        else if (line.startsWith("CAP REQ")) send(`:peer.test CAP * ACK :${line.split(":")[1]}`);
        else if (cmd === "NICK") nick = arg ?? nick;
        else if (line === "CAP END") {
          send(`:peer.test 001 ${nick} :Welcome`);
          send(`:peer.test 005 ${nick} CASEMAPPING=rfc1459 CHANTYPES=# :are supported`);
          send(`:peer.test 376 ${nick} :End of MOTD`);
          for (const l of lines) send(l);
          send(":alice!u@h PRIVMSG bot :end");
        } else if (cmd === "QUIT") sock.end();
      }
    });
  });
  await new Promise<void>((r) => peer.listen(0, "127.0.0.1", r));
  cleanups.push(() => new Promise((r) => peer.close(() => r())));
  return (peer.address() as { port: number }).port;
}

describe("IrcTransport against a server that repeats lines", () => {
  it("emits each message once: by msgid, per conversation; without a msgid by millisecond server-time", async () => {
    const t0 = "2026-01-01T10:00:00.123Z";
    const t1 = "2026-01-01T10:00:01.456Z";
    const port = await scriptedPeer([
      // PRIVMSG bot,bot,bot,bot with one msgid: one message.
      ...Array.from({ length: 4 }, () => `@msgid=a1;time=${t0} :alice!u@h PRIVMSG bot :@bot four targets`),
      // Two msgids in one millisecond: two lines a person sent (a fast paste); both count.
      `@msgid=b1;time=${t1} :alice!u@h PRIVMSG bot :@bot again`,
      `@msgid=b2;time=${t1} :alice!u@h PRIVMSG BOT :@bot again`,
      // The same words said twice, at different times: two messages.
      `@msgid=c1;time=2026-01-01T10:00:02.000Z :alice!u@h PRIVMSG #c :twice`,
      `@msgid=c2;time=2026-01-01T10:00:03.000Z :alice!u@h PRIVMSG #c :twice`,
      // One msgid for #a and #b (PRIVMSG #a,#b): two conversations, two messages.
      `@msgid=d1;time=2026-01-01T10:00:04.000Z :alice!u@h PRIVMSG #a :both`,
      `@msgid=d1;time=2026-01-01T10:00:04.000Z :alice!u@h PRIVMSG #b :both`,
      // Server-time without a msgid: the same line in the same millisecond is one message.
      `@time=${t1} :bob!u@h PRIVMSG bot :@bot dup`,
      `@time=${t1} :bob!u@h PRIVMSG bot :@bot dup`,
      // No tags at all: nothing tells a repeat from a new line, both count.
      ":alice!u@h PRIVMSG bot :untagged",
      ":alice!u@h PRIVMSG bot :untagged",
    ]);
    const t = new IrcTransport({ server: serverSchema.parse({ host: "127.0.0.1", port }), nick: "bot", channels: [], logger: silentLogger });
    cleanups.push(() => t.close());
    const events: IrcMessageEvent[] = [];
    t.on("message", (ev) => events.push(ev));
    await t.connect();
    await pollUntil(() => events.some((e) => e.text === "end"));
    expect(events.map((e) => `${e.target} ${e.text}`)).toEqual([
      "bot @bot four targets",
      "bot @bot again",
      "BOT @bot again",
      "#c twice",
      "#c twice",
      "#a both",
      "#b both",
      "bot @bot dup",
      "bot untagged",
      "bot untagged",
      "bot end",
    ]);
  });

  it("survives hostile lines from the server and still emits the next message", async () => {
    const port = await scriptedPeer([
      `@msgid=x;time=not-a-time;+a=\\\\;;;=;+b=\\ :alice!u@h PRIVMSG bot :bad tags`,
      `:alice!u@h PRIVMSG bot :${"x".repeat(20_000)}`,
      "@only=tags",
      ":alice!u@h PRIVMSG",
      ":alice!u@h PRIVMSG bot",
      ":alice!u@h PRIVMSG bot :\x01",
      ":alice!u@h PRIVMSG bot :\x01VERSION\x01",
      ":alice!u@h PRIVMSG #c :\u0000\u0000\u0000",
      "BATCH -never-opened",
      ":peer.test BATCH +h chathistory #c",
      "@batch=h;time=2026-01-01T00:00:00.000Z :alice!u@h PRIVMSG #c :@bot old history",
      ":peer.test 005 bot CASEMAPPING=ascii CHANMODES=,,,H :are supported",
      ":alice!u@h NICK",
      ":alice!u@h JOIN",
      ":alice!u@h QUIT",
      ":alice!u@h KICK #c",
      ": :",
      "\u00ff\u00fe garbage",
      ":alice!u@h PRIVMSG bot :after the storm",
    ]);
    const t = new IrcTransport({ server: serverSchema.parse({ host: "127.0.0.1", port }), nick: "bot", channels: [], logger: silentLogger });
    cleanups.push(() => t.close());
    const events: IrcMessageEvent[] = [];
    t.on("message", (ev) => events.push(ev));
    await t.connect();
    await pollUntil(() => events.some((e) => e.text === "end"));
    const texts = events.map((e) => e.text);
    expect(texts).toContain("bad tags");
    expect(texts).toContain("after the storm");
    expect(texts).not.toContain("@bot old history"); // a history batch nobody asked for
    expect(texts.some((x) => x.includes("VERSION"))).toBe(false);
    expect(t.connected).toBe(true);
  });
});
