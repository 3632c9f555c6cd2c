/**
 * `<state dir>/budget.json` (0600): what operators changed on the agent's caps this period
 * (raises, resets) and which alerts went out, so a daemon killed with -9 neither forgets a raise
 * nor alerts the same threshold twice. The totals themselves are not stored here: they are
 * rebuilt from the usage journals. Written atomically (state-file.ts) only when it changes.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../logger.js";
import { agentStateDir, ensureAgentStateDir } from "../paths.js";
import { replaceFileDurably } from "../state-file.js";
import type { CapOverride } from "./budget-engine.js";

/** The budget state file of one agent. */
export class BudgetStore {
  readonly path: string;
  private last = "";

  constructor(
    private readonly nick: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly logger: Logger,
  ) {
    this.path = join(agentStateDir(nick, env), "budget.json");
  }

  /** The saved overrides (none when the file is missing or unreadable, which is logged). */
  load(): Record<string, CapOverride> {
    try {
      const data = JSON.parse(readFileSync(this.path, "utf8")) as { caps?: Record<string, CapOverride> };
      this.last = JSON.stringify(data.caps ?? {});
      return data.caps ?? {};
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") this.logger.warn(`could not read ${this.path}; budget raises and sent alerts start afresh`, { error: String(err) });
      return {};
    }
  }

  /** Saves the overrides when they changed. Never throws (a failure is logged). */
  save(caps: Record<string, CapOverride>): void {
    const body = JSON.stringify(caps);
    if (body === this.last) return;
    try {
      ensureAgentStateDir(this.nick, this.env);
      replaceFileDurably(this.path, `${JSON.stringify({ v: 1, caps }, null, 1)}\n`);
      this.last = body;
    } catch (err) {
      this.logger.warn(`could not save ${this.path}: ${String(err)}`);
    }
  }
}
