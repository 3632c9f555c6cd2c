/**
 * Catch-up across a restart of the daemon itself, with real detached daemons (`culture
 * start`), the echo backend's real agent processes, the embedded IRC server (which keeps
 * channel history for CHATHISTORY), InspIRCd (which replays a `+H` channel's history on JOIN)
 * and a real SIGKILL of the daemon process: a mention sent while the daemon is dead (or
 * stopped with `culture stop`) becomes a prompt exactly once after the restart; lines the
 * killed daemon had handled are not prompted again; a mention older than
 * `catch_up.max_age_seconds` is in the buffer but is not prompted; and a first start (no marks
 * left by a previous daemon) prompts nothing from history.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isProcessAlive } from "@culture/core";
import { connectRawClient, parseRawLine, startChaosServer, type ChaosServer, type RawIrcClient } from "@culture/core/testing";
import { startServer, type IrcServer } from "@culture/server";
import { echoAgents, eventually, makeFleet, startedPid, type Fleet } from "./fleet-harness.js";

let server: IrcServer;
let inspircd: ChaosServer | undefined;
const fleets: Fleet[] = [];
const clients: RawIrcClient[] = [];

beforeAll(async () => {
  server = await startServer({ port: 0, stateDir: null });
});
afterAll(async () => {
  await server?.close();
  await inspircd?.stop();
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  for (const f of fleets.splice(0)) await f.cleanup();
});

/** A fleet with one echo agent, spark-a, in `channels`, on the embedded server or `port`. */
function fleet(channels: string | string[], extra: Record<string, unknown> = {}, port = server.port): Fleet {
  const f = makeFleet(port, ["spark-a"], extra);
  f.writeConfig(
    echoAgents(["spark-a"], f.home).map((a) => ({ ...a, channels: [channels].flat() })),
    extra,
  );
  fleets.push(f);
  return f;
}

async function human(nick: string, channel: string, port = server.port): Promise<RawIrcClient> {
  const c = await connectRawClient(port, nick);
  clients.push(c);
  await c.join(channel);
  return c;
}

async function status(f: Fleet): Promise<Record<string, unknown>> {
  const run = await f.culture(["status", "spark-a", "--json"]);
  return (JSON.parse(run.stdout) as Array<Record<string, unknown>>)[0]!;
}

/** What spark-a said in `channel` in `lines`: the echo agent's replies, "I heard: <prompt>". */
function replies(channel: string, lines: string[]): string[] {
  return lines.flatMap((l) => {
    const p = parseRawLine(l);
    return p.command === "PRIVMSG" && p.nick === "spark-a" && p.params[0] === channel && p.params[1]?.startsWith("I heard: ") ? [p.params[1]] : [];
  });
}

/** Starts spark-a and waits until it answers a mention in `channel`; returns its pid. */
async function startAndGreet(f: Fleet, alice: RawIrcClient, channel: string, word: string): Promise<number> {
  const pid = startedPid((await f.culture(["start", "spark-a"])).stdout, "spark-a");
  alice.send(`PRIVMSG ${channel} :@spark-a ${word}`);
  await alice.waitFor((l) => l.includes(`<alice> @spark-a ${word}`) && parseRawLine(l).nick === "spark-a", 20_000);
  return pid;
}

/** SIGKILLs the daemon (its agent sees EOF and exits) and waits until it is gone. */
async function kill9(pid: number): Promise<void> {
  process.kill(pid, "SIGKILL");
  await eventually(() => !isProcessAlive(pid), "the daemon to be gone");
}

/**
 * Starts spark-a again, sends a sentinel mention once it has joined, and returns what it
 * replied from the restart up to the sentinel's reply (anything caught up is prompted before
 * the sentinel: catch-up lines are handled as soon as the channel is joined).
 */
async function restartUntilSentinel(f: Fleet, alice: RawIrcClient, channel: string): Promise<string[]> {
  const mark = alice.lines.length;
  expect((await f.culture(["start", "spark-a"])).code).toBe(0);
  alice.send(`PRIVMSG ${channel} :@spark-a sentinel`);
  await alice.waitFor((l) => l.includes("<alice> @spark-a sentinel") && parseRawLine(l).nick === "spark-a", 20_000);
  return replies(channel, alice.since(mark));
}

describe.each(["embedded", "inspircd"] as const)("catch-up across a restart of the daemon on %s", (kind) => {
  let counter = 0;
  it.each(["killed -9", "stopped with culture stop"] as const)(
    "prompts a mention sent while the daemon was %s exactly once, and not the lines it had handled",
    async (how) => {
      let port = server.port;
      let extra: Record<string, unknown> = {};
      if (kind === "inspircd") {
        inspircd ??= await startChaosServer("inspircd");
        port = inspircd.port;
        // InspIRCd offers SASL, so `allow: auto` would take only logged-in users.
        extra = { allow: "everyone" };
      }
      const channel = `#rc-${kind}-${++counter}`;
      // A channel where nothing is said before the kill: marked from the agent's join.
      const quiet = `${channel}-quiet`;
      const f = fleet([channel, quiet], extra, port);
      const alice = await human("alice", channel, port);
      await alice.join(quiet);
      if (kind === "inspircd") {
        // InspIRCd keeps (and replays on JOIN) history only in channels with mode +H.
        for (const c of [channel, quiet]) {
          alice.send(`MODE ${c} +H 50:1d`);
          await alice.waitFor((_l, p) => p.command === "MODE" && p.params[0] === c && (p.params[1] ?? "").includes("H"));
        }
      }
      const pid = await startAndGreet(f, alice, channel, "before");
      // The marks file sits next to the prompt journal, 0600.
      expect(statSync(join(f.home, "state", "agent-spark-a", "channel-marks.jsonl")).mode & 0o777).toBe(0o600);
      if (how === "killed -9") await kill9(pid);
      else expect((await f.culture(["stop", "spark-a"])).code).toBe(0);
      alice.send(`PRIVMSG ${channel} :@spark-a while-down`);
      alice.send(`PRIVMSG ${channel} :chatter while the daemon is down, no mention`);
      alice.send(`PRIVMSG ${quiet} :@spark-a quiet-while-down`);
      const mark = alice.lines.length;
      const said = await restartUntilSentinel(f, alice, channel);
      expect(said.map((t) => /@spark-a (\S+)/.exec(t)?.[1])).toEqual(["while-down", "sentinel"]);
      // Its reply may have come before the sentinel's: look at everything since the restart.
      await eventually(() => replies(quiet, alice.since(mark)).length > 0, "the quiet channel's mention to be answered");
      expect(replies(quiet, alice.since(mark))).toEqual(["I heard: [IRC @mention in " + quiet + "] <alice> @spark-a quiet-while-down"]);
      const s = await status(f);
      expect((s.irc as Record<string, unknown>).catch_up).toMatchObject({
        support: kind === "inspircd" ? "join-replay" : "chathistory",
        max_age_seconds: 86_400,
        prompted: 2,
        too_old: 0,
        // The two channels and #alerts (marked from its join; nothing said there).
        after_restart: { channels: 3, lines: 3 },
      });
      expect(s.turn_count).toBe(3);
    },
  );
});

describe("catch-up across a restart of the daemon", () => {
  it("keeps a caught-up mention older than catch_up.max_age_seconds in the buffer but does not prompt it", async () => {
    const f = fleet("#rc2", { catch_up: { max_age_seconds: 1 } });
    const alice = await human("alice", "#rc2");
    const pid = await startAndGreet(f, alice, "#rc2", "before");
    await kill9(pid);
    alice.send("PRIVMSG #rc2 :@spark-a stale request");
    // Older than the one second allowed by the time the next daemon catches up.
    await new Promise((r) => setTimeout(r, 1_500));
    const said = await restartUntilSentinel(f, alice, "#rc2");
    expect(said.map((t) => /@spark-a (\S+)/.exec(t)?.[1])).toEqual(["sentinel"]);
    const read = await f.culture(["channel", "read", "#rc2", "--json"], { env: { CULTURE_NICK: "spark-a" } });
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toContain("@spark-a stale request");
    const s = await status(f);
    // #rc2 and #alerts (marked from its join).
    expect((s.irc as Record<string, unknown>).catch_up).toMatchObject({ max_age_seconds: 1, prompted: 0, too_old: 1, after_restart: { channels: 2 } });
  });

  it("prompts nothing from history on a first start (no marks left by a previous daemon)", async () => {
    const f = fleet("#rc3");
    const alice = await human("alice", "#rc3");
    alice.send("PRIVMSG #rc3 :@spark-a said before the agent ever ran");
    const said = await restartUntilSentinel(f, alice, "#rc3");
    expect(said.map((t) => /@spark-a (\S+)/.exec(t)?.[1])).toEqual(["sentinel"]);
    const s = await status(f);
    expect((s.irc as Record<string, unknown>).catch_up).toMatchObject({ prompted: 0, after_restart: null });
  });
});
