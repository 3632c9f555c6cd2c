/**
 * A receipt the full receipt lane refuses is not lost: it is folded into the sender's next
 * summary, and a summary the lane refuses is carried into the one after (bench/receipts.mjs
 * counted "lane full 23" receipts that nobody saw). The transport here is a stand-in whose
 * receipt lane is full or not on demand; the lane itself is tested in irc-send-queue.test.ts.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { IrcTransport } from "../src/irc/irc-transport.js";
import { createLogger } from "../src/logger.js";
import { Receipts } from "../src/daemon/receipts.js";

function rig() {
  const sent: Array<{ target: string; text: string }> = [];
  let full = false;
  const transport = {
    clientTags: false,
    receipt: (target: string, r: { command?: string; text?: string }) => {
      if (full) return false;
      sent.push({ target, text: r.text ?? "" });
      return true;
    },
  } as unknown as IrcTransport;
  const receipts = new Receipts({ mode: "notice", transport: () => transport, logger: createLogger({ level: "silent" }) });
  const ticket = (id: string, sender = "alice") => ({ id, sender, replyTo: "#test", place: "#test", msgid: null, text: `line ${id}` });
  return { sent, receipts, ticket, setFull: (f: boolean) => (full = f) };
}

afterEach(() => vi.useRealTimers());

describe("receipts when the receipt lane is full", () => {
  it("folds a refused receipt and a refused failure into the sender's next summary", () => {
    vi.useFakeTimers();
    const { sent, receipts, ticket, setFull } = rig();
    receipts.track(ticket("1"));
    receipts.ack("1", { state: "queued", position: 2 });
    expect(sent.map((s) => s.text)).toEqual(['[#test] queued, 2nd in line: "line 1"']);
    setFull(true);
    receipts.track(ticket("2"));
    receipts.ack("2", { state: "queued", position: 3 });
    receipts.final("1", { state: "failed", why: "the API is overloaded", next: "ask again" });
    expect(sent).toHaveLength(1);
    vi.advanceTimersByTime(1_000); // the window ends: its summary is refused too, and carried
    setFull(false);
    vi.advanceTimersByTime(1_000);
    expect(sent.slice(1)).toEqual([{ target: "alice", text: "[receipts] 2 more of your lines: 1 queued, 1 failed" }]);
    expect(receipts.snapshot()).toMatchObject({ laneFull: 3, summarized: 2 });
  });
});
