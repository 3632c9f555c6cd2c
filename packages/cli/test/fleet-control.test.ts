/**
 * The owner's control path with real detached daemons (`culture start`, the echo backend's real
 * agent process, the embedded IRC server): every site resolves the same two socket paths (the
 * daemon, the fleet CLI, `culture channel`, `culture mcp`, status), `culture stop` still works
 * when the control socket or its token is gone (SIGTERM to the verified daemon), and from an
 * agent's environment the control commands are refused. Build first (`npm run build`).
 */
import { existsSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { agentPidPath, controlSocketPath, controlTokenPath, isProcessAlive, socketPath } from "@culture/core";
import { startServer, type IrcServer } from "@culture/server";
import { eventually, makeFleet, startedPid, type Fleet } from "./fleet-harness.js";

const BIN = fileURLToPath(new URL("../bin/culture.cjs", import.meta.url));
const NICK = "spark-a";

let server: IrcServer;
const fleets: Fleet[] = [];
beforeAll(async () => {
  server = await startServer({ port: 0, stateDir: null });
});
afterAll(async () => {
  await server?.close();
});
afterEach(async () => {
  for (const f of fleets.splice(0)) await f.cleanup();
});

async function started(): Promise<{ f: Fleet; pid: number }> {
  const f = makeFleet(server.port, [NICK]);
  fleets.push(f);
  const start = await f.culture(["start", NICK]);
  expect(start.stderr).toBe("");
  return { f, pid: startedPid(start.stdout, NICK) };
}

describe("the control path with real daemons", { timeout: 60_000 }, () => {
  it("the daemon, culture status, culture channel, culture mcp and culture pause agree on the two socket paths", async () => {
    const { f, pid } = await started();
    // The one resolver, with the fleet's environment: the files the daemon made are there.
    const tools = socketPath(NICK, f.env);
    const control = controlSocketPath(NICK, f.env);
    expect(statSync(tools).isSocket()).toBe(true);
    expect(statSync(control).isSocket()).toBe(true);
    expect(readFileSync(controlTokenPath(NICK, f.env), "utf8")).toMatch(/^[0-9a-f]{64}\n$/);
    expect(readFileSync(agentPidPath(NICK, f.env), "utf8").split("\n")[0]).toBe(String(pid));

    // status (tools socket), culture channel (tools socket), pause/resume (control socket).
    const status = JSON.parse((await f.culture(["status", "--json"])).stdout) as Array<{ pid: number }>;
    expect(status[0]?.pid).toBe(pid);
    const channel = await f.culture(["channel", "status", "--json"], { config: false, env: { CULTURE_NICK: NICK } });
    expect(JSON.parse(channel.stdout).pid).toBe(pid);
    expect((await f.culture(["pause", NICK])).stdout).toBe(`Paused ${NICK}\n`);
    expect(JSON.parse((await f.culture(["channel", "status", "--json"], { config: false, env: { CULTURE_NICK: NICK } })).stdout).paused).toBe(true);
    expect((await f.culture(["resume", NICK])).stdout).toBe(`Resumed ${NICK}\n`);

    // culture mcp (tools socket).
    const client = new Client({ name: "paths-test", version: "0.0.0" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp"], env: { ...(f.env as Record<string, string>), CULTURE_NICK: NICK }, stderr: "ignore" }));
    try {
      const r = (await client.callTool({ name: "status", arguments: {} })) as CallToolResult;
      const text = r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
      expect(r.isError).not.toBe(true);
      expect(text).toMatch(new RegExp(`pid: ${pid}\\b`));
      expect(text).toMatch(/paused: false/);
    } finally {
      await client.close();
    }
  });

  it("culture stop from an agent's environment is refused; the owner's stop still works when the control socket is gone", async () => {
    const { f, pid } = await started();
    const refused = await f.culture(["stop", NICK], { env: { CULTURE_NICK: NICK } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^culture stop: refused in an agent's environment \(CULTURE_NICK=spark-a is set\)/);
    expect(isProcessAlive(pid)).toBe(true);

    unlinkSync(controlSocketPath(NICK, f.env));
    const stop = await f.culture(["stop", NICK, "--grace", "5"]);
    expect(stop.stderr).toBe("");
    expect(stop.stdout).toBe(`Stopped ${NICK} (pid ${pid}) with SIGTERM\n`);
    expect(isProcessAlive(pid)).toBe(false);
    expect(existsSync(controlTokenPath(NICK, f.env))).toBe(false);
  });

  it("culture start and culture server start/stop from an agent's environment are refused before anything runs", async () => {
    const f = makeFleet(server.port, [NICK]);
    fleets.push(f);
    for (const args of [["start", NICK], ["start", "--all"], ["start", NICK, "--foreground"], ["server", "start", "--port", "0"], ["server", "stop"]]) {
      const run = await f.culture(args, { env: { CULTURE_NICK: "spark-b" } });
      const command = `culture ${args[0] === "server" ? `server ${args[1]}` : "start"}`;
      expect(run.code, args.join(" ")).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`^${command}: refused in an agent's environment \\(CULTURE_NICK=spark-b is set\\)`));
      expect(run.stderr).toContain(`Run ${command} from your own shell`);
      expect(run.stdout).toBe("");
    }
    expect(existsSync(agentPidPath(NICK, f.env))).toBe(false);
  });

  it("the owner's stop also works when the control token is gone", async () => {
    const { f, pid } = await started();
    unlinkSync(controlTokenPath(NICK, f.env));
    const stop = await f.culture(["stop", NICK, "--grace", "5"]);
    expect(stop.stdout).toBe(`Stopped ${NICK} (pid ${pid}) with SIGTERM\n`);
    await eventually(() => !isProcessAlive(pid), "the daemon to be gone");
    expect(existsSync(controlSocketPath(NICK, f.env))).toBe(false);
  });
});
