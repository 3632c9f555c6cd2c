/**
 * Receipts, on real IRC servers with a real daemon and the echo backend's real agent process:
 * every line addressed to the agent gets one visible acknowledgement of its state and one
 * final state (queued with its position, working, paused and by whom, merged, dropped by an
 * abort, failed and what happens next), bounded per sender; failures answer where they were
 * asked, besides #alerts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, type IrcServer } from "@culture/server";
import { connectRawClient, parseRawLine, startIrcServer, type RawIrcClient, type RunningIrcServer } from "../src/testing/irc-servers.js";
import { eventually, startTestDaemon, type TestDaemon } from "./helpers/daemon-harness.js";

let server: IrcServer;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  server = await startServer({ host: "127.0.0.1", port: 0, stateDir: null, flood: false });
});
afterAll(async () => {
  await server?.close();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

async function daemon(opts: Omit<Parameters<typeof startTestDaemon>[0], "port">, port = server.port): Promise<TestDaemon> {
  const d = await startTestDaemon({ port, ...opts });
  cleanups.push(() => d.stop());
  return d;
}

async function human(nick: string, caps: string[] = [], port = server.port): Promise<RawIrcClient> {
  const c = await connectRawClient(port, nick, caps.length ? { caps } : {});
  cleanups.push(() => c.close());
  await c.join("#test");
  return c;
}

/** NOTICEs from `from` to `to` since `mark`. */
function notices(c: RawIrcClient, from: string, mark = 0): string[] {
  return c.since(mark).flatMap((l) => {
    const p = parseRawLine(l);
    return p.command === "NOTICE" && p.nick === from && p.params[0] === c.nick ? [p.params[1] ?? ""] : [];
  });
}

/** What `from` said in #test since `mark`. */
function said(c: RawIrcClient, from: string, mark = 0): string[] {
  return c.since(mark).flatMap((l) => {
    const p = parseRawLine(l);
    return p.command === "PRIVMSG" && p.nick === from && p.params[0] === "#test" ? [p.params[1] ?? ""] : [];
  });
}

const idle = (d: TestDaemon) => d.daemon.status().activity === "idle" && d.daemon.status().queued_prompts === 0;

describe("receipts: notice", () => {
  it("tells each asker queued with its position, paused by whom, merged, and dropped by an operator's abort", async () => {
    const d = await daemon({ nick: "spark-bot", agent: { receipts: "notice" }, config: { operators: ["erin"], operators_by_nick: true } });
    const alice = await human("alice");
    const bob = await human("bob");
    const erin = await human("erin");
    alice.send("PRIVMSG #test :@spark-bot sleep 1500 first");
    await eventually(() => d.daemon.status().activity === "working", "the first turn");
    bob.send("PRIVMSG #test :@spark-bot second");
    await bob.waitFor(/NOTICE bob :\[#test\] queued, next in line: "@spark-bot second"$/);
    bob.send("PRIVMSG #test :@spark-bot third");
    await bob.waitFor(/NOTICE bob :\[#test\] queued, 2nd in line: "@spark-bot third"$/);
    bob.send("PRIVMSG #test :@spark-bot third");
    await bob.waitFor(/NOTICE bob :\[#test\] the same request of yours is already waiting; merged with it: "@spark-bot third"$/);
    // The operator aborts: bob's two waiting prompts end with a word to bob, alice's turn too.
    erin.send("PRIVMSG #test :@spark-bot abort");
    await erin.waitFor(/PRIVMSG #test :erin: aborted the current task and dropped 2 queued prompt\(s\)\.$/);
    await alice.waitFor(/NOTICE alice :\[#test\] dropped: erin aborted my work while I was working on it: "@spark-bot sleep 1500 first"$/);
    // bob had three receipts within the second: the two dropped prompts come in its summary.
    await bob.waitFor(/NOTICE bob :\[receipts\] 2 more of your lines: 2 dropped$/, 5_000);
    await eventually(() => idle(d), "idle after the abort");
    // Paused with `culture pause`: the asker learns who paused it.
    expect((await d.culture(["pause", "spark-bot"], { nick: null })).exitCode).toBe(0);
    const mark = alice.lines.length;
    alice.send("PRIVMSG #test :@spark-bot while paused");
    await alice.waitFor(/NOTICE alice :\[#test\] queued; I am paused \(by an operator, with culture pause\) and start once resumed: "@spark-bot while paused"$/);
    expect((await d.culture(["resume", "spark-bot"], { nick: null })).exitCode).toBe(0);
    await alice.waitFor(/PRIVMSG #test :I heard: .*while paused$/);
    await eventually(() => idle(d), "idle after resume");
    const r = d.daemon.status().receipts as { lines: number; acknowledged: number; open: number; ignored: number; final: Record<string, number> };
    // first, second, third, third (merged), while paused: five lines, each with one final state.
    expect(r).toMatchObject({ lines: 5, acknowledged: 5, open: 0, ignored: 0, final: { dropped: 3, merged: 1, done: 1 } });
    // alice's "while paused" got one receipt, not two (the working state after resume is not shown again).
    expect(notices(alice, "spark-bot", mark)).toHaveLength(1);
  });

  it("bounds a flood from one sender: three receipts, then one summary", async () => {
    const d = await daemon({ nick: "spark-bot", agent: { receipts: "notice" } });
    const mallory = await human("mallory");
    mallory.send("PRIVMSG #test :@spark-bot sleep 1500 busy");
    await mallory.waitFor(/NOTICE mallory :\[#test\] working on it: "@spark-bot sleep 1500 busy"$/);
    const mark = mallory.lines.length;
    for (let i = 1; i <= 12; i++) mallory.send(`PRIVMSG #test :@spark-bot flood ${i}`);
    await mallory.waitFor(/NOTICE mallory :\[receipts\] \d+ more of your lines: /, 5_000);
    await eventually(() => idle(d), "the queue to drain", 20_000);
    const got = notices(mallory, "spark-bot", mark);
    // At most three receipts a second (the busy line's "working" may have used one), the rest of
    // the 12 summed up once: each line is accounted for, and the sender got at most 4 NOTICEs.
    const single = got.filter((t) => /^\[#test\] queued, .*"@spark-bot flood \d+"$/.test(t));
    const summaries = got.filter((t) => t.startsWith("[receipts] "));
    expect(single.length).toBeLessThanOrEqual(3);
    expect(summaries).toEqual([`[receipts] ${12 - single.length} more of your lines: ${12 - single.length} queued`]);
    expect(got).toHaveLength(single.length + 1);
    const r = d.daemon.status().receipts as { lines: number; acknowledged: number; open: number; final: Record<string, number> };
    expect(r).toMatchObject({ lines: 13, acknowledged: 13, open: 0, final: { done: 13 } });
  });
});

describe("receipts: auto (IRCv3 reactions)", () => {
  for (const kind of ["embedded", "inspircd"] as const) {
    it(`reacts on the asker's msgid on ${kind === "embedded" ? "the embedded server" : "InspIRCd"}: working, then done`, async () => {
      let port = server.port;
      if (kind === "inspircd") {
        const irc: RunningIrcServer = await startIrcServer("inspircd");
        cleanups.push(() => irc.stop());
        port = irc.port;
      }
      const d = await daemon({ nick: "spark-bot", agent: {} }, port);
      const alice = await human("alice", ["message-tags", "echo-message"], port);
      alice.send("PRIVMSG #test :@spark-bot hello there");
      const echo = parseRawLine(await alice.waitFor((l, p) => p.command === "PRIVMSG" && p.nick === "alice" && /hello there/.test(p.params[1] ?? "")));
      const msgid = echo.tags.msgid!;
      expect(msgid).toBeTruthy();
      const reacted = (emoji: string) => (_l: string, p: ReturnType<typeof parseRawLine>) =>
        p.command === "TAGMSG" && p.nick === "spark-bot" && p.params[0] === "#test" && p.tags["+draft/reply"] === msgid && p.tags["+draft/react"] === emoji;
      await alice.waitFor(reacted("👀"));
      // The reply, then its "done" (never ahead of it).
      await alice.waitFor(/PRIVMSG #test :I heard: .*hello there$/);
      await alice.waitFor(reacted("✅"));
      expect(notices(alice, "spark-bot")).toEqual([]);
      await eventually(() => (d.daemon.status().receipts as { final: Record<string, number> }).final.done === 1, "done counted");
    });
  }
});

describe("failures reach the asker", () => {
  it("answers in the channel when the agent crashes mid-turn, and when the crash circuit is open", async () => {
    const d = await daemon({ nick: "spark-bot", agent: { receipts: "off" }, config: { restart: { delay_seconds: 0, max_crashes: 2, window_seconds: 300 } } });
    const alice = await human("alice");
    await alice.join("#alerts");
    alice.send("PRIVMSG #test :@spark-bot crash");
    await alice.waitFor(/PRIVMSG #test :alice: sorry, "@spark-bot crash" failed: .+; the agent is restarting and picks the work up again\.$/);
    // One alert for the fault: the crash (the failed turn adds none of its own).
    await alice.waitFor(/PRIVMSG #alerts :\[ERROR\] spark-bot crashed: /);
    await eventually(() => d.daemon.status().daemon_state === "ready", "restarted");
    alice.send("PRIVMSG #test :@spark-bot crash");
    await alice.waitFor(/PRIVMSG #test :alice: sorry, "@spark-bot crash" failed: .+; automatic restarts stopped until an operator says "@spark-bot resume"\.$/, 20_000);
    alice.send("PRIVMSG #test :@spark-bot are you there");
    // Kept, not failed: one line that says it waits, and after the resume its answer, no second word.
    await alice.waitFor(
      /PRIVMSG #test :alice: "@spark-bot are you there" is queued until I can run: I cannot run right now \(it crashed too often and automatic restarts stopped\); it runs once an operator fixes that and resumes me\.$/,
    );
    await d.daemon.resume();
    await alice.waitFor(/PRIVMSG #test :I heard: .*are you there$/, 20_000);
    await eventually(() => (d.daemon.status().receipts as { open: number }).open === 0, "the kept line ended");
    expect(d.daemon.status().receipts).toMatchObject({ held: 1, ignored: 0, final: { failed: 2, done: 1 } });
    const said = alice.lines.filter((l) => / PRIVMSG #test :alice: .*are you there/.test(l));
    expect(said).toHaveLength(1);
    // receipts: off silences acknowledgements, never failures.
    expect(notices(alice, "spark-bot")).toEqual([]);
  });
});
