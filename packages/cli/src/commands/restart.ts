/**
 * `culture restart <nick...|--all>`: `culture stop`, then `culture start`, per agent — the same
 * code paths (stopAgent, startDetached), so a restart stops and reports exactly as they do:
 * `Stopped <nick> (pid N)` then start's readiness report, `Started <nick> (pid M)`. Agents are
 * restarted concurrently, each one stop-then-start. Prompts that were waiting when the daemon
 * stopped stay in its prompt journal and the next daemon delivers them; mentions said while it
 * was down are caught up from channel history (docs/daemon.md). The new daemon reads the config
 * afresh: this is how a change to agents.yaml takes effect (`culture status` says when one is due).
 */
import type { Command } from "commander";
import { loadConfig, usageError, agentNotFound, type CultureConfig } from "@culture/core";
import { configOption } from "../options.js";
import { DEFAULT_START_TIMEOUT } from "../start-args.js";
import { assertOwnerShell } from "../control.js";
import { runningDaemons, type RunningDaemon } from "../fleet.js";
import { progress } from "../progress.js";
import { registerChannels } from "../channel-owners.js";
import { printStartResults, startDetached, timeoutOption, type StartResult } from "./start.js";
import { stopAgent } from "./stop.js";

/** Registers `culture restart`. */
export function registerRestart(program: Command): void {
  program
    .command("restart")
    .description("stop, then start agent daemons (reads agents.yaml again; waiting prompts are kept)")
    .argument("[nicks...]", "the agents to restart")
    .option("--all", "restart every agent: the config's and every daemon running under the culture home")
    .option("--grace <seconds>", "stop: how long to wait after each step", "10")
    .option("--timeout <seconds>", "start: how long to wait for each daemon to come up", DEFAULT_START_TIMEOUT)
    .action(async (nicks: string[], opts: { all?: boolean; grace: string; timeout: string }, command: Command) => {
      assertOwnerShell("culture restart");
      const graceMs = Number(opts.grace) * 1000;
      if (!Number.isFinite(graceMs) || graceMs <= 0) throw usageError(`--grace must be a positive number of seconds, got "${opts.grace}"`);
      const timeoutMs = timeoutOption(opts.timeout);
      const configPath = configOption(command);
      const config = await loadConfig(configPath ? { configPath } : {});
      const targets = selectTargets(config, await runningDaemons(), nicks, opts.all);
      registerChannels(config);
      const results = await Promise.all(targets.map((t) => progress(`Restarting ${t.nick}`, () => restartOne(t, graceMs, timeoutMs))));
      if (printStartResults(results)) process.exitCode = 1;
    });
}

/** One agent to restart and the config file its new daemon runs with. */
interface Target {
  nick: string;
  configFile: string;
}

/** Stops one agent (as `culture stop` does), then starts it (as `culture start` does). */
async function restartOne(t: Target, graceMs: number, timeoutMs: number): Promise<StartResult> {
  const stopped = await stopAgent(t.nick, graceMs);
  // A daemon that would not stop is not started twice: its error is the result.
  if (!stopped.ok) return { ok: false, message: `${stopped.message}\n${t.nick}: not started again`, notes: [] };
  const started = await startDetached(t.nick, t.configFile, timeoutMs);
  return { ...started, notes: [stopped.message, ...started.notes] };
}

/**
 * The agents to restart: the nicks given (from the config, or a daemon of another config under
 * this culture home, which restarts with the config it was started with), or with `--all` the
 * config's agents and every running daemon.
 */
function selectTargets(config: CultureConfig, running: readonly RunningDaemon[], nicks: readonly string[], all: boolean | undefined): Target[] {
  if (all && nicks.length) throw usageError(`give nicks or --all, not both: culture restart ${nicks.join(" ")} --all`);
  if (!all && !nicks.length) throw usageError("which agents? culture restart <nick...> (or --all)");
  const configFile = config.filepath!;
  const known = [...config.agents.map((a) => a.nick), ...running.map((d) => d.nick)];
  const wanted = all ? known : nicks;
  if (all && wanted.length === 0) throw usageError(`${configFile} has no agents, and no daemon runs under this culture home`);
  const targets: Target[] = [];
  const seen = new Set<string>();
  for (const nick of wanted) {
    const want = nick.toLowerCase();
    if (seen.has(want)) continue;
    seen.add(want);
    const agent = config.agents.find((a) => a.nick.toLowerCase() === want);
    if (agent) {
      targets.push({ nick: agent.nick, configFile });
      continue;
    }
    const daemon = running.find((d) => d.nick.toLowerCase() === want);
    if (!daemon) throw agentNotFound(nick, configFile, [...new Set(known)]);
    if (!daemon.configFile) throw usageError(`${daemon.nick} runs under this culture home but its command line names no config file, and ${configFile} does not list it: restart it with culture stop ${daemon.nick}, then culture start ${daemon.nick} --config <its file>`);
    targets.push({ nick: daemon.nick, configFile: daemon.configFile });
  }
  return targets;
}
