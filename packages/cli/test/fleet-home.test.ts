/**
 * Fleet commands see every daemon running under the culture home, whatever config started it:
 * two projects' agents started from their own folders, then status, pause and stop --all from a
 * folder of neither (where the config found is $CULTURE_HOME/agents.yaml), each row marked with
 * the config it came from. Real daemons (the echo backend) on the embedded IRC server.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { connectRawClient, parseRawLine } from "@culture/core/testing";
import { startServer, type IrcServer } from "@culture/server";
import { echoAgents, eventually, makeFleet, processesMentioning, type Fleet } from "./fleet-harness.js";

let server: IrcServer;
let f: Fleet;
let elsewhere: string;

beforeAll(async () => {
  server = await startServer({ port: 0, stateDir: null });
  f = makeFleet(server.port, ["spark-a"]);
  elsewhere = mkdtempSync(join(tmpdir(), "cf-elsewhere-"));
});
afterAll(async () => {
  await f?.cleanup();
  await server?.close();
  rmSync(elsewhere, { recursive: true, force: true });
});

it("status, pause and stop --all from another folder reach both projects' daemons, marking each one's config", async () => {
  // Project B: its own folder and config, under the same culture home.
  const projectB = join(f.home, "b");
  mkdirSync(projectB);
  const configB = join(projectB, "agents.yaml");
  writeFileSync(configB, JSON.stringify({ server: { name: "spark", host: "127.0.0.1", port: server.port }, agents: echoAgents(["spark-b"], projectB) }));
  expect((await f.culture(["start", "--all"])).code).toBe(0);
  const startedB = await f.culture(["start", "--all"], { cwd: projectB, config: false });
  expect(startedB.code, startedB.stderr).toBe(0);

  const status = await f.culture(["status", "--json"], { cwd: elsewhere, config: false });
  expect(status.code, status.stderr).toBe(0);
  const rows = JSON.parse(status.stdout) as Array<{ nick: string; state: string; config: string | null }>;
  expect(rows.map((r) => [r.nick, r.state, r.config])).toEqual([
    ["spark-a", "running", f.configPath],
    ["spark-b", "running", configB],
  ]);
  const table = await f.culture(["status"], { cwd: elsewhere, config: false });
  expect(table.stdout).toContain(`Not in ${f.configPath} (running under this culture home):\n  spark-b: from ${configB}\n`);

  const paused = await f.culture(["pause", "spark-b"], { cwd: elsewhere, config: false });
  expect(paused.stdout).toBe("Paused spark-b\n");

  const stopped = await f.culture(["stop", "--all", "--grace", "5"], { cwd: elsewhere, config: false });
  expect(stopped.code, stopped.stderr).toBe(0);
  expect(stopped.stdout).toContain("spark-a");
  expect(stopped.stdout).toContain("spark-b");
  await eventually(() => processesMentioning(f.home).length === 0, "both daemons to exit");
});

it("culture channel against a real daemon: send to an absent nick and read of a channel not joined exit 1; send to an online nick arrives", async () => {
  const g = makeFleet(server.port, ["spark-talk"]);
  try {
    expect((await g.culture(["start", "--all"])).code).toBe(0);
    const alice = await connectRawClient(server.port, "alice");
    try {
      const asAgent = { env: { CULTURE_NICK: "spark-talk" } };
      const absent = await g.culture(["channel", "send", "nobody-here", "hi"], asAgent);
      expect(absent.code).toBe(1);
      expect(absent.stderr).toContain("nobody-here is not on IRC now");
      const nope = await g.culture(["channel", "read", "#nope"], asAgent);
      expect(nope.code).toBe(1);
      expect(nope.stderr).toContain("not in channel #nope");
      expect(nope.stderr).toContain("culture channel join '#nope'");
      const sent = await g.culture(["channel", "send", "alice", "hello", "alice"], asAgent);
      expect(sent.code, sent.stderr).toBe(0);
      await alice.waitFor((line) => {
        const p = parseRawLine(line);
        return p.command === "PRIVMSG" && p.nick === "spark-talk" && p.params[1] === "hello alice";
      });
    } finally {
      await alice.close();
    }
  } finally {
    await g.cleanup();
  }
});
