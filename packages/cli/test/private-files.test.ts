/**
 * Logs and state are their owner's alone: after a real `culture server start`, a real detached
 * daemon (the echo backend) that received a prompt, and a real `culture server stop`, every
 * file culture wrote under CULTURE_HOME is 0600 and every folder 0700 — under umask 022, where
 * a file created without a mode is 0644. Files and folders an older culture left loose are
 * tightened when they are opened again. Build first (`npm run build`).
 */
import { execFile } from "node:child_process";
import { chmodSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "@culture/core/testing";
import { eventually, MAIN, makeFleet, type Fleet, type Run } from "./fleet-harness.js";

const fleets: Fleet[] = [];
afterEach(async () => {
  for (const f of fleets.splice(0)) {
    await run(f, ["stop", "--all"]);
    await run(f, ["server", "stop"]);
    await f.cleanup();
  }
});

/** The CLI under `umask 022` (what most users have), so only an explicit mode makes a file private. */
function run(f: Fleet, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile("/bin/sh", ["-c", 'umask 022 && exec "$@"', "sh", process.execPath, MAIN, "--config", f.configPath, ...args], { cwd: f.home, env: f.env, timeout: 45_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr, pid: child.pid ?? -1 });
    });
  });
}

/** Every file and folder under `home` culture owns (not the test's own config and fake HOME), with its mode. */
function modes(home: string): Array<{ path: string; mode: string; dir: boolean }> {
  const out: Array<{ path: string; mode: string; dir: boolean }> = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const rel = relative(home, path);
      if (rel === "agents.yaml" || rel === "user") continue;
      const st = lstatSync(path);
      out.push({ path: rel, mode: (st.mode & 0o777).toString(8), dir: st.isDirectory() });
      if (st.isDirectory()) walk(path);
    }
  };
  walk(home);
  return out;
}

async function exercise(f: Fleet): Promise<void> {
  const server = await run(f, ["server", "start"]);
  expect(server.stderr).toBe("");
  expect(server.code).toBe(0);
  const start = await run(f, ["start", "--all"]);
  expect(start.stderr).toBe("");
  expect(start.code).toBe(0);
  const sent = await run(f, ["send", "#test", "@spark-priv", "hello"]);
  expect(sent.code).toBe(0);
  // The reply is in the agent's log: the daemon has written what it received.
  await eventually(async () => (await run(f, ["logs", "spark-priv"])).stdout.includes("reply after"), "the reply in the agent's log");
}

describe("culture's files are private", () => {
  it("every log, PID, state, credential and server file is 0600 in a 0700 folder after a real daemon and server", async () => {
    const f = makeFleet(await freePort(), ["spark-priv"]);
    fleets.push(f);
    await exercise(f);
    const live = modes(f.home);
    // What the check covers, so it cannot pass by looking at nothing.
    const paths = live.map((m) => m.path);
    for (const p of ["logs/agent-spark-priv.log", "logs/server.log", "pids/agent-spark-priv.pid", "pids/server.pid", "state/agent-spark-priv/prompts.jsonl", "server/accounts.json", "credentials/spark-priv.json"]) {
      expect(paths).toContain(p);
    }
    await run(f, ["stop", "--all"]);
    expect((await run(f, ["server", "stop"])).code).toBe(0);
    const after = modes(f.home);
    expect(after.map((m) => m.path)).toContain(join("server", "history"));
    expect(after.some((m) => m.path.startsWith(join("server", "history", "")) && !m.dir)).toBe(true);
    const loose = [...live, ...after].filter((m) => m.mode !== (m.dir ? "700" : "600"));
    expect(loose).toEqual([]);
  });

  it("tightens logs, folders and history an older culture left 0644/0755 when it opens them again", async () => {
    const f = makeFleet(await freePort(), ["spark-priv"]);
    fleets.push(f);
    for (const dir of ["logs", "pids", "state", "state/agent-spark-priv", "server", "server/history"]) mkdirSync(join(f.home, dir), { recursive: true, mode: 0o755 });
    for (const dir of ["logs", "pids", "state", "state/agent-spark-priv", "server", "server/history"]) chmodSync(join(f.home, dir), 0o755);
    const loose = ["logs/agent-spark-priv.log", "logs/server.log", "state/agent-spark-priv/prompts.jsonl", `server/history/${encodeURIComponent("#old")}.jsonl`];
    for (const file of loose) {
      writeFileSync(join(f.home, file), "");
      chmodSync(join(f.home, file), 0o644);
    }
    await exercise(f);
    const now = new Map(modes(f.home).map((m) => [m.path, m.mode]));
    for (const dir of ["logs", "pids", "state", "state/agent-spark-priv", "server", "server/history"]) expect([dir, now.get(dir)]).toEqual([dir, "700"]);
    for (const file of loose) expect([file, now.get(file)]).toEqual([file, "600"]);
  });
});
