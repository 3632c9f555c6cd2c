/**
 * The daemon's event feed (daemon/event-feed.ts): what `culture console` reads as an agent's
 * transcript. Driven through real daemon hooks; the IPC answer pages forward and back, masks
 * secrets, caps its size, and refuses bad fields. The control-socket-only rule is checked
 * through ipc-access (the agent's tools socket refuses `events`).
 */
import { describe, expect, it } from "vitest";
import { createDaemonHooks } from "../src/hooks.js";
import { EventFeed, FEED_SIZE } from "../src/daemon/event-feed.js";
import { controlOnToolsSocket, isControlType } from "../src/daemon/ipc-access.js";
import type { PromptOrigin } from "../src/events.js";

const origin: PromptOrigin = { id: "p1", kind: "mention", channel: "#dev", sender: "alice", replyTo: "#dev", text: "@bot deploy with token ghp_abcdefghijklmnopqrstuvwxyz0123456789", account: "alice" };
const ask = (feed: EventFeed, fields: Record<string, unknown>) => feed.ipc({ type: "events", id: "1", ...fields })!;

describe("EventFeed", () => {
  it("records a turn from the daemon's hooks: prompt with who asked, tool call and result masked, reply", async () => {
    const hooks = createDaemonHooks({ onTapError: (e) => { throw e; } });
    const feed = new EventFeed(() => 1000).apply(hooks);
    await hooks.beforePrompt.promise("prompt text", origin);
    await hooks.agentMessage.promise({ type: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "curl -H 'Authorization: Bearer sk-live-0123456789abcdefghij' x", api_key: "hunter2" } }] }, origin);
    await hooks.agentMessage.promise({ type: "assistant", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok", is_error: false }] }, origin);
    await hooks.turnEnd.promise({ origin, prompt: "prompt text", messages: [], finalText: "done", sentTo: new Set(), error: null, durationMs: 5 });
    const r = ask(feed, {});
    expect(r.ok).toBe(true);
    const events = (r as unknown as { data: { events: Array<Record<string, unknown>> } }).data.events;
    expect(events.map((e) => e.kind)).toEqual(["prompt", "tool_call", "tool_result", "reply"]);
    expect(events[0]).toMatchObject({ seq: 1, at: 1000, who: "alice", where: "#dev", origin: "mention" });
    expect(events[0]!.text).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    expect(events[1]!.who).toBe("Bash");
    expect(events[1]!.text).not.toContain("sk-live-0123456789abcdefghij");
    expect(events[1]!.text).not.toContain("hunter2");
    expect(events[3]).toMatchObject({ kind: "reply", text: "done", who: "alice", where: "#dev" });
  });

  it("pages: the last n, after a seq (live), before a seq (history); keeps the last FEED_SIZE", () => {
    const feed = new EventFeed();
    for (let i = 0; i < FEED_SIZE + 50; i++) feed.note({ kind: "reply", text: `r${i}` });
    const data = (f: Record<string, unknown>) => (ask(feed, f) as unknown as { data: { events: Array<{ seq: number }>; first: number; last: number } }).data;
    const last = data({ limit: 3 });
    expect(last.events.map((e) => e.seq)).toEqual([FEED_SIZE + 48, FEED_SIZE + 49, FEED_SIZE + 50]);
    expect(last.first).toBe(51);
    expect(last.last).toBe(FEED_SIZE + 50);
    expect(data({ after: FEED_SIZE + 48 }).events.map((e) => e.seq)).toEqual([FEED_SIZE + 49, FEED_SIZE + 50]);
    expect(data({ before: 55, limit: 10 }).events.map((e) => e.seq)).toEqual([51, 52, 53, 54]);
    expect(data({ limit: 100_000 }).events.length).toBe(500);
  });

  it("refuses bad fields, and is a control-socket request only", () => {
    const feed = new EventFeed();
    for (const bad of [{ after: -1 }, { before: "3" }, { limit: 1.5 }]) {
      const r = ask(feed, bad);
      expect(r.ok).toBe(false);
      expect((r as { error: string }).error).toMatch(/must be a whole number >= 0/);
    }
    expect(feed.ipc({ type: "status", id: "1" })).toBeNull();
    expect(isControlType("events")).toBe(true);
    expect((controlOnToolsSocket("events", "bot") as { error: string }).error).toMatch(/culture console/);
  });
});

describe("approval_answer's by (the console's user)", () => {
  it("records who decided when given, local when not, and refuses control characters", async () => {
    const { handleApprovalIpc } = await import("../src/daemon/approval-ipc.js");
    const calls: string[] = [];
    const desk = { answer: (_id: string, _verb: string, by: string) => (calls.push(by), { ok: true, decision: { behavior: "allow", scope: "once", by } }) } as never;
    expect(handleApprovalIpc({ type: "approval_answer", id: "1", approval: "3", answer: "approve", by: "alice (console)" }, desk)?.ok).toBe(true);
    expect(handleApprovalIpc({ type: "approval_answer", id: "1", approval: "3", answer: "approve" }, desk)?.ok).toBe(true);
    expect(calls).toEqual(["alice (console)", "local"]);
    for (const by of ["", "a\r\nPRIVMSG #x :hi", 7, "x".repeat(65)]) {
      const r = handleApprovalIpc({ type: "approval_answer", id: "1", approval: "3", answer: "approve", by }, desk);
      expect(r?.ok).toBe(false);
    }
    expect(calls.length).toBe(2);
  });
});
