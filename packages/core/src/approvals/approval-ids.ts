/**
 * Approval request ids: a per-agent counter (`1`, `2`, ... — short to type), persisted in the
 * agent's state folder (`$CULTURE_HOME/state/agent-<nick>/approval-ids.json`, 0600), so an id
 * is never handed out twice in the agent's lifetime, across daemon restarts: a late answer to
 * an old request can never hit a new one. The next number is saved before an id is used.
 * Two agents can have the same id at once; answers name the agent (approval-names.ts).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { errorMessage } from "../errors.js";
import type { Logger } from "../logger.js";

/** Hands out one agent's approval ids. */
export class ApprovalIds {
  private next = 1;

  /** `path` null counts in memory only (configs built in code, tests without state). */
  constructor(
    private readonly path: string | null,
    private readonly logger: Logger,
  ) {
    this.load();
  }

  /** The next id; never one handed out before by this agent (with a state folder). */
  take(): string {
    const id = this.next++;
    this.save();
    return String(id);
  }

  /** The id {@link take} would hand out next (tests, docs). */
  peek(): string {
    return String(this.next);
  }

  private load(): void {
    if (!this.path || !existsSync(this.path)) return;
    try {
      const data = JSON.parse(readFileSync(this.path, "utf8")) as { next?: unknown };
      if (typeof data.next !== "number" || !Number.isSafeInteger(data.next) || data.next < 1) throw new Error(`"next" is ${JSON.stringify(data.next)}, not a positive whole number`);
      this.next = data.next;
    } catch (err) {
      // Never start over at 1: that would reuse ids. Jump past any id a counter could have reached.
      this.next = Math.floor(Date.now() / 60_000);
      this.logger.error(`could not read the approval id counter ${this.path} (${errorMessage(err)}); continuing from ${this.next}`);
    }
  }

  private save(): void {
    if (!this.path) return;
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      const tmp = `${this.path}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify({ version: 1, next: this.next })}\n`, { mode: 0o600 });
      chmodSync(tmp, 0o600);
      renameSync(tmp, this.path);
    } catch (err) {
      this.logger.error(`could not save the approval id counter ${this.path} (${errorMessage(err)}); ids stay unique until the daemon restarts`);
    }
  }
}
