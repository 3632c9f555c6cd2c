/**
 * The fleet under this culture home, whatever config started it: every daemon whose socket is
 * in the runtime dir or whose PID file is in `$CULTURE_HOME/pids`, each with the config file it
 * was started with (read from its command line, `culture start <nick> --foreground --config
 * <file>`). `culture status`, `stop`, `pause` and `resume` use it so they see every agent from
 * any folder, not only those of the config found from the cwd.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isCultureError, loadConfig, usageError, agentNotFound, type CultureConfig } from "@culture/core";
import { cultureHome, runtimeDir } from "@culture/core/paths";
import { inspectAgent, type AgentProcessState } from "./agents.js";

/** A daemon running under this culture home. */
export interface RunningDaemon {
  nick: string;
  pid: number | null;
  /** The config file it was started with, or null when its command line does not say. */
  configFile: string | null;
  state: AgentProcessState;
}

/** The config the command would use, or null when there is none (no file found anywhere). */
export async function loadConfigIfAny(configPath: string | undefined): Promise<CultureConfig | null> {
  try {
    return await loadConfig(configPath ? { configPath } : {});
  } catch (err) {
    if (!configPath && isCultureError(err, "E_CONFIG_NOT_FOUND")) return null;
    throw err;
  }
}

/** The nicks with a socket in the runtime dir or a PID file under the culture home. */
export function knownNicks(): string[] {
  const nicks = new Set<string>();
  for (const name of list(runtimeDir())) {
    const m = /^culture-(.+)\.sock$/.exec(name);
    if (m?.[1]) nicks.add(m[1]);
  }
  for (const name of list(join(cultureHome(), "pids"))) {
    const m = /^agent-(.+)\.pid$/.exec(name);
    if (m?.[1]) nicks.add(m[1]);
  }
  return [...nicks].sort();
}

/** Every daemon that answers on its socket or has a live PID file, with its config file. */
export async function runningDaemons(): Promise<RunningDaemon[]> {
  const states = await Promise.all(knownNicks().map((nick) => inspectAgent(nick)));
  return states
    .filter((s) => s.answering || s.busy || s.pid !== null)
    .map((state) => ({ nick: state.nick, pid: state.pid, configFile: state.pid === null ? null : daemonConfigFile(state.pid), state }));
}

/** The `--config` value on a daemon's command line (Linux /proc, else ps), or null. */
export function daemonConfigFile(pid: number): string | null {
  let args: string[];
  try {
    args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    try {
      args = execFileSync("ps", ["-p", String(pid), "-o", "args="], { encoding: "utf8" }).trim().split(/\s+/);
    } catch {
      return null;
    }
  }
  const i = args.indexOf("--config");
  return i >= 0 ? (args[i + 1] ?? null) : null;
}

/**
 * The nicks a fleet command acts on: one nick (from the config, or any running daemon), or with
 * `--all` the config's agents and every daemon running under the culture home.
 */
export function selectNicks(
  config: CultureConfig | null,
  running: readonly RunningDaemon[],
  nick: string | undefined,
  all: boolean | undefined,
  verb: string,
): string[] {
  if (all && nick) throw usageError(`give a nick or --all, not both: culture ${verb} ${nick} --all`);
  const configured = config?.agents.map((a) => a.nick) ?? [];
  if (all) {
    const nicks = [...configured];
    for (const d of running) if (!nicks.some((n) => n.toLowerCase() === d.nick.toLowerCase())) nicks.push(d.nick);
    if (nicks.length === 0) throw usageError(`no agents: ${config?.filepath ?? "no config was found"}, and no daemon runs under ${cultureHome()}`);
    return nicks;
  }
  if (!nick) throw usageError(`which agent? culture ${verb} <nick> (or --all)`);
  const match = [...configured, ...running.map((d) => d.nick)].find((n) => n.toLowerCase() === nick.toLowerCase());
  if (!match) throw agentNotFound(nick, config?.filepath ?? "(no config found)", [...new Set([...configured, ...running.map((d) => d.nick)])]);
  return [match];
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
