/**
 * The transport's send queue: a receipt goes out ahead of a backlog of replies (it is not
 * starved behind them), and the flood budget (one token bucket for all lanes) still holds.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { SendQueue } from "../src/irc/send-queue.js";

afterEach(() => {
  vi.useRealTimers();
});

function queue(written: string[], limit = 100, receiptLimit?: number): SendQueue {
  return new SendQueue({ burst: 5, intervalMs: 500, limit, ...(receiptLimit ? { receiptLimit } : {}), write: (l) => written.push(l), canSend: () => true, messagesReleased: () => true });
}

describe("SendQueue receipt lane", () => {
  it("sends a receipt next, ahead of 30 waiting replies, at the same rate", () => {
    vi.useFakeTimers();
    const written: string[] = [];
    const q = queue(written);
    q.sendMessages(Array.from({ length: 30 }, (_, i) => `PRIVMSG #c :reply ${i}`));
    expect(written).toHaveLength(5); // the burst
    expect(q.sendReceipt("NOTICE alice :[#c] queued, 2nd in line")).toBe(true);
    vi.advanceTimersByTime(500);
    expect(written[5]).toBe("NOTICE alice :[#c] queued, 2nd in line");
    // The flood budget holds: one line per 500 ms after the burst, receipts included.
    vi.advanceTimersByTime(5_000);
    expect(written).toHaveLength(6 + 10);
    expect(written.slice(6)).toEqual(Array.from({ length: 10 }, (_, i) => `PRIVMSG #c :reply ${i + 5}`));
  });

  it("refuses receipts past its own limit instead of growing without bound", () => {
    vi.useFakeTimers();
    const written: string[] = [];
    const q = queue(written, 100, 2);
    q.sendMessages(Array.from({ length: 5 }, (_, i) => `PRIVMSG #c :reply ${i}`));
    expect([q.sendReceipt("NOTICE a :1"), q.sendReceipt("NOTICE a :2"), q.sendReceipt("NOTICE a :3")]).toEqual([true, true, false]);
    expect(q.pendingReceipts).toBe(2);
  });

  it("holds receipts, like replies, until the channels are rejoined, and keeps them over a disconnect", () => {
    const written: string[] = [];
    let released = false;
    const q = new SendQueue({ burst: 5, intervalMs: 500, limit: 100, write: (l) => written.push(l), canSend: () => true, messagesReleased: () => released });
    q.sendReceipt("@+draft/reply=x;+draft/react=👀 TAGMSG #c");
    q.onDisconnect();
    expect(written).toEqual([]);
    released = true;
    q.pump();
    expect(written).toEqual(["@+draft/reply=x;+draft/react=👀 TAGMSG #c"]);
  });
});

describe("SendQueue status lines", () => {
  it("keep their place behind the replies queued before them: idle never overtakes the turn's reply", () => {
    vi.useFakeTimers();
    const written: string[] = [];
    const q = queue(written);
    q.sendMessages(Array.from({ length: 8 }, (_, i) => `PRIVMSG #c :reply ${i}`));
    q.sendStatus("NOTICE #presence", "NOTICE #presence :idle");
    q.sendMessages(["PRIVMSG #c :later"]);
    vi.advanceTimersByTime(10_000);
    const sent = written.filter((l) => !l.startsWith("PING "));
    expect(sent.slice(7)).toEqual(["PRIVMSG #c :reply 7", "NOTICE #presence :idle", "PRIVMSG #c :later"]);
  });

  it("a newer line of the same key drops the one still waiting: a backlog sends only the latest state", () => {
    vi.useFakeTimers();
    const written: string[] = [];
    const q = queue(written);
    q.sendMessages(Array.from({ length: 10 }, (_, i) => `PRIVMSG #c :reply ${i}`));
    q.sendStatus("AWAY", "AWAY :running");
    q.sendStatus("NOTICE #presence", "NOTICE #presence :running");
    q.sendMessages(["PRIVMSG #c :the reply"]);
    q.sendStatus("AWAY", "AWAY");
    q.sendStatus("NOTICE #presence", "NOTICE #presence :idle");
    expect(q.pendingMessages).toBe(10 - 5 + 3);
    vi.advanceTimersByTime(10_000);
    const sent = written.filter((l) => !l.startsWith("PING "));
    expect(sent.filter((l) => /running/.test(l))).toEqual([]);
    expect(sent.slice(10)).toEqual(["PRIVMSG #c :the reply", "AWAY", "NOTICE #presence :idle"]);
  });

  it("are dropped on a disconnect (a reconnect publishes again); replies are kept", () => {
    const written: string[] = [];
    let released = false;
    const q = new SendQueue({ burst: 5, intervalMs: 500, limit: 100, write: (l) => written.push(l), canSend: () => true, messagesReleased: () => released });
    q.sendStatus("AWAY", "AWAY :running");
    q.sendMessages(["PRIVMSG #c :reply"]);
    q.onDisconnect();
    released = true;
    q.pump();
    expect(written.filter((l) => !l.startsWith("PING "))).toEqual(["PRIVMSG #c :reply"]);
  });
});
