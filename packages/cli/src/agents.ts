/** Shared helpers of the fleet commands (start, stop, status, pause, resume). */
import { agentNotFound, usageError, type AgentConfig, type CultureConfig } from "@culture/core";
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
  const agent = config.agents.find((a) => a.nick.toLowerCase() === nick.toLowerCase());
  if (!agent) throw agentNotFound(nick, config.filepath ?? "(config)", config.agents.map((a) => a.nick));
  return [agent];
}

/** The result of one IPC request to an agent's daemon: null data when it is not running. */
export interface AgentReply {
  running: boolean;
  ok: boolean;
  data: Record<string, unknown> | null;
  error: string | null;
}

/** Sends one IPC request to a daemon with a short timeout; a daemon that does not answer counts as not running. */
export async function requestAgent(nick: string, type: string, fields: Record<string, unknown> = {}, timeoutMs = 1500): Promise<AgentReply> {
  let client: IpcClient | null = null;
  try {
    client = await IpcClient.connect(socketPath(nick), { timeoutMs });
    // observer: these connections are ours, not the agent's: they must never consume whispers.
    const res = await client.request(type, { ...fields, observer: true }, { timeoutMs });
    return { running: true, ok: res.ok, data: (res.data as Record<string, unknown> | undefined) ?? null, error: res.error ?? null };
  } catch (err) {
    return { running: false, ok: false, data: null, error: err instanceof Error ? err.message : String(err) };
  } finally {
    client?.close();
  }
}
