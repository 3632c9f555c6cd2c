/** The fair prompt queue: classes, per-sender limits, folding, eviction. */
import { describe, expect, it } from "vitest";
import { PromptQueue, type PromptClass, type QueuedPrompt } from "../src/daemon/prompt-queue.js";

let n = 0;
function p(sender: string | null, text: string, klass: PromptClass = "chatter"): QueuedPrompt {
  return { origin: { id: `id${++n}`, kind: klass === "priority" ? "dm" : "mention", channel: klass === "priority" ? null : "#c", sender, replyTo: "#c", text }, text, klass };
}
const texts = (q: PromptQueue) => q.clear().map((x) => x.text);

describe("PromptQueue", () => {
  it("serves system, then priority (operators, DMs), then chatter, FIFO within each", () => {
    const q = new PromptQueue({ limit: 10, perSenderLimit: 10 });
    q.push(p("a", "c1"));
    q.push(p("b", "d1", "priority"));
    q.push(p(null, "s1", "system"));
    q.push(p("c", "c2"));
    q.push(p("d", "d2", "priority"));
    expect(texts(q)).toEqual(["s1", "d1", "d2", "c1", "c2"]);
  });

  it("refuses a sender over the per-sender limit, and folds a duplicate", () => {
    const q = new PromptQueue({ limit: 10, perSenderLimit: 2 });
    expect(q.push(p("mallory", "x")).accepted).toBe(true);
    expect(q.push(p("Mallory", "x"))).toEqual({ accepted: false, reason: "duplicate" });
    expect(q.push(p("mallory", "y")).accepted).toBe(true);
    expect(q.push(p("mallory", "z"))).toEqual({ accepted: false, reason: "sender_limit" });
    expect(q.push(p("alice", "a")).accepted).toBe(true);
    expect(texts(q)).toEqual(["x", "y", "a"]);
  });

  it("when full, evicts the newest prompt of the busiest chatter sender, never a DM for chatter", () => {
    const q = new PromptQueue({ limit: 4, perSenderLimit: 10 });
    q.push(p("erin", "op", "priority"));
    q.push(p("mallory", "m1"));
    q.push(p("mallory", "m2"));
    q.push(p("mallory", "m3"));
    const r = q.push(p("alice", "a1"));
    expect(r.accepted && r.evicted?.text).toBe("m3");
    // Chatter cannot push out the operator's prompt; the busiest sender's own newcomer is refused.
    expect(q.push(p("mallory", "m4"))).toEqual({ accepted: false, reason: "full" });
    const dm = q.push(p("bob", "dm", "priority"));
    expect(dm.accepted && dm.evicted?.text).toBe("m2");
    expect(texts(q)).toEqual(["op", "dm", "m1", "a1"]);
  });

  it("restores journaled prompts without limits", () => {
    const q = new PromptQueue({ limit: 1, perSenderLimit: 1 });
    q.restore(p("a", "r1", "system"));
    q.restore(p("a", "r2", "system"));
    expect(q.length).toBe(2);
  });
});
