/**
 * `culture stop [nick|--all]`: IPC `shutdown`, wait; then SIGTERM, then SIGKILL — and only to a
 * process verified to be that agent's culture daemon (the reference implementation once killed
 * an unrelated process that had reused a daemon's pid). PID and socket files that do not
 * belong to a live daemon are removed, with a message. Stopping an agent that is not running
 * says so and is not an error.
 */
import type { Command } from "commander";
import { agentPidPath, processStat, removeFile, isProcessAlive, usageError } from "@culture/core";
import { controlSocketPath, controlTokenPath, socketPath } from "@culture/core/paths";
import { assertOwnerShell, controlAgent } from "../control.js";
import { configOption } from "../options.js";
import { cleanStaleFiles, inspectAgent, isAgentDaemon, requestAgent } from "../agents.js";
import { loadConfigIfAny, runningDaemons, selectNicks } from "../fleet.js";
import { progress } from "../progress.js";

/** Registers `culture stop`. */
export function registerStop(program: Command): void {
  program
    .command("stop")
    .description("stop agent daemons (IPC shutdown, then SIGTERM, then SIGKILL)")
    .argument("[nick]", "the agent to stop")
    .option("--all", "stop every agent: the config's and every daemon running under the culture home")
    .option("--grace <seconds>", "how long to wait after each step", "10")
    .action(async (nick: string | undefined, opts: { all?: boolean; grace: string }, command: Command) => {
      assertOwnerShell("culture stop");
      const graceMs = Number(opts.grace) * 1000;
      if (!Number.isFinite(graceMs) || graceMs <= 0) throw usageError(`--grace must be a positive number of seconds, got "${opts.grace}"`);
      // The config's agents and every daemon running under the culture home, from any folder.
      const config = await loadConfigIfAny(configOption(command));
      const nicks = selectNicks(config, await runningDaemons(), nick, opts.all, "stop");
      const results = await Promise.all(nicks.map((n) => progress(`Stopping ${n}`, () => stopAgent(n, graceMs))));
      let failed = false;
      for (const r of results) {
        if (r.ok) process.stdout.write(`${r.message}\n`);
        else {
          failed = true;
          process.stderr.write(`${r.message}\n`);
        }
      }
      if (failed) process.exitCode = 1;
    });
}

/** What stopping one agent came to. */
export interface StopResult {
  ok: boolean;
  message: string;
}

/** Stops one agent: shutdown request, then signals to its verified daemon process. */
export async function stopAgent(nick: string, graceMs: number): Promise<StopResult> {
  const state = await inspectAgent(nick);
  if (state.busy && state.pid === null) {
    return { ok: false, message: `${nick}: something holds its socket but does not answer, and no PID file names its daemon; not signalling anything` };
  }
  if (!state.answering && state.pid === null) {
    const cleaned = cleanStaleFiles(state);
    return { ok: true, message: `${nick} is not running${cleaned ? ` (${cleaned})` : ""}` };
  }
  // The shutdown request goes over the control socket; without it (gone, no token) the signals below still work.
  const asked = state.answering ? await controlAgent(nick, "shutdown") : null;
  const accepted = asked?.ok === true;
  const pid = state.pid;
  if (pid === null) {
    // It answered without a pid (a daemon built into another program): all we can do is wait.
    if (!accepted) return { ok: false, message: `${nick}: the shutdown request failed (${asked?.error ?? "no answer"}) and its pid is unknown` };
    const gone = await waitFor(async () => !(await requestAgent(nick, "status", {}, 500)).running, graceMs);
    return gone ? { ok: true, message: `Stopped ${nick}` } : { ok: false, message: `${nick} was asked to shut down but still answers; its pid is unknown` };
  }
  if (accepted && (await waitFor(() => !isProcessAlive(pid), graceMs))) return finish(nick, pid, "");
  // Signals only to the agent's daemon: checked again right before each one.
  if (!isAgentDaemon(pid, nick)) {
    if (!isProcessAlive(pid)) return finish(nick, pid, "");
    return { ok: false, message: `${nick}: pid ${pid} did not stop, and it is not a culture daemon for ${nick}: not signalling it` };
  }
  process.kill(pid, "SIGTERM");
  if (await waitFor(() => !isProcessAlive(pid), graceMs)) return finish(nick, pid, " with SIGTERM");
  if (isAgentDaemon(pid, nick)) {
    // The whole process group (the daemon is its leader): its agent processes go with it.
    const group = processStat(pid)?.pgid === pid;
    try {
      process.kill(group ? -pid : pid, "SIGKILL");
    } catch {
      /* exited just now */
    }
    if (!(await waitFor(() => !isProcessAlive(pid), graceMs))) return { ok: false, message: `${nick}: pid ${pid} survived SIGKILL` };
    return finish(nick, pid, " with SIGKILL");
  }
  return finish(nick, pid, "");
}

/** The daemon is gone: remove what it may have left behind (after a signal it had no chance to). */
function finish(nick: string, pid: number, how: string): StopResult {
  removeFile(agentPidPath(nick));
  removeFile(socketPath(nick));
  removeFile(controlSocketPath(nick));
  removeFile(controlTokenPath(nick));
  return { ok: true, message: `Stopped ${nick} (pid ${pid})${how}` };
}

/** Polls `check` every 50 ms until it is true or `ms` have passed; returns the last result. */
async function waitFor(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}
