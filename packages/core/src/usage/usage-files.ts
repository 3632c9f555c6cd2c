/**
 * Every agent's usage journal under a culture home (`$CULTURE_HOME/state/agent-<nick>/usage.jsonl`),
 * including agents no longer in any config: what `culture usage` and a home-wide budget read.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { cultureHome } from "../paths.js";
import { readUsageJournal, type UsageJournalContents } from "./usage-journal.js";

/** One agent's journal, read. */
export interface AgentUsageFile extends UsageJournalContents {
  nick: string;
  path: string;
}

/** Reads the usage journal of every agent under the culture home (agents without one are left out). */
export function readAllUsageJournals(env: NodeJS.ProcessEnv = process.env): AgentUsageFile[] {
  const state = join(cultureHome(env), "state");
  let dirs: string[];
  try {
    dirs = readdirSync(state).filter((d) => d.startsWith("agent-")).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  const out: AgentUsageFile[] = [];
  for (const dir of dirs) {
    const path = join(state, dir, "usage.jsonl");
    const contents = readUsageJournal(path);
    if (contents.entries.length || contents.skipped.length) out.push({ nick: dir.slice("agent-".length), path, ...contents });
  }
  return out;
}
