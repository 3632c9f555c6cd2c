/**
 * Shared helpers of the fleet commands (start, stop, status, pause, resume, doctor): which
 * agents a command acts on, one IPC request to a daemon, and what is on disk and in the
 * process table for an agent — its daemon, or the PID and socket files a dead one left.
 */
import { existsSync } from "node:fs";
import { agentNotFound, agentPidPath, isOurProcess, isProcessAlive, readPidFile, removeFile, usageError, type AgentConfig, type CultureConfig } from "@culture/core/config";
import { IpcClient } from "@culture/core/ipc-client";
import { socketPath } from "@culture/core/paths";

/** The agents a command acts on: one by nick, or all with `--all`. */
export function selectAgents(config: CultureConfig, nick: string | undefined, all: boolean | undefined, verb: string): AgentConfig[] {
  if (all && nick) throw usageError(`give a nick or --all, not both: culture ${verb} ${nick} --all`);
  if (all) {
    if (config.agents.length === 0) throw usageError(`${config.filepath ?? "the config"} has no agents`);
    return config.agents;
  }
  if (!nick) throw usageError(`which agent? culture ${verb} <nick> (or --all)`);
  return [findAgent(config, nick)];
}

/** One configured agent by nick (case-insensitive); E_AGENT_NOT_FOUND names the configured ones. */
export function findAgent(config: CultureConfig, nick: string): AgentConfig {
  const agent = config.agents.find((a) => a.nick.toLowerCase() === nick.toLowerCase());
  if (!agent) throw agentNotFound(nick, config.filepath ?? "(config)", config.agents.map((a) => a.nick));
  return agent;
}

/** The result of one IPC request to an agent's daemon: null data when it is not running. */
export interface AgentReply {
  running: boolean;
  ok: boolean;
  data: Record<string, unknown> | null;
  error: string | null;
  /** Why it counts as not running: `E_NOT_RUNNING` (no socket, refused), `E_TIMEOUT` (accepted, no answer), `E_IPC`. */
  errorCode: string | null;
}

/** Sends one IPC request to a daemon with a short timeout; a daemon that does not answer counts as not running. */
export function requestAgent(nick: string, type: string, fields: Record<string, unknown> = {}, timeoutMs = 1500): Promise<AgentReply> {
  return requestSocket(socketPath(nick), type, fields, timeoutMs);
}

/** One request on the socket at `path` (tools or control); no answer counts as not running. */
export async function requestSocket(path: string, type: string, fields: Record<string, unknown>, timeoutMs: number): Promise<AgentReply> {
  let client: IpcClient | null = null;
  try {
    client = await IpcClient.connect(path, { timeoutMs });
    // observer: these connections are ours, not the agent's: they must never consume whispers.
    const res = await client.request(type, { ...fields, observer: true }, { timeoutMs });
    return { running: true, ok: res.ok, data: (res.data as Record<string, unknown> | undefined) ?? null, error: res.error ?? null, errorCode: null };
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return { running: false, ok: false, data: null, error: err instanceof Error ? err.message : String(err), errorCode: typeof code === "string" ? code : null };
  } finally {
    client?.close();
  }
}

/**
 * The arguments that identify an agent's daemon process: `culture start <nick> --foreground`
 * (what `culture start` spawns, and what the systemd unit runs).
 */
export function daemonMarkers(nick: string): string[] {
  return ["start", nick, "--foreground"];
}

/** True when `pid` is alive and is the daemon of `nick` (checked on its command line). */
export function isAgentDaemon(pid: number, nick: string): boolean {
  return isOurProcess(pid, daemonMarkers(nick));
}

/** What is known about one agent's daemon, from its socket, its PID file and the process table. */
export interface AgentProcessState {
  nick: string;
  /** The daemon answered a `status` request on its socket. */
  answering: boolean;
  /** Something accepted the connection on its socket but did not answer in time: alive, but busy or wedged. */
  busy: boolean;
  /** Its status object when it answered. */
  status: Record<string, unknown> | null;
  /** The daemon's pid: from its answer, else from a PID file that points at this agent's daemon. */
  pid: number | null;
  /** A PID file whose process is not this agent's daemon (gone, or a reused pid). */
  stalePidFile: { path: string; pid: number | null } | null;
  /** A socket file nobody answers on, while no daemon of this agent is alive. */
  staleSocket: string | null;
}

/** Looks at one agent: asks its socket, reads its PID file, checks the process. */
export async function inspectAgent(nick: string, timeoutMs = 1000): Promise<AgentProcessState> {
  const reply = await requestAgent(nick, "status", {}, timeoutMs);
  const pidPath = agentPidPath(nick);
  const sock = socketPath(nick);
  const answered = reply.running && reply.ok && reply.data !== null;
  const reported = answered ? reply.data?.pid : undefined;
  let pid = typeof reported === "number" && Number.isSafeInteger(reported) ? reported : null;
  let stalePidFile: AgentProcessState["stalePidFile"] = null;
  const file = readPidFile(pidPath);
  if (file && isAgentDaemon(file.pid, nick)) pid ??= file.pid;
  else if (file && file.pid !== pid) stalePidFile = { path: pidPath, pid: file.pid };
  else if (!file && existsSync(pidPath)) stalePidFile = { path: pidPath, pid: null }; // unreadable or malformed
  const busy = !reply.running && reply.errorCode === "E_TIMEOUT";
  // Only a socket that refuses connections is stale: one that accepts belongs to a live process.
  const refused = !reply.running && reply.errorCode === "E_NOT_RUNNING";
  const staleSocket = !answered && pid === null && refused && existsSync(sock) ? sock : null;
  return { nick, answering: answered, busy, status: answered ? reply.data : null, pid, stalePidFile, staleSocket };
}

/**
 * Removes the stale files {@link inspectAgent} found and says what was removed, e.g.
 * `removed a stale PID file (pid 123 is not running) and socket`; null when there were none.
 */
export function cleanStaleFiles(state: AgentProcessState): string | null {
  const removed: string[] = [];
  if (state.stalePidFile && removeFile(state.stalePidFile.path)) {
    const { pid } = state.stalePidFile;
    const why = pid === null ? "unreadable" : `pid ${pid} is ${isProcessAlive(pid) ? "not a culture daemon" : "not running"}`;
    removed.push(`PID file (${why})`);
  }
  if (state.staleSocket && removeFile(state.staleSocket)) removed.push("socket");
  return removed.length ? `removed a stale ${removed.join(" and ")}` : null;
}
