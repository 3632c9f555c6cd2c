/**
 * Where culture keeps its files. This is the ONE resolver every site uses (daemon, CLI,
 * `culture channel`, status): the reference implementation computed socket paths in several
 * places and they drifted apart. It imports node builtins only, because `culture channel`
 * (run by the agent on every IRC action) loads it.
 */
import { chmodSync, mkdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { ensurePrivateDir } from "./private-files.js";

/** sun_path is 108 bytes on Linux (104 on macOS/BSD), including the terminating NUL. */
export const UNIX_SOCKET_PATH_LIMIT = process.platform === "linux" ? 107 : 103;

/** `$CULTURE_HOME`, default `~/.culture`. */
export function cultureHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.CULTURE_HOME;
  return home && home.length > 0 ? resolve(home) : join(homedir(), ".culture");
}

/** `$XDG_RUNTIME_DIR` if set, else `$CULTURE_HOME/run`. Does not create it. */
export function runtimeDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_RUNTIME_DIR;
  return xdg && xdg.length > 0 ? resolve(xdg) : join(cultureHome(env), "run");
}

/**
 * The runtime dir, created if missing. The fallback under CULTURE_HOME is forced to 0700 on
 * every call (re-tightened if someone loosened it); XDG_RUNTIME_DIR belongs to the system.
 */
export function ensureRuntimeDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = runtimeDir(env);
  const ours = !(env.XDG_RUNTIME_DIR && env.XDG_RUNTIME_DIR.length > 0);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (ours && (statSync(dir).mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
  return dir;
}

/**
 * `<runtime>/culture-<nick>.sock`: the agent's **tools socket**. The agent's IRC tools
 * (`culture channel`, `culture mcp`, the in-process MCP servers, the reference skill client)
 * use it; the owner's control commands are refused there (see {@link controlSocketPath}). A
 * sandbox mounts this one file and nothing else of culture's.
 */
export function socketPath(nick: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(runtimeDir(env), `culture-${nick}.sock`);
}

/** True when `path` fits in sockaddr_un. */
export function socketPathFits(path: string): boolean {
  return Buffer.byteLength(path) <= UNIX_SOCKET_PATH_LIMIT;
}

/** `$CULTURE_HOME/logs/agent-<nick>.log`. */
export function agentLogPath(nick: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(cultureHome(env), "logs", `agent-${nick}.log`);
}

/** `$CULTURE_HOME/pids/agent-<nick>.pid`. */
export function agentPidPath(nick: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(cultureHome(env), "pids", `agent-${nick}.pid`);
}

/** `$CULTURE_HOME/server` — the embedded server's state. */
export function serverDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cultureHome(env), "server");
}

/**
 * `$CULTURE_HOME/backends` — culture's own backends folder (`culture backend add --global`
 * installs here; discovery searches its `node_modules`).
 */
export function backendsDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cultureHome(env), "backends");
}

/** `$CULTURE_HOME/agents.yaml` — the last place config is looked for. */
export function defaultConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(cultureHome(env), "agents.yaml");
}

/** A nick as culture accepts it in file names and IRC: `<server>-<name>`, IRC-safe characters. */
export const NICK_RE = /^[A-Za-z[\]\\`_^{|}][A-Za-z0-9[\]\\`_^{|}-]*$/;

/**
 * `$CULTURE_HOME/state/agent-<nick>`: what an agent's daemon keeps across restarts (the prompt
 * journal). Does not create it; {@link ensureAgentStateDir} does, 0700.
 */
export function agentStateDir(nick: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(cultureHome(env), "state", `agent-${nick}`);
}

/** The agent's state dir and `$CULTURE_HOME/state` above it, created 0700 (re-tightened if someone loosened them). */
export function ensureAgentStateDir(nick: string, env: NodeJS.ProcessEnv = process.env): string {
  const dir = agentStateDir(nick, env);
  ensurePrivateDir(dirname(dir));
  return ensurePrivateDir(dir);
}

/** `<state dir>/prompts.jsonl`: the durable journal of the prompts people sent the agent. */
export function promptJournalPath(nick: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(agentStateDir(nick, env), "prompts.jsonl");
}

/** `<state dir>/usage.jsonl`: the durable journal of the agent's metered turns (0600). */
export function usageJournalPath(nick: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(agentStateDir(nick, env), "usage.jsonl");
}

/** `<state dir>/agent-processes.json`: the agent processes the daemon runs, so the next daemon can end them after a crash (0600). */
export function agentProcessRecordPath(nick: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(agentStateDir(nick, env), "agent-processes.json");
}

/** `<state dir>/channel-marks.jsonl`: what the daemon last saw per channel, for catch-up after a restart (0600). */
export function channelMarksPath(nick: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(agentStateDir(nick, env), "channel-marks.jsonl");
}

/** `<state dir>/schedules.json`: when each schedule last ran and which are paused (0600), so no run fires twice. */
export function scheduleStatePath(nick: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(agentStateDir(nick, env), "schedules.json");
}

/** `<state dir>/approval-rules.json`: the agent's saved `always` approval rules (0600). */
export function approvalRulesPath(nick: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(agentStateDir(nick, env), "approval-rules.json");
}

/**
 * `<state dir>/control.sock`: the daemon's **control socket**, for the owner's commands only
 * (`culture approvals`, `pause`, `resume`, `stop`). It lives in the agent's state folder, which
 * the approvals policy never auto-allows and a sandbox does not mount, so the agent is never
 * handed it; every request on it must also carry the token in {@link controlTokenPath}.
 */
export function controlSocketPath(nick: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(agentStateDir(nick, env), "control.sock");
}

/**
 * `<state dir>/control.token`: a random token the daemon writes (0600) when it starts and
 * removes when it stops; requests on the control socket must carry it. Never put in the
 * agent's environment.
 */
export function controlTokenPath(nick: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(agentStateDir(nick, env), "control.token");
}

/** `<state dir>/approval-ids.json`: the agent's approval id counter, so ids are never reused across restarts (0600). */
export function approvalIdsPath(nick: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(agentStateDir(nick, env), "approval-ids.json");
}
