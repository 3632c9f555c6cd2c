/**
 * `culture stop [nick|--all]`: IPC `shutdown`, wait; then SIGTERM, then SIGKILL — and only to a
 * process verified to be that culture daemon (a reused pid is never signalled). PID and socket
 * files that do not belong to a live daemon are removed, with a message.
 */
import type { Command } from "commander";
import { agentPidPath, loadConfig } from "@culture/core";
import { isOurProcess, isProcessAlive, readPidFile, removeFile } from "@culture/core";
import { socketPath } from "@culture/core/paths";
import { configOption } from "../program.js";
import { requestAgent, selectAgents } from "../agents.js";
import { progress } from "../progress.js";

/** Registers `culture stop`. */
export function registerStop(program: Command): void {
  program
    .command("stop")
    .description("stop agent daemons")
    .argument("[nick]", "the agent to stop")
    .option("--all", "stop every configured agent")
    .option("--grace <seconds>", "how long to wait after each step", "10")
    .action(async (nick: string | undefined, opts: { all?: boolean; grace: string }, command: Command) => {
      const configPath = configOption(command);
      const config = await loadConfig(configPath ? { configPath } : {});
      const graceMs = Math.max(0.1, Number(opts.grace) || 10) * 1000;
      const agents = selectAgents(config, nick, opts.all, "stop");
      const lines = await Promise.all(agents.map((a) => progress(`Stopping ${a.nick}`, () => stopAgent(a.nick, graceMs))));
      for (const l of lines) process.stdout.write(`${l}\n`);
    });
}

/** The markers that identify an agent daemon's command line. */
export function daemonMarkers(nick: string): string[] {
  return ["start", nick, "--foreground"];
}

/** Stops one agent; returns what happened. */
export async function stopAgent(nick: string, graceMs: number): Promise<string> {
  const pidPath = agentPidPath(nick);
  const sock = socketPath(nick);
  const pidFile = readPidFile(pidPath);
  const status = await requestAgent(nick, "status");
  const reply = status.running ? await requestAgent(nick, "shutdown") : status;
  const pid = (status.data?.pid as number | undefined) ?? pidFile?.pid ?? null;
  if (!reply.running && (pid === null || !isOurProcess(pid, daemonMarkers(nick)))) {
    const cleaned = [removeFile(pidPath) ? "PID file" : null, removeFile(sock) ? "socket" : null].filter(Boolean);
    return cleaned.length ? `${nick} is not running (removed a stale ${cleaned.join(" and ")})` : `${nick} is not running`;
  }
  if (pid !== null && (await waitForExit(pid, graceMs))) return finish(nick, pidPath, sock, pid, "stopped");
  if (pid === null) return `${nick}: asked to shut down, but its pid is unknown`;
  if (isOurProcess(pid, daemonMarkers(nick))) {
    process.kill(pid, "SIGTERM");
    if (await waitForExit(pid, graceMs)) return finish(nick, pidPath, sock, pid, "stopped (SIGTERM)");
    if (isOurProcess(pid, daemonMarkers(nick))) {
      process.kill(pid, "SIGKILL");
      await waitForExit(pid, graceMs);
      return finish(nick, pidPath, sock, pid, "killed (SIGKILL)");
    }
  }
  return finish(nick, pidPath, sock, pid, "stopped");
}

function finish(nick: string, pidPath: string, sock: string, pid: number, how: string): string {
  removeFile(pidPath);
  removeFile(sock);
  return `Stopped ${nick} (pid ${pid}): ${how}`;
}

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!isProcessAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !isProcessAlive(pid);
}
