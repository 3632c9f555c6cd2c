/**
 * The fleet's setup and operator commands, run as the built `culture` binary: init, doctor,
 * skills install, service print, send's refusals, logs, and status of agents that are not
 * running. A real embedded IRC server answers send and doctor. Build first (`npm run build`).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "@culture/core";
import { connectRawClient, freePort } from "@culture/core/testing";
import { startServer, type IrcServer } from "@culture/server";
import { echoAgents, makeFleet, type Fleet } from "./fleet-harness.js";

const ACP_SKILL = fileURLToPath(new URL("../../backend-acp/skill/SKILL.md", import.meta.url));

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

function fleet(nicks: string[] = ["spark-a"]): Fleet {
  const f = makeFleet(server.port, nicks);
  fleets.push(f);
  return f;
}

describe("culture init", () => {
  it("writes a commented agents.yaml that config check accepts, and refuses to overwrite it without --force", async () => {
    const f = fleet();
    const dir = join(f.home, "project");
    mkdirSync(dir);
    const flags = ["--server", "lab", "--nick", "helper", "--agent", "acp", "--channel", "#dev", "--channel", "#ops", "--host", "127.0.0.1", "--port", "6697"];
    const init = await f.culture(["init", ...flags], { cwd: dir, config: false });
    expect(init.stderr).toBe("");
    expect(init.code).toBe(0);
    const file = join(dir, "agents.yaml");
    expect(init.stdout).toMatch(new RegExp(`^Wrote ${file}\n`));
    const text = readFileSync(file, "utf8");
    expect(text).toMatch(/^# /); // commented
    expect(text).toContain("# supervisor:");
    // --agent acp: the ACP agent's command is written out, with the alternatives (the demo agent among them).
    expect(text).toMatch(/^ {4}acp_command: \["opencode", "acp"\] +# the ACP agent to run: /m);
    expect(text).toContain(`or ["culture-demo-agent"], the offline demo agent that comes with culture`);

    const check = await f.culture(["config", "check"], { cwd: dir, config: false });
    expect(check.stderr).toBe("");
    expect(check.code).toBe(0);
    expect(check.stdout.split("\n")[0]).toBe(`# ${file}: OK (1 agent)`);
    const config = parseConfig(text, file);
    expect(config.server).toMatchObject({ name: "lab", host: "127.0.0.1", port: 6697 });
    expect(config.agents).toHaveLength(1);
    expect(config.agents[0]).toMatchObject({ nick: "lab-helper", agent: "acp", directory: dir, channels: ["#dev", "#ops"] });
    // Approvals: ask, with a read-only allowlist (a config without permissions keeps bypass).
    expect(config.permissions).toMatchObject({ mode: "ask", deny: [], on_timeout: "deny" });
    expect(config.permissions?.allow).toEqual(expect.arrayContaining(["Read(**)", "Glob(**)", "Grep(**)", "Bash(culture channel *)", "Bash(git status)", "Bash(git diff)", "Bash(git log --oneline)", "Bash(ls -la)"]));
    expect(config.permissions?.allow.filter((p) => p.startsWith("Bash(") && p !== "Bash(culture channel *)").every((p) => !p.includes("*"))).toBe(true);

    writeFileSync(file, "# mine\n");
    const again = await f.culture(["init", "--agent", "acp"], { cwd: dir, config: false });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`${file} already exists; not overwriting it.`);
    expect(again.stderr).toContain("--force");
    expect(readFileSync(file, "utf8")).toBe("# mine\n");

    const forced = await f.culture(["--config", join(dir, "other.yaml"), "init", "--agent", "acp", "--force"], { cwd: dir, config: false });
    expect(forced.code).toBe(0);
    // Defaults: server spark, nick from the folder, #general.
    const other = parseConfig(readFileSync(join(dir, "other.yaml"), "utf8"), join(dir, "other.yaml"));
    expect(other.agents[0]).toMatchObject({ nick: "spark-project", channels: ["#general"] });

    const bad = await f.culture(["init", "--force", "--port", "70000"], { cwd: dir, config: false });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--port must be a port number");
  });
});

describe("culture doctor", () => {
  it("reports a missing backend and stale files with fixes, the reachable server as ok, and exits 1", async () => {
    const f = fleet();
    f.writeConfig([...echoAgents(["spark-a"], f.home), { nick: "spark-ghost", agent: "nosuch", directory: f.home }]);
    mkdirSync(join(f.home, "pids"));
    writeFileSync(join(f.home, "pids", "agent-spark-a.pid"), "999999\n");
    const run = await f.culture(["doctor"]);
    expect(run.code).toBe(1);
    const lines = run.stdout.split("\n");
    expect(lines).toContain(`ok    config: ${f.configPath} (2 agents)`);
    expect(lines).toContain(`ok    IRC server: 127.0.0.1:${server.port} registered us as spark-doctor`);
    expect(lines.find((l) => l.startsWith("ok    backend of spark-a: echo"))).toBeDefined();
    expect(lines).toContain(`FAIL  backend of spark-ghost: culture couldn't find the backend "nosuch" used by agent "spark-ghost" in ${f.configPath}.`);
    expect(run.stdout).toContain("npm install culture-backend-nosuch");
    expect(lines).toContain(`FAIL  stale files of spark-a: PID file ${join(f.home, "pids", "agent-spark-a.pid")} (pid 999999 is not spark-a's daemon)`);
    expect(lines).toContain("      fix: culture stop spark-a removes them");
    expect(lines.find((l) => l.startsWith("ok    runtime dir:") || l.startsWith("FAIL  runtime dir:"))).toMatch(/^ok/);
    expect(run.stdout).toMatch(/\n\d+ checks, 2 failed\n$/);
  });

  it("runs a backend's checks from the agent's directory: a relative acp_command is found there, a missing directory fails", async () => {
    const f = fleet();
    const agentDir = join(f.home, "work");
    mkdirSync(agentDir);
    writeFileSync(join(agentDir, "agent.sh"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    f.writeConfig([
      { nick: "spark-rel", agent: "acp", directory: agentDir, acp_command: ["./agent.sh"] },
      { nick: "spark-gone", agent: "acp", directory: join(f.home, "nowhere"), acp_command: ["./agent.sh"] },
    ]);
    // From the config's folder, where ./agent.sh is not: the check must look in the agent's directory.
    const run = await f.culture(["doctor"], { cwd: f.home });
    expect(run.stdout).toContain(`ok    spark-rel: ACP agent command (./agent.sh): found ${join(agentDir, "agent.sh")}`);
    expect(run.stdout).toContain(`FAIL  spark-gone: acp checks: the agent's directory ${join(f.home, "nowhere")} cannot be entered`);
    expect(run.code).toBe(1);
    expect(run.stdout).not.toContain("all passed");
  });

  it("reads the server's real mode: an open server (started like --open) is reported open even though agents.yaml does not say so", async () => {
    // `server` (beforeAll) has no account store: it registers anyone, as `culture server start --open` does.
    const f = fleet();
    const run = await f.culture(["doctor"]);
    expect(run.stdout).toContain(`warn  IRC server accounts: open: 127.0.0.1:${server.port} registered a client without an account, so anyone who can reach the port can talk to the agents (agents.yaml does not set server.open)`);
    expect(run.stdout).toContain("fix: restart the server without --open");
    expect(run.stdout).not.toContain("accounts: required");
  });

  it("reads the server's real mode: a server that requires accounts is reported as such, even with server.open in agents.yaml", async () => {
    const closed = await startServer({ port: 0, stateDir: null, accounts: { "spark-operator": "pw" }, open: false });
    try {
      const f = makeFleet(closed.port, ["spark-a"]);
      fleets.push(f);
      f.writeConfig(echoAgents(["spark-a"], f.home), { server: { name: "spark", host: "127.0.0.1", port: closed.port, password: "spark-operator:pw", open: true } });
      const run = await f.culture(["doctor"]);
      expect(run.stdout).toContain(`ok    IRC server: 127.0.0.1:${closed.port} registered us as spark-doctor`);
      expect(run.stdout).toContain(`ok    IRC server accounts: required: 127.0.0.1:${closed.port} refused a client without an account ("This server requires an account")`);
      expect(run.stdout).toContain("but the running server was started without --open");
    } finally {
      await closed.close();
    }
  });

  it("fails the IRC check, naming host:port, when the server is down, and a loose runtime dir", async () => {
    const port = await freePort(); // nothing listens there
    const f = makeFleet(port, ["spark-a"]);
    fleets.push(f);
    mkdirSync(join(f.home, "run"), { mode: 0o755 });
    const run = await f.culture(["doctor"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`FAIL  IRC server: culture couldn't reach the IRC server at 127.0.0.1:${port}`);
    expect(run.stdout).toContain(`FAIL  runtime dir: ${join(f.home, "run")} is mode 755: others can reach the agents' sockets`);
    expect(run.stdout).toContain(`fix: chmod 700 ${join(f.home, "run")}`);
  });
});

describe("culture skills install", () => {
  it("--dry-run lists where each backend's SKILL.md would go and writes nothing; without it, copies the file", async () => {
    const f = fleet();
    f.writeConfig([
      ...echoAgents(["spark-a"], f.home),
      { nick: "spark-b", agent: "acp", directory: f.home },
      { nick: "spark-c", agent: "acp", directory: f.home },
    ]);
    const target = join(f.home, "user", ".agents", "skills", "irc", "SKILL.md");
    const dry = await f.culture(["skills", "install", "all", "--dry-run"]);
    expect(dry.stderr).toBe("");
    expect(dry.code).toBe(0);
    // Each backend once, in config order; the echo backend has no skill.
    expect(dry.stdout).toBe(`echo: no skill file to install\nacp: would copy ${ACP_SKILL} -> ${target}\n`);
    expect(existsSync(target)).toBe(false);

    const real = await f.culture(["skills", "install", "acp"]);
    expect(real.code).toBe(0);
    expect(real.stdout).toBe(`acp: installed ${target}\n`);
    expect(readFileSync(target, "utf8")).toBe(readFileSync(ACP_SKILL, "utf8"));

    const missing = await f.culture(["skills", "install", "nosuch"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`nosuch: culture couldn't find the backend "nosuch"`);
  });
});

describe("culture service print", () => {
  it("prints a systemd user unit that runs the agent in the foreground with the absolute config and the daemon's node flags, restarted on failure", async () => {
    const f = fleet();
    const run = await f.culture(["service", "print", "spark-a"]);
    expect(run.code).toBe(0);
    const execStart = run.stdout.split("\n").find((l) => l.startsWith("ExecStart="));
    expect(execStart).toMatch(new RegExp(`^ExecStart=${process.execPath} --max-semi-space-size=2 --interrupt-budget=1000000 \\S+main\\.js start spark-a --foreground --config ${f.configPath}$`));
    expect(run.stdout).toContain("\nRestart=on-failure\n");
    expect(run.stdout).toContain(`\nEnvironment=CULTURE_HOME=${f.home}\n`);
    // What `culture start` gives a daemon's environment too (daemon-flags.ts daemonEnv).
    expect(run.stdout).toContain("\nEnvironment=GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072\nExecStart=");
    expect(run.stdout).toContain("\n[Install]\nWantedBy=default.target\n");
    const unknown = await f.culture(["service", "print", "spark-zz"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`No agent with nick "spark-zz"`);
  });
});

describe("culture send", () => {
  it("reports 401 for an unknown nick and 403 for a channel nobody is in, exit 1; a nick that is there gets the message", async () => {
    const f = fleet();
    const unknown = await f.culture(["send", "spark-nobody", "hello"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toContain("the IRC server refused PRIVMSG spark-nobody: No such nick/channel (IRC 401)");

    const typo = await f.culture(["send", "#no-such-channel", "hello"]);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain("no channel #no-such-channel (IRC 403");

    const bob = await connectRawClient(server.port, "bob");
    try {
      const ok = await f.culture(["send", "--nick", "boss", "bob", "line one\nline two"]);
      expect(ok.stderr).toBe("");
      expect(ok.stdout).toBe("Sent to bob as boss (2 lines)\n");
      await bob.waitFor(/^:boss!\S+ PRIVMSG bob :line one$/);
      await bob.waitFor(/^:boss!\S+ PRIVMSG bob :line two$/);
    } finally {
      await bob.close();
    }
  });
});

describe("culture logs and status of agents that are not running", () => {
  it("logs -n prints the last lines; status of 20 stopped agents is one JSON array", async () => {
    const nicks = Array.from({ length: 20 }, (_, i) => `spark-n${i}`);
    const f = fleet(nicks);
    mkdirSync(join(f.home, "logs"));
    writeFileSync(join(f.home, "logs", "agent-spark-n3.log"), "one\ntwo\nthree\n");
    const logs = await f.culture(["logs", "spark-n3", "-n", "2"]);
    expect(logs.stdout).toBe("two\nthree\n");
    const none = await f.culture(["logs", "spark-n4"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("No log for spark-n4");

    const status = await f.culture(["status", "--json"]);
    expect(status.code).toBe(0);
    const rows = JSON.parse(status.stdout) as Array<{ nick: string; state: string; pid: number | null }>;
    expect(rows.map((r) => r.nick)).toEqual(nicks);
    expect(rows.every((r) => r.state === "stopped" && r.pid === null)).toBe(true);

    const pause = await f.culture(["pause", "spark-n1"]);
    expect(pause.code).toBe(0);
    expect(pause.stdout).toBe("spark-n1 is not running\n");
  });
});
