/**
 * Many agents on a busy machine: `culture start --all` of 20 daemons (the echo backend's real
 * agent processes behind them) against the embedded server with accounts required (generated
 * credentials, SASL), while CPU burners keep every core busy and the server's registration
 * deadline is short. Every agent must start and join: the CLI starts them in bounded waves and
 * a daemon whose registration the busy server cut off tries again. No wall-clock thresholds.
 * Build first (`npm run build`).
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedAccountStorePath } from "@culture/core";
import { connectRawClient } from "@culture/core/testing";
import { AccountStore, startServer, type IrcServer } from "@culture/server";
import { echoAgents, MAIN, makeFleet, startedPid, type Fleet, type Run } from "./fleet-harness.js";

const AGENTS = 20;
const NICKS = Array.from({ length: AGENTS }, (_, i) => `spark-b${String(i + 1).padStart(2, "0")}`);

let server: IrcServer;
let fleet: Fleet;
const burners: ChildProcess[] = [];

beforeAll(async () => {
  fleet = makeFleet(0, []);
  // The embedded server as `culture server start` runs it (accounts required), with a deadline
  // a busy machine can miss: 1 s instead of 10.
  server = await startServer({ port: 0, stateDir: null, accountsFile: embeddedAccountStorePath(fleet.env), registrationTimeoutMs: 1_000 });
  const config = { server: { name: "spark", host: "127.0.0.1", port: server.port }, presence: { channel: null }, agents: echoAgents(NICKS, fleet.home) };
  writeFileSync(fleet.configPath, JSON.stringify(config, null, 2));
  // One busy loop per core, for as long as the start runs.
  for (let i = 0; i < availableParallelism(); i++) burners.push(spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
});
afterAll(async () => {
  for (const b of burners) b.kill("SIGKILL");
  await fleet?.culture(["stop", "--all"]).catch(() => undefined);
  await fleet?.cleanup();
  await server?.close();
});

describe("culture start --all on a busy machine", () => {
  it(`starts all ${AGENTS} agents, each logged in with its generated account and in its channel`, { timeout: 240_000 }, async () => {
    const start = await cli(["--config", fleet.configPath, "start", "--all"]);
    for (const m of start.stdout.matchAll(/\bpid (\d+)/g)) fleet.pids.add(Number(m[1]));
    expect(start.stderr).toBe("");
    expect(start.code).toBe(0);
    for (const nick of NICKS) startedPid(start.stdout, nick);
    for (const b of burners) b.kill("SIGKILL");

    // Seen from IRC: every agent is in #test, under its own account.
    const store = new AccountStore(embeddedAccountStorePath(fleet.env));
    await store.add("watcher", "watcher-password", "human");
    const watcher = await connectRawClient(server.port, "watcher", { password: "watcher:watcher-password" });
    try {
      watcher.send("NAMES #test");
      const names = await watcher.waitFor(/ 366 /).then(() => watcher.lines.filter((l) => / 353 /.test(l)).join(" "));
      for (const nick of NICKS) expect(names).toMatch(new RegExp(`[ :@+]${nick}( |$)`));
      for (const nick of NICKS) expect(store.get(nick)?.kind).toBe("agent");
    } finally {
      await watcher.close();
    }
  });
});

/** The built CLI with the fleet's environment; a longer limit than the harness's (a busy machine). */
function cli(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [MAIN, ...args], { cwd: fleet.home, env: fleet.env, timeout: 200_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr, pid: child.pid ?? -1 });
    });
  });
}
