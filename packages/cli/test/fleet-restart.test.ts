/**
 * `culture restart` and config drift, with real detached daemons (`culture start`), the echo
 * backend's real agent processes and the embedded IRC server: a restart stops and starts with
 * stop's and start's own reports; prompts waiting when it stops (in the prompt journal) and a
 * mention said while it is down are answered by the new daemon, once each; `culture status`
 * (table, one agent, --json) and `culture doctor` warn when agents.yaml no longer matches what a
 * daemon was started with, naming the keys, and the warning is gone after the restart; the
 * fingerprint in status has no secret in clear.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isProcessAlive } from "@culture/core";
import { connectRawClient, parseRawLine, type RawIrcClient } from "@culture/core/testing";
import { startServer, type IrcServer } from "@culture/server";
import { echoAgents, eventually, makeFleet, startedPid, type Fleet } from "./fleet-harness.js";

let server: IrcServer;
const fleets: Fleet[] = [];
const clients: RawIrcClient[] = [];

beforeAll(async () => {
  server = await startServer({ port: 0, stateDir: null });
});
afterAll(async () => {
  await server?.close();
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  for (const f of fleets.splice(0)) await f.cleanup();
});

async function human(nick: string, channel: string): Promise<RawIrcClient> {
  const c = await connectRawClient(server.port, nick);
  clients.push(c);
  await c.join(channel);
  return c;
}

async function statusOf(f: Fleet, nick: string): Promise<Record<string, unknown>> {
  const run = await f.culture(["status", nick, "--json"]);
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as Array<Record<string, unknown>>)[0]!;
}

/** The words after `@spark-a` that spark-a echoed back in #test, in order. */
function answered(lines: string[]): string[] {
  return lines.flatMap((l) => {
    const p = parseRawLine(l);
    if (p.command !== "PRIVMSG" || p.nick !== "spark-a" || p.params[0] !== "#test") return [];
    const m = /^I heard: .*<alice> @spark-a (?:sleep \d+ )?(\S+)/.exec(p.params[1] ?? "");
    return m ? [m[1]!] : [];
  });
}

/** The journal records of spark-a's prompt journal. */
function journal(f: Fleet): Array<{ op: string; id: string; text?: string }> {
  return readFileSync(join(f.home, "state", "agent-spark-a", "prompts.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { op: string; id: string; text?: string });
}

describe("culture restart", () => {
  it("stops and starts with their reports, and loses no prompt: those waiting (journal) and one said while it was down", async () => {
    const f = makeFleet(server.port, ["spark-a"]);
    fleets.push(f);
    const alice = await human("alice", "#test");
    const first = startedPid((await f.culture(["start", "spark-a"])).stdout, "spark-a");
    // A long turn, and two mentions that wait behind it.
    alice.send("PRIVMSG #test :@spark-a sleep 2000 busy");
    alice.send("PRIVMSG #test :@spark-a second");
    alice.send("PRIVMSG #test :@spark-a third");
    await eventually(async () => (await statusOf(f, "spark-a")).queued_prompts === 2, "two prompts waiting behind the turn");
    // The journal holds them, not yet done, before the restart.
    const records = journal(f);
    const done = new Set(records.filter((r) => r.op === "done").map((r) => r.id));
    const waiting = records.filter((r) => r.op === "add" && !done.has(r.id)).map((r) => /@spark-a (?:sleep \d+ )?(\S+)/.exec(r.text ?? "")?.[1]);
    expect(waiting).toEqual(["busy", "second", "third"]);

    const mark = alice.lines.length;
    const restart = f.culture(["restart", "spark-a"]);
    // Said while no daemon runs: the new one catches it up from the channel's history.
    await eventually(() => !isProcessAlive(first), "the first daemon to exit", 20_000);
    alice.send("PRIVMSG #test :@spark-a during");
    const run = await restart;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Stopped spark-a \\(pid ${first}\\)\\n`));
    const second = startedPid(run.stdout, "spark-a");
    expect(second).not.toBe(first);

    await eventually(() => ["second", "third", "during"].every((w) => answered(alice.since(mark)).includes(w)), "the waiting prompts and the one said while down to be answered", 30_000);
    alice.send("PRIVMSG #test :@spark-a sentinel");
    await eventually(() => answered(alice.since(mark)).includes("sentinel"), "the sentinel's answer");
    const said = answered(alice.since(mark));
    // Each answered exactly once, by the new daemon (the old one is gone), in the order they came.
    for (const w of ["second", "third", "during", "sentinel"]) expect(said.filter((s) => s === w), w).toHaveLength(1);
    expect(said.indexOf("second")).toBeLessThan(said.indexOf("third"));
    expect((await statusOf(f, "spark-a")).pid).toBe(second);
  }, 90_000);

  it("refuses no target, nicks with --all, and an unknown nick, with the usage", async () => {
    const f = makeFleet(server.port, ["spark-a"]);
    fleets.push(f);
    const none = await f.culture(["restart"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("which agents? culture restart <nick...> (or --all)");
    const both = await f.culture(["restart", "spark-a", "--all"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("give nicks or --all, not both");
    const unknown = await f.culture(["restart", "spark-zz"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("spark-zz");
    // Restarting an agent that is not running starts it.
    const cold = await f.culture(["restart", "spark-a"]);
    expect(cold.code, cold.stderr).toBe(0);
    expect(cold.stdout).toContain("spark-a is not running");
    startedPid(cold.stdout, "spark-a");
  }, 60_000);
});

describe("config drift", () => {
  it("status, status --json and doctor name the keys changed since start; restart clears it; no secret in clear", async () => {
    const secret = "whsec-do-not-print-7731";
    const f = makeFleet(server.port, ["spark-a", "spark-b"]);
    fleets.push(f);
    const agents = echoAgents(["spark-a", "spark-b"], f.home);
    f.writeConfig(agents, { webhooks: { secret } });
    const up = await f.culture(["start", "--all"]);
    expect(up.code, up.stderr).toBe(0);

    const clean = await f.culture(["status"]);
    expect(clean.stdout).not.toContain("config changed");
    const s0 = await statusOf(f, "spark-a");
    expect(s0.config_drift).toEqual([]);
    expect(JSON.stringify(s0)).not.toContain(secret);
    expect(Object.keys((s0.started_config as { keys: object }).keys)).toEqual(expect.arrayContaining(["model", "channels", "top-level webhooks"]));

    // spark-a's model and a backend field of its own; the webhook secret (top level: both agents).
    f.writeConfig(
      [{ ...agents[0], model: "echo-2", prefix: "Heard: " }, agents[1]!],
      { webhooks: { secret: `${secret}-rotated` } },
    );
    const table = await f.culture(["status"]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain("spark-a: config changed since start (model, prefix, top-level webhooks): culture restart spark-a");
    expect(table.stdout).toContain("spark-b: config changed since start (top-level webhooks): culture restart spark-b");
    const one = await f.culture(["status", "spark-a"]);
    expect(one.stdout).toContain("spark-a: config changed since start (model, prefix, top-level webhooks): culture restart spark-a");
    expect((await statusOf(f, "spark-a")).config_drift).toEqual(["model", "prefix", "top-level webhooks"]);
    const doctor = await f.culture(["doctor", "--timeout", "5"]);
    expect(doctor.stdout).toContain("warn  spark-a: config: config changed since start (model, prefix, top-level webhooks)");
    expect(doctor.stdout).toMatch(/fix: culture restart spark-a/);
    expect(`${table.stdout}${doctor.stdout}`).not.toContain(secret);

    const again = await f.culture(["restart", "--all"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^Stopped spark-a \(pid \d+\)$/m);
    startedPid(again.stdout, "spark-a");
    startedPid(again.stdout, "spark-b");
    const after = await f.culture(["status"]);
    expect(after.stdout).not.toContain("config changed");
    expect((await statusOf(f, "spark-a")).config_drift).toEqual([]);
    expect((await statusOf(f, "spark-a")).model).toBe("echo-2");
    const fixed = await f.culture(["doctor", "--timeout", "5"]);
    expect(fixed.stdout).toContain("ok    spark-a: config: runs with agents.yaml as it is now");

    // An agent removed from the file: status says to stop it.
    f.writeConfig([agents[1]!], { webhooks: { secret: `${secret}-rotated` } });
    const removed = await f.culture(["status", "spark-a"]);
    expect(removed.stdout).toContain("spark-a: no longer in the config it was started with: culture stop spark-a");
  }, 120_000);
});
