/**
 * Where a daemon's budget learns what was spent: its own agent's usage journal and, when a cap
 * is shared (home, channel, account), every other agent's journal under the culture home
 * (`$CULTURE_HOME/state/agent-<nick>/usage.jsonl`, one per agent: each daemon writes only its
 * own). At start the journals are read whole (the running totals are rebuilt from them); after
 * that {@link UsageFeed.poll} reads only what each file grew by since the last poll (one
 * `stat` per journal when nothing changed), so other agents' turns count before our next turn
 * starts. A journal that shrank or was replaced (compaction) is read again from the start; the
 * engine counts each turn id once.
 */
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../logger.js";
import { cultureHome } from "../paths.js";
import { parseUsageJournal } from "../usage/usage-journal.js";
import { spendOfRecord, type Spend } from "./spend.js";

/** Options of {@link UsageFeed}. */
export interface UsageFeedOptions {
  /** This agent's journal. */
  ownPath: string;
  /** Read every agent's journal under the home (a shared cap exists). */
  shared: boolean;
  env: NodeJS.ProcessEnv;
  logger: Logger;
}

/** Reads usage journals incrementally. */
export class UsageFeed {
  private readonly files = new Map<string, { ino: number; offset: number }>();

  constructor(private readonly o: UsageFeedOptions) {}

  /** The spends appended to the journals since the last call (all of them on the first call). */
  poll(): Spend[] {
    const out: Spend[] = [];
    for (const path of this.paths()) this.readNew(path, out);
    return out;
  }

  private paths(): string[] {
    if (!this.o.shared) return [this.o.ownPath];
    const state = join(cultureHome(this.o.env), "state");
    const out = new Set<string>([this.o.ownPath]);
    let names: string[] = [];
    try {
      names = readdirSync(state);
    } catch {
      /* no state folder yet */
    }
    for (const n of names) {
      if (!n.startsWith("agent-")) continue;
      const p = join(state, n, "usage.jsonl");
      if (this.files.has(p) || existsSync(p)) out.add(p);
    }
    return [...out];
  }

  private readNew(path: string, out: Spend[]): void {
    let st: { ino: number; size: number };
    try {
      st = statSync(path);
    } catch {
      return; // not written yet
    }
    let seen = this.files.get(path);
    if (!seen || seen.ino !== st.ino || st.size < seen.offset) seen = { ino: st.ino, offset: 0 };
    this.files.set(path, seen);
    if (st.size === seen.offset) return;
    let fd = -1;
    try {
      fd = openSync(path, "r");
      const buf = Buffer.alloc(st.size - seen.offset);
      const n = readSync(fd, buf, 0, buf.length, seen.offset);
      const text = buf.subarray(0, n).toString("utf8");
      const end = text.lastIndexOf("\n") + 1; // a line still being written waits for the next poll
      if (end === 0) return;
      const { entries } = parseUsageJournal(text.slice(0, end));
      seen.offset += Buffer.byteLength(text.slice(0, end));
      for (const e of entries) if (e.type === "turn") out.push(spendOfRecord(e));
    } catch (err) {
      this.o.logger.warn(`reading the usage journal ${path} failed: ${String(err)}`);
    } finally {
      if (fd >= 0) closeSync(fd);
    }
  }
}
