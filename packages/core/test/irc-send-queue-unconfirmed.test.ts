/**
 * The send queue keeps the message lines it wrote until a PING sent after them is answered,
 * and hands the unconfirmed ones back on a disconnect (unconfirmed-lines.ts): in memory, with
 * the written lines recorded.
 */
import { describe, expect, it } from "vitest";
import { SendQueue } from "../src/irc/send-queue.js";
import { MAX_UNCOVERED } from "../src/irc/unconfirmed-lines.js";

function queue(burst = 100) {
  const written: string[] = [];
  let connected = true;
  const q = new SendQueue({ burst, intervalMs: 1, limit: 1000, write: (l) => written.push(l), canSend: () => connected, messagesReleased: () => connected });
  return { q, written, setConnected: (v: boolean) => (connected = v) };
}

const pingToken = (line: string | undefined) => /^PING :(culture-sent-\d+)$/.exec(line ?? "")?.[1] ?? null;

describe("SendQueue: unconfirmed message lines", () => {
  it("writes one PING after a batch; its PONG confirms the batch, so a disconnect resends nothing", () => {
    const { q, written, setConnected } = queue();
    q.sendMessages(["PRIVMSG #a :one", "PRIVMSG #a :two"]);
    expect(written.slice(0, 2)).toEqual(["PRIVMSG #a :one", "PRIVMSG #a :two"]);
    const token = pingToken(written[2]);
    expect(token).not.toBeNull();
    expect(written).toHaveLength(3);
    expect(q.onPong(token!)).toBe(true);
    setConnected(false);
    q.onDisconnect();
    expect(q.pendingMessages).toBe(0);
  });

  it("a disconnect before the PONG puts the unconfirmed lines back first, in order, and they go out again once", () => {
    const { q, written, setConnected } = queue();
    q.sendMessages(["PRIVMSG #a :one", "PRIVMSG #a :two"]);
    setConnected(false);
    q.sendMessages(["PRIVMSG #a :three"]);
    q.onDisconnect();
    expect(q.pendingMessages).toBe(3);
    written.length = 0;
    setConnected(true);
    q.pump();
    expect(written.filter((l) => l.startsWith("PRIVMSG"))).toEqual(["PRIVMSG #a :one", "PRIVMSG #a :two", "PRIVMSG #a :three"]);
  });

  it("one PING at a time; lines written meanwhile wait for the next one", () => {
    const { q, written } = queue();
    q.sendMessages(["PRIVMSG #a :one"]);
    q.sendMessages(["PRIVMSG #a :two"]);
    expect(written.filter((l) => l.startsWith("PING"))).toHaveLength(1);
    q.onPong(pingToken(written.find((l) => l.startsWith("PING")))!);
    const pings = written.filter((l) => l.startsWith("PING"));
    expect(pings).toHaveLength(2); // the PONG sent the next sentinel, for "two"
  });

  it("a PONG that is not ours (or stale) is left to the other PING users or ignored", () => {
    const { q } = queue();
    expect(q.onPong("culture-7")).toBe(false);
    expect(q.onPong("culture-sent-999")).toBe(true);
  });

  it(`a backlog written at once gets one PING, not one per line (at most one per ${MAX_UNCOVERED} lines while more wait)`, () => {
    const { q, written } = queue(1000);
    q.sendMessages(Array.from({ length: 3 * MAX_UNCOVERED }, (_, i) => `PRIVMSG #a :${i}`));
    expect(written.filter((l) => l.startsWith("PING"))).toHaveLength(1);
  });
});
