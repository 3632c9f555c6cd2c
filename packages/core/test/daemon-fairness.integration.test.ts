/**
 * Fair queueing and the agent-to-agent chain cap, on the embedded server with a real daemon and
 * the echo backend's real agent process: spam from one user cannot push out an operator's
 * prompt or make the supervisor pause the agent, an overflow is reported once, and two agents
 * cannot mention each other forever.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, type IrcServer } from "@culture/server";
import { connectRawClient, parseRawLine, type RawIrcClient } from "../src/testing/irc-servers.js";
import { eventually, startTestDaemon, type TestDaemon } from "./helpers/daemon-harness.js";

let server: IrcServer;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  // Flood control off: the spam must reach the daemon, not be throttled by the server.
  server = await startServer({ host: "127.0.0.1", port: 0, stateDir: null, flood: false });
});
afterAll(async () => {
  await server?.close();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

async function daemon(opts: Omit<Parameters<typeof startTestDaemon>[0], "port">): Promise<TestDaemon> {
  const d = await startTestDaemon({ port: server.port, ...opts });
  cleanups.push(() => d.stop());
  return d;
}

async function human(nick: string): Promise<RawIrcClient> {
  const c = await connectRawClient(server.port, nick);
  cleanups.push(() => c.close());
  await c.join("#test");
  return c;
}

/** What `from` said in #test among `lines`. */
function said(from: string, lines: string[]): string[] {
  return lines.flatMap((l) => {
    const p = parseRawLine(l);
    return p.command === "PRIVMSG" && p.nick === from && p.params[0] === "#test" ? [p.params[1] ?? ""] : [];
  });
}

describe("fair queueing", () => {
  it("keeps an operator's prompt ahead of one user's spam, reports the overflow once, and the spam never pauses the agent", async () => {
    const d = await daemon({ nick: "spark-bot", config: { operators: ["erin"], operators_by_nick: true }, timings: { perSenderLimit: 3, promptQueueLimit: 5 } });
    const mallory = await human("mallory");
    const erin = await human("erin");
    mallory.send("PRIVMSG #test :@spark-bot sleep 1500 busy");
    await eventually(() => d.daemon.status().activity === "working", "the first turn");
    const mark = mallory.lines.length;
    // The same tool call, 30 times (what made the supervisor escalate), and 30 different lines.
    for (let i = 0; i < 30; i++) mallory.send("PRIVMSG #test :@spark-bot tool same");
    for (let i = 1; i <= 30; i++) mallory.send(`PRIVMSG #test :@spark-bot spam ${i}`);
    await eventually(() => (d.daemon.status().prompts_refused as number) >= 57, "the spam to be refused");
    erin.send("PRIVMSG #test :@spark-bot operator here");
    await mallory.waitFor((l) => /^:spark-bot!\S+ PRIVMSG #test :I heard: .*<erin> @spark-bot operator here$/.test(l), 20_000);
    // Everything mallory got queued is answered, then a sentinel.
    await eventually(() => d.daemon.status().queued_prompts === 0 && d.daemon.status().activity === "idle", "the queue to drain", 20_000);
    // The last reply may still be in the send queue behind mallory's receipts (same flood budget).
    await mallory.waitFor(/^:spark-bot!\S+ PRIVMSG #test :I heard: .*<mallory> @spark-bot spam 2$/, 20_000);
    const lines = said("spark-bot", mallory.since(mark));
    // The operator's prompt went first, ahead of mallory's three queued ones.
    expect(lines.findIndex((t) => /operator here$/.test(t))).toBeLessThan(lines.findIndex((t) => /used a tool|spam 1$/.test(t)));
    // Three of mallory's prompts: the folded tool call and the first two spam lines.
    expect(lines.filter((t) => t === "used a tool")).toHaveLength(1);
    expect(lines.filter((t) => /<mallory> @spark-bot spam \d+$/.test(t)).map((t) => /spam (\d+)$/.exec(t)![1])).toEqual(["1", "2"]);
    // The overflow was reported once, not per message.
    expect(lines.filter((t) => /^mallory: .*ignoring new ones until I catch up\.$/.test(t))).toHaveLength(1);
    const s = d.daemon.status();
    expect(s.paused).toBe(false);
    expect(s.supervisor).toMatchObject({ ladder_step: 0 });
    expect(s.daemon_state).toBe("ready");
  });
});

describe("agent-to-agent chains", () => {
  it("ignores an agent's mention after 4 agent messages in a row in the channel, until a human speaks", async () => {
    const d = await daemon({ nick: "spark-bot", otherAgents: [{ nick: "spark-peer" }] });
    const peer = await human("spark-peer"); // plays the other agent of the config
    const alice = await human("alice");
    const reply = (n: string) => (l: string) => /^:spark-bot!\S+ PRIVMSG #test :I heard: .*<spark-peer> @spark-bot ping (\d+)$/.exec(l)?.[1] === n;
    peer.send("PRIVMSG #test :@spark-bot ping 1"); // hop 1
    await peer.waitFor(reply("1")); // hop 2
    peer.send("PRIVMSG #test :@spark-bot ping 2"); // hop 3
    await peer.waitFor(reply("2")); // hop 4
    peer.send("PRIVMSG #test :@spark-bot ping 3"); // hop 5: ignored
    await eventually(() => d.daemon.status().agent_chain_refused === 1, "the fifth hop to be refused");
    alice.send("PRIVMSG #test :enough, you two"); // a human resets the chain
    peer.send("PRIVMSG #test :@spark-bot ping 4");
    const next = await peer.waitFor(/^:spark-bot!\S+ PRIVMSG #test :/);
    expect(next).toMatch(/ping 4$/);
    expect(d.daemon.status().turn_count).toBe(3);
  });
});
