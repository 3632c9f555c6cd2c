/**
 * `culture start [nick|--all]`: each agent runs as its own detached daemon process (own process
 * group, stdin closed, output appended to `$CULTURE_HOME/logs/agent-<nick>.log`). The parent
 * waits until each child reports its daemon connected, joined and running — or the real error —
 * and only then prints `Started <nick> (pid N)`. `--foreground` runs one daemon in this terminal.
 */
import { spawn } from "node:child_process";
import { mkdirSync, openSync, closeSync } from "node:fs";
import { dirname } from "node:path";
import type { Command } from "commander";
import { agentLogPath, createAgentDaemon, errorMessage, isCultureError, loadConfig, usageError, type AgentDaemon } from "@culture/core";
import { probeSocket } from "@culture/core/ipc-client";
import { socketPath } from "@culture/core/paths";
import { configOption } from "../program.js";
import { selectAgents } from "../agents.js";
import { progress } from "../progress.js";

/** Environment variable telling a foreground daemon to report readiness over the IPC channel. */
const READY_ENV = "CULTURE_DAEMON_READY_CHANNEL";

/** Registers `culture start`. */
export function registerStart(program: Command): void {
  program
    .command("start")
    .description("start agent daemons (each a detached process)")
    .argument("[nick]", "the agent to start")
    .option("--all", "start every configured agent")
    .option("--foreground", "run one agent's daemon in this terminal")
    .option("--timeout <seconds>", "how long to wait for each daemon to come up", "60")
    .action(async (nick: string | undefined, opts: { all?: boolean; foreground?: boolean; timeout: string }, command: Command) => {
      const configPath = configOption(command);
      if (opts.foreground) {
        if (!nick || opts.all) throw usageError("--foreground runs exactly one agent: culture start <nick> --foreground");
        await runForeground(nick, configPath);
        return;
      }
      const config = await loadConfig(configPath ? { configPath } : {});
      const agents = selectAgents(config, nick, opts.all, "start");
      const timeoutMs = Number(opts.timeout) * 1000;
      if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw usageError(`--timeout must be a positive number of seconds, got "${opts.timeout}"`);
      const results = await Promise.all(
        agents.map((a) =>
          progress(`Starting ${a.nick}`, () => startDetached(a.nick, config.filepath!, timeoutMs)),
        ),
      );
      let failed = 0;
      for (const r of results) {
        if (r.ok) process.stdout.write(`${r.message}\n`);
        else {
          failed += 1;
          process.stderr.write(`${r.message}\n`);
        }
      }
      if (failed) process.exitCode = 1;
    });
}

interface StartResult {
  ok: boolean;
  message: string;
}

/** Spawns one detached daemon and waits for its readiness report. */
async function startDetached(nick: string, configFile: string, timeoutMs: number): Promise<StartResult> {
  const probe = await probeSocket(socketPath(nick), 1000);
  if (probe.alive) return { ok: true, message: `${nick} is already running (pid ${probe.pid ?? "unknown"})` };
  const logPath = agentLogPath(nick);
  mkdirSync(dirname(logPath), { recursive: true });
  const log = openSync(logPath, "a");
  const main = process.argv[1]!;
  const child = spawn(process.execPath, [main, "start", nick, "--foreground", "--config", configFile], {
    detached: true,
    stdio: ["ignore", log, log, "ipc"],
    env: { ...process.env, [READY_ENV]: "1" },
  });
  closeSync(log);
  return await new Promise<StartResult>((resolve) => {
    const finish = (r: StartResult) => {
      clearTimeout(timer);
      child.removeAllListeners();
      if (child.connected) child.disconnect();
      child.unref();
      resolve(r);
    };
    const timer = setTimeout(
      () => finish({ ok: false, message: `${nick}: the daemon did not report ready within ${timeoutMs / 1000}s (pid ${child.pid}); see ${logPath}` }),
      timeoutMs,
    );
    child.on("message", (m: { type?: string; message?: string; pid?: number }) => {
      if (m.type === "ready") finish({ ok: true, message: `Started ${nick} (pid ${m.pid ?? child.pid})` });
      else if (m.type === "error") finish({ ok: false, message: `${nick}: ${m.message}` });
    });
    child.on("exit", (code) => finish({ ok: false, message: `${nick}: the daemon exited with code ${code} before it was ready; see ${logPath}` }));
    child.on("error", (err) => finish({ ok: false, message: `${nick}: could not start the daemon: ${err.message}` }));
  });
}

/** Runs one daemon in this process until it stops. */
async function runForeground(nick: string, configPath: string | undefined): Promise<void> {
  const report = (msg: Record<string, unknown>) => {
    if (process.env[READY_ENV] && process.send) {
      process.send(msg);
      process.disconnect?.();
    }
  };
  let daemon: AgentDaemon;
  try {
    daemon = await createAgentDaemon({ nick, ...(configPath ? { configPath } : {}) });
    const stop = () => void daemon.stop();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    await daemon.start();
  } catch (err) {
    report({ type: "error", message: isCultureError(err) ? err.message : errorMessage(err) });
    throw err;
  }
  process.stdout.write(`Started ${daemon.nick} (pid ${process.pid})\n`);
  report({ type: "ready", pid: process.pid });
  await daemon.done;
}
