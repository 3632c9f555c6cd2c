// ManagedRunner and AgentProcess, the lifecycle every backend runs on, on a real child process
// (this Node running a tiny line-echo agent).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../src/agent-message.js";
import { silentLogger } from "../src/logger.js";
import { AgentProcess, exitStatus } from "../src/process/agent-process.js";
import { ManagedRunner } from "../src/runner/managed-runner.js";

/** Echoes each stdin line as `echo: <line>`; exits at end of input unless told to ignore it and SIGTERM. */
const AGENT = `
const stubborn = process.argv.includes("stubborn");
if (stubborn) process.on("SIGTERM", () => {});
let buf = "";
process.stdin.on("data", (c) => { buf += c; let i; while ((i = buf.indexOf("\\n")) >= 0) { const l = buf.slice(0, i); buf = buf.slice(i + 1); setTimeout(() => process.stdout.write("echo: " + l + "\\n"), l === "slow" ? 50 : 0); } });
process.stdin.on("end", () => { if (!stubborn) process.exit(0); else setInterval(() => {}, 1000); });
`;

function spawnAgent(...args: string[]): Promise<AgentProcess> {
  return AgentProcess.spawn({ command: [process.execPath, "-e", AGENT, ...args], cwd: process.cwd(), env: process.env, logger: silentLogger, configKey: "command" });
}

class EchoRunner extends ManagedRunner {
  proc: AgentProcess | null = null;
  startGate: Promise<void> = Promise.resolve();
  readonly exits: number[] = [];
  private waiting: Array<(line: string) => void> = [];
  constructor() {
    super(silentLogger);
    this.onExit = async (code) => void this.exits.push(code);
  }
  get sessionId(): string | null {
    return null;
  }
  protected hasAgent(): boolean {
    return this.proc !== null;
  }
  protected async startAgent(): Promise<void> {
    const proc = await spawnAgent();
    this.proc = proc;
    let buf = "";
    proc.stdout.on("data", (c: Buffer) => {
      buf += c.toString();
      for (let i; (i = buf.indexOf("\n")) >= 0; buf = buf.slice(i + 1)) this.waiting.shift()?.(buf.slice(0, i));
    });
    void proc.exited.then(async (code) => {
      if (this.proc !== proc || this.stopRequested) return;
      this.proc = null;
      await this.reportExit(code);
    });
    try {
      await this.startGate;
      this.throwIfStopRequested();
    } catch (err) {
      this.proc = null;
      await proc.shutdown(2_000);
      throw err;
    }
    this.setRunning(true);
  }
  protected async stopAgent(): Promise<void> {
    await this.proc?.shutdown(2_000);
    this.proc = null;
  }
  protected async runTurn(text: string): Promise<void> {
    const line = new Promise<string>((resolve) => this.waiting.push(resolve));
    this.proc!.stdin.write(`${text}\n`);
    await this.emit({ type: "assistant", content: [{ type: "text", text: await line }] });
  }
}

describe("ManagedRunner", () => {
  it("runs one turn at a time, in order, even when prompts are sent together", async () => {
    const runner = new EchoRunner();
    const seen: string[] = [];
    runner.onMessage = async (m: AgentMessage) => void seen.push(m.type === "assistant" && m.content[0]?.type === "text" ? m.content[0].text : "?");
    await runner.start();
    await Promise.all([runner.sendPrompt("slow"), runner.sendPrompt("b"), runner.sendPrompt("c")]);
    expect(seen).toEqual(["echo: slow", "echo: b", "echo: c"]);
    await runner.stop();
  });

  it("stop() is idempotent, is not reported as a crash, and the runner starts again", async () => {
    const runner = new EchoRunner();
    await runner.start();
    await Promise.all([runner.stop(), runner.stop()]);
    await runner.stop();
    expect(runner.isRunning()).toBe(false);
    expect(runner.exits).toEqual([]);
    await runner.start();
    expect(runner.isRunning()).toBe(true);
    await runner.stop();
  });

  it("stop() during start() makes start() reject and leaves no agent running", async () => {
    const runner = new EchoRunner();
    let open!: () => void;
    runner.startGate = new Promise((resolve) => (open = resolve));
    const started = runner.start();
    await expect(runner.start()).rejects.toThrow(/already started/);
    const stopped = runner.stop();
    open();
    await expect(started).rejects.toThrow("EchoRunner: stop() was called during start()");
    await stopped;
    expect(runner.isRunning()).toBe(false);
  });

  it("reports a kill -9 as one exit with code 137, and refuses prompts afterwards", async () => {
    const runner = new EchoRunner();
    await runner.start();
    process.kill(runner.proc!.pid!, "SIGKILL");
    await expect.poll(() => runner.exits).toEqual([137]);
    expect(runner.isRunning()).toBe(false);
    await expect(runner.sendPrompt("x")).rejects.toThrow("EchoRunner.sendPrompt(): the agent is not running");
  });
});

describe("AgentProcess", () => {
  it("exit status: the code, else 128 + the signal's number", () => {
    expect(exitStatus(3, null)).toBe(3);
    expect(exitStatus(undefined, "SIGKILL")).toBe(137);
    expect(exitStatus(undefined, "SIGTERM")).toBe(143);
    expect(exitStatus(undefined, undefined)).toBe(1);
  });

  it("shutdown: end of input first; an agent ignoring it and SIGTERM is killed (137)", async () => {
    expect(await (await spawnAgent()).shutdown(5_000)).toBe(0);
    expect(await (await spawnAgent("stubborn")).shutdown(200)).toBe(137);
  });

  it("a missing program is E_AGENT_COMMAND_NOT_FOUND naming the config key", async () => {
    const err = await AgentProcess.spawn({ command: ["no-such-agent-xyz"], cwd: process.cwd(), env: process.env, logger: silentLogger, configKey: "command" }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "E_AGENT_COMMAND_NOT_FOUND" });
    expect(String((err as Error).message)).toContain("command");
  });

  it("a program that cannot start after all (no pre-check, a missing working folder) exits 1 with E_AGENT_COMMAND_NOT_FOUND as its error", async () => {
    for (const spawnOptions of [
      { command: ["no-such-agent-xyz"], cwd: process.cwd(), checkExecutable: false },
      { command: [process.execPath, "-e", "0"], cwd: join(tmpdir(), "no-such-folder-xyz") },
    ]) {
      const proc = await AgentProcess.spawn({ ...spawnOptions, env: process.env, logger: silentLogger, configKey: "acp_command" });
      expect(await proc.exited).toBe(1);
      expect(proc.pid).toBeUndefined();
      expect(proc.exitError("startup")).toMatchObject({ code: "E_AGENT_COMMAND_NOT_FOUND" });
    }
  });

  it("an agent still running when the process that spawned it exits gets SIGTERM", async () => {
    // A node that spawns a long sleep as its agent, prints the agent's pid, and exits.
    // Core as users run it (the build), in a node of its own.
    const script = `
      const { AgentProcess, silentLogger } = await import(${JSON.stringify(new URL("../dist/index.js", import.meta.url).href)});
      const proc = await AgentProcess.spawn({ command: ["sleep", "600"], cwd: process.cwd(), env: process.env, logger: silentLogger, configKey: "command" });
      process.stdout.write(String(proc.pid));
      process.exit(0);`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    const pid = Number(run.stdout);
    expect(pid).toBeGreaterThan(0);
    // Reaped by init once it ends; gone from /proc (or a zombie) shortly after the SIGTERM.
    const end = Date.now() + 10_000;
    while (Date.now() < end && isRunning(pid)) await new Promise((r) => setTimeout(r, 20));
    expect(isRunning(pid)).toBe(false);
  });
});

/** Whether `pid` is a live process (not gone, not a zombie). */
function isRunning(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}
