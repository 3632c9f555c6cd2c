/**
 * What a test daemon metered, read back from its usage journal: real-CLI tests compare it with
 * what the scripted model API reported (`api.servedUsage()`).
 */
import { agentStateDir } from "../paths.js";
import { readUsageJournal } from "../usage/usage-journal.js";
import type { UsageRecord } from "../usage/usage-record.js";
import { join } from "node:path";

/** The turn records in the usage journal of the daemon `d` (oldest first). */
export function meteredTurns(d: { nick: string; env: NodeJS.ProcessEnv }): UsageRecord[] {
  return readUsageJournal(join(agentStateDir(d.nick, d.env), "usage.jsonl")).entries.filter((e): e is UsageRecord => e.type === "turn");
}
