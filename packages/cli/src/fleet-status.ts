/**
 * `culture status` across configs: the daemons running under the culture home that the config
 * found from the cwd does not list, as status rows marked with the config they came from.
 */
import { agentNotFound, type AgentConfig, type CultureConfig } from "@culture/core";
import { loadConfigIfAny, runningDaemons } from "./fleet.js";

export { loadConfigIfAny };

/** A running daemon of another config, as the agent entry `agentStatus` takes. */
export interface OtherAgent extends AgentConfig {
  configFile: string | null;
}

/** The daemons running under the culture home that `config` does not list. */
export async function otherDaemons(config: CultureConfig | null): Promise<OtherAgent[]> {
  const listed = new Set((config?.agents ?? []).map((a) => a.nick.toLowerCase()));
  return (await runningDaemons())
    .filter((d) => !listed.has(d.nick.toLowerCase()))
    .map((d) => ({ nick: d.nick, agent: typeof d.state.status?.backend === "string" ? d.state.status.backend : "?", configFile: d.configFile }) as unknown as OtherAgent);
}

/** One agent by nick: from the config, else a running daemon of another config. */
export function pickAgent(config: CultureConfig | null, others: readonly OtherAgent[], nick: string): AgentConfig {
  const all: AgentConfig[] = [...(config?.agents ?? []), ...others];
  const found = all.find((a) => a.nick.toLowerCase() === nick.toLowerCase());
  if (!found) throw agentNotFound(nick, config?.filepath ?? "(no config found)", all.map((a) => a.nick));
  return found;
}

/** Adds `config` (the file each agent comes from) to the rows. */
export function markConfigs(rows: Array<Record<string, unknown>>, config: CultureConfig | null, others: readonly OtherAgent[]): void {
  for (const row of rows) {
    const other = others.find((o) => o.nick === row.nick);
    row.config = other ? other.configFile : (config?.filepath ?? null);
  }
}

/** The lines under the table naming the config of each agent the cwd's config does not list, or "". */
export function otherConfigsNote(rows: ReadonlyArray<Record<string, unknown>>, config: CultureConfig | null): string {
  const foreign = config ? rows.filter((r) => r.config !== config.filepath) : rows;
  if (foreign.length === 0) return "";
  const head = config ? `Not in ${config.filepath} (running under this culture home):` : "No config found from here; these daemons run under this culture home:";
  return `\n${head}\n${foreign.map((r) => `  ${String(r.nick)}: from ${String(r.config ?? "(config unknown)")}`).join("\n")}\n`;
}
