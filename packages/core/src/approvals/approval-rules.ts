/**
 * An agent's saved `always` rules: the patterns operators approved for good, one file per
 * agent (`$CULTURE_HOME/state/agent-<nick>/approval-rules.json`, 0600 in a 0700 folder), so
 * they survive restarts and can be listed and revoked (`culture approvals rules|revoke`).
 * Written whole to a temporary file and renamed, so a crash never leaves half a file; a file
 * that cannot be read is reported and kept aside, never silently emptied.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { errorMessage } from "../errors.js";
import type { Logger } from "../logger.js";
import { parsePattern, patternError, type PermissionPattern } from "./permission-pattern.js";

/** One saved rule. */
export interface ApprovalRule {
  pattern: string;
  /** Who answered `always` (an IRC account, or `local`). */
  added_by: string;
  /** Epoch seconds. */
  added_at: number;
}

/** The saved rules of one agent. */
export class ApprovalRules {
  private rules: ApprovalRule[] = [];
  private compiled: PermissionPattern[] = [];

  /** `path` null keeps the rules in memory only (tests, configs built in code). */
  constructor(
    private readonly path: string | null,
    private readonly logger: Logger,
  ) {
    this.load();
  }

  /** The file the rules live in, or null. */
  get file(): string | null {
    return this.path;
  }

  /** The rules, oldest first. */
  list(): ApprovalRule[] {
    return this.rules.map((r) => ({ ...r }));
  }

  /** The rules as patterns, for the policy. */
  patterns(): readonly PermissionPattern[] {
    return this.compiled;
  }

  /** Saves `pattern` (no-op when it is saved already). */
  add(pattern: string, by: string): void {
    parsePattern(pattern);
    if (this.rules.some((r) => r.pattern === pattern)) return;
    this.rules.push({ pattern, added_by: by, added_at: Math.floor(Date.now() / 1000) });
    this.save();
  }

  /** Removes `pattern`; false when it was not saved. */
  remove(pattern: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.pattern !== pattern);
    if (this.rules.length === before) return false;
    this.save();
    return true;
  }

  private load(): void {
    if (!this.path || !existsSync(this.path)) return;
    try {
      const data = JSON.parse(readFileSync(this.path, "utf8")) as { rules?: unknown };
      const rules = Array.isArray(data.rules) ? data.rules : [];
      for (const r of rules as ApprovalRule[]) {
        if (typeof r?.pattern !== "string" || patternError(r.pattern) !== null) {
          this.logger.warn(`ignored an invalid saved approval rule in ${this.path}`, { rule: r });
          continue;
        }
        this.rules.push({ pattern: r.pattern, added_by: String(r.added_by ?? "unknown"), added_at: Number(r.added_at) || 0 });
      }
    } catch (err) {
      const aside = `${this.path}.unreadable-${Date.now()}`;
      this.logger.error(`could not read the saved approval rules ${this.path} (${errorMessage(err)}); moved it to ${aside} and starting with none`);
      try {
        renameSync(this.path, aside);
      } catch {
        /* it stays where it is; the next save replaces it */
      }
      this.rules = [];
    }
    this.compiled = this.rules.map((r) => parsePattern(r.pattern));
  }

  private save(): void {
    this.compiled = this.rules.map((r) => parsePattern(r.pattern));
    if (!this.path) return;
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ version: 1, rules: this.rules }, null, 2)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.path);
  }
}
