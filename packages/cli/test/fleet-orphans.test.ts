/**
 * An agent a killed daemon leaves running is ended by the next daemon of that agent, with
 * real detached daemons (`culture start`), kill -9, and the echo backend spawning its agent
 * through core's AgentProcess as a process-group leader (as the ACP backend does) in its
 * stubborn mode: it ignores end of input and SIGTERM and keeps a child running (what Gemini
 * CLI 0.61.0 with an MCP server does at a graceful stop, docs/backends/acp.md). And a recorded
 * pid that now belongs to another process is never signalled. And what an agent leaves running
 * in its daemon's process group (a tool it did not end) is ended when the daemon stops, only
 * when the daemon leads that group.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isProcessAlive, processArgv, processStat } from "@culture/core";
import { connectRawClient, parseRawLine, type RawIrcClient } from "@culture/core/testing";
import { startServer, type IrcServer } from "@culture/server";
import { ECHO_BACKEND, eventually, MAIN, makeFleet, processesMentioning, startedPid, type Fleet } from "./fleet-harness.js";

let server: IrcServer;
const fleets: Fleet[] = [];
const clients: RawIrcClient[] = [];
const spawned: ChildProcess[] = [];

beforeAll(async () => {
  server = await startServer({ port: 0, stateDir: null });
});
afterAll(async () => {
  await server?.close();
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  for (const f of fleets.splice(0)) await f.cleanup();
  for (const p of spawned.splice(0)) p.kill("SIGKILL");
});

/** A fleet of one stubborn process-group echo agent, spark-a. */
function stubbornFleet(): Fleet {
  const f = makeFleet(server.port, []);
  f.writeConfig([{ nick: "spark-a", agent: ECHO_BACKEND, directory: f.home, channels: ["#test"], process_group: true, stop_grace_ms: 500 }]);
  f.env.ECHO_AGENT_STUBBORN = "1";
  fleets.push(f);
  return f;
}

async function human(nick: string): Promise<RawIrcClient> {
  const c = await connectRawClient(server.port, nick);
  clients.push(c);
  await c.join("#test");
  return c;
}

/** The live (not zombie) processes whose parent is `ppid`, from /proc. */
function childrenOf(ppid: number): number[] {
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .filter((pid) => processStat(pid)?.ppid === ppid && isProcessAlive(pid));
}

async function status(f: Fleet): Promise<Record<string, unknown>> {
  const run = await f.culture(["status", "spark-a", "--json"]);
  return (JSON.parse(run.stdout) as Array<Record<string, unknown>>)[0]!;
}

/** Mentions spark-a and waits for its reply. */
async function answers(alice: RawIrcClient, word: string): Promise<void> {
  alice.send(`PRIVMSG #test :@spark-a ${word}`);
  await alice.waitFor((l) => parseRawLine(l).nick === "spark-a" && l.endsWith(`@spark-a ${word}`), 20_000);
}

describe("an agent left running by a daemon killed with SIGKILL", () => {
  it("is ended (with its child) by the next `culture start`, and the new agent answers", async () => {
    const f = stubbornFleet();
    const alice = await human("alice");
    const daemon = startedPid((await f.culture(["start", "spark-a"])).stdout, "spark-a");
    await answers(alice, "one");
    const [agent] = childrenOf(daemon);
    expect(agent).toBeDefined();
    const grandchildren = childrenOf(agent!);
    expect(grandchildren).toHaveLength(1);
    for (const p of [agent!, ...grandchildren]) f.pids.add(p);

    process.kill(daemon, "SIGKILL");
    await eventually(() => !isProcessAlive(daemon), "the daemon to be gone");
    // The symptom: nothing in the daemon ran; the agent and its child live on, orphaned.
    expect(isProcessAlive(agent!)).toBe(true);
    expect(isProcessAlive(grandchildren[0]!)).toBe(true);

    const again = await f.culture(["start", "spark-a"]);
    expect(again.code).toBe(0);
    const newAgents = childrenOf(startedPid(again.stdout, "spark-a"));
    for (const p of newAgents) f.pids.add(p); // ended by the cleanup even if this test fails
    expect(newAgents).toHaveLength(1);
    expect(newAgents).not.toContain(agent);
    await eventually(() => !isProcessAlive(agent!) && !isProcessAlive(grandchildren[0]!), "the old agent and its child to be gone");
    await answers(alice, "two");
    const s = await status(f);
    expect(s.leftover_agents_ended).toEqual([agent]);
    // The record of the running agent: 0600, in the agent's state folder.
    const record = join(f.home, "state", "agent-spark-a", "agent-processes.json");
    expect(statSync(record).mode & 0o777).toBe(0o600);

    // A clean stop ends the agent (SIGKILL to its group after the grace) and clears the record.
    expect((await f.culture(["stop", "spark-a"])).code).toBe(0);
    await eventually(() => !existsSync(record), "the record to be cleared");
  }, 60_000);

  it("never signals a recorded pid that now belongs to another process (its start time differs)", async () => {
    const f = stubbornFleet();
    const alice = await human("alice");
    // A group leader, as the recorded agent was: signalling the recorded group would reach it.
    const other = spawn("sleep", ["300"], { stdio: "ignore", detached: true });
    spawned.push(other);
    const pid = other.pid!;
    const stateDir = join(f.home, "state", "agent-spark-a");
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    // The same pid and argv as recorded, as a process-group leader, but a start time it does not have.
    const real = processStat(pid)!.startTime;
    const record = { agents: [{ pid, pgid: pid, startTime: String(Number(real) - 1), argv: processArgv(pid) }] };
    writeFileSync(join(stateDir, "agent-processes.json"), JSON.stringify(record), { mode: 0o600 });

    const daemon = startedPid((await f.culture(["start", "spark-a"])).stdout, "spark-a");
    await answers(alice, "one");
    for (const p of childrenOf(daemon)) f.pids.add(p); // the stubborn agent outlives a killed daemon
    expect(isProcessAlive(pid)).toBe(true);
    expect(other.exitCode).toBeNull();
    expect((await status(f)).leftover_agents_ended).toEqual([]);
  }, 60_000);
});

describe("what an agent leaves running when its daemon stops", () => {
  it("a tool's process the agent did not end is ended with the daemon, and its log says so", async () => {
    const f = makeFleet(server.port, ["spark-a"]);
    fleets.push(f);
    const alice = await human("alice");
    startedPid((await f.culture(["start", "spark-a"])).stdout, "spark-a");
    // The echo agent runs it and ends the turn without ending it: in the daemon's process group.
    const gate = join(f.home, "gate");
    alice.send(`PRIVMSG #test :@spark-a exec sh -c 'while [ ! -e ${gate} ]; do sleep 0.05; done'`);
    const loops = await eventually(() => (processesMentioning(gate).length ? processesMentioning(gate) : null), "the tool's loop to run");
    for (const p of loops!) f.pids.add(p);
    expect((await f.culture(["stop", "spark-a"])).code).toBe(0);
    expect(processesMentioning(gate)).toEqual([]);
    const log = readFileSync(join(f.home, "logs", "agent-spark-a.log"), "utf8");
    expect(log).toMatch(new RegExp(`WARN \\[spark-a\\] ended process ${loops![0]} left running in the daemon's process group \\(SIGTERM\\) command=".*while \\[ ! -e`));
  }, 60_000);

  it("a daemon that does not lead its process group (run in a terminal's job) ends nothing of that group", async () => {
    const f = makeFleet(server.port, ["spark-a"]);
    fleets.push(f);
    // A job of two, as a shell makes one: this sleep leads a process group (in this session), and
    // the daemon (not detached) is in that group.
    const join = (pgid: string) => `import os, sys; os.setpgid(0, ${pgid}); os.execvp(sys.argv[1], sys.argv[1:])`;
    const sibling = spawn("python3", ["-c", join("0"), "sleep", "300"], { stdio: "ignore" });
    spawned.push(sibling);
    await eventually(() => processStat(sibling.pid!)?.pgid === sibling.pid && processArgv(sibling.pid!)?.[0] === "sleep", "the sleep to lead its group");
    const daemon = spawn("python3", ["-c", join(String(sibling.pid)), process.execPath, MAIN, "start", "spark-a", "--foreground", "--config", f.configPath], { env: f.env, stdio: ["ignore", "pipe", "pipe"] });
    spawned.push(daemon);
    let output = "";
    daemon.stdout!.on("data", (d) => (output += d));
    await eventually(() => output.includes("Started spark-a"), "the daemon to be up");
    expect(processStat(daemon.pid!)?.pgid).toBe(sibling.pid);
    daemon.kill("SIGTERM");
    await new Promise((resolve) => daemon.once("exit", resolve));
    expect(isProcessAlive(sibling.pid!)).toBe(true);
  }, 60_000);
});
