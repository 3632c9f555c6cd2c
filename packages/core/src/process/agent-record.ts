/**
 * The record of the agent processes a daemon runs, so that the next daemon of the same agent
 * can end what a killed one left behind. A daemon killed with SIGKILL (or by the OOM killer)
 * runs no cleanup; an agent that does not exit at end of input (Gemini CLI with an MCP server
 * attached, or any agent whose children keep running) would live on unattended, one more
 * after every crash.
 *
 * The record is `<agent state dir>/agent-processes.json` (mode 0600, replaced atomically):
 * `{"agents":[{"pid":..,"pgid":..,"startTime":"..","argv":[..]}]}`, one entry per running
 * agent process, removed when that process exits, the file removed when none is left. At the
 * next start, {@link reapRecordedAgents} signals a recorded process only when it is alive AND
 * is the very process recorded: same start time (`/proc/<pid>/stat` field 22), or where that
 * cannot be read, the same argv. A pid the kernel has since handed to another process is left
 * alone.
 *
 * Which spawns are recorded: those made while a record is current ({@link withAgentRecord}),
 * i.e. every {@link AgentProcess} a runner starts, whatever its backend.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { readFileSync } from "node:fs";
import { errorMessage } from "../errors.js";
import type { Logger } from "../logger.js";
import { parseJsonObject, replaceFileDurably } from "../state-file.js";
import { isProcessAlive, isProcessGroupAlive, processArgv, processStat, removeFile } from "./pid-file.js";
import { sleep } from "./sleep.js";

/** One recorded agent process. */
export interface RecordedAgent {
  pid: number;
  /** The process group it leads (its pid), or null when it was not started as a group leader. */
  pgid: number | null;
  /** `/proc/<pid>/stat` field 22, or null where there is no /proc. */
  startTime: string | null;
  /** Its argv when it started ([] when unreadable). */
  argv: string[];
}

/** What {@link reapRecordedAgents} did with one recorded process. */
export interface ReapedAgent extends RecordedAgent {
  /** `ended` (signalled and gone), `gone` (not running), `not-ours` (its pid is now another process's). */
  outcome: "ended" | "gone" | "not-ours";
  /** The last signal it needed (SIGTERM or SIGKILL), when it was signalled. */
  signal: "SIGTERM" | "SIGKILL" | null;
}

const current = new AsyncLocalStorage<AgentProcessRecord>();

/** Runs `fn` with `record` as the record every agent process spawned inside it (and in what it starts) goes to. */
export function withAgentRecord<T>(record: AgentProcessRecord | null, fn: () => T): T {
  return record ? current.run(record, fn) : fn();
}

/** The record agent processes spawned now go to, if any. */
export function currentAgentRecord(): AgentProcessRecord | undefined {
  return current.getStore();
}

/** The live record of one daemon's agent processes (the only writer of its file). */
export class AgentProcessRecord {
  private readonly agents = new Map<number, RecordedAgent>();

  constructor(
    /** The record file. */
    readonly path: string,
    private readonly logger: Logger,
  ) {}

  /** Records a process just spawned (`leader`: it leads its own process group). */
  add(pid: number, leader: boolean): void {
    this.agents.set(pid, { pid, pgid: leader ? pid : null, startTime: processStat(pid)?.startTime ?? null, argv: processArgv(pid) ?? [] });
    this.write();
  }

  /** Forgets a process that exited. */
  remove(pid: number): void {
    if (this.agents.delete(pid)) this.write();
  }

  private write(): void {
    try {
      if (this.agents.size === 0) removeFile(this.path);
      else replaceFileDurably(this.path, `${JSON.stringify({ agents: [...this.agents.values()] })}\n`);
    } catch (err) {
      // Losing the record only loses the clean-up after a crash; the agent runs on.
      this.logger.warn(`could not write the agent process record: ${errorMessage(err)}`, { path: this.path });
    }
  }
}

/** The entries of a record file; [] when it is missing or unreadable. */
export function readAgentRecord(path: string): RecordedAgent[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  const agents = parseJsonObject(text.trim())?.agents;
  if (!Array.isArray(agents)) return [];
  return agents.flatMap((a: unknown) => {
    const o = a as Partial<RecordedAgent> | null;
    if (!o || !Number.isSafeInteger(o.pid) || (o.pid as number) <= 1) return [];
    const pgid = o.pgid === o.pid ? o.pid! : null;
    return [{ pid: o.pid!, pgid, startTime: typeof o.startTime === "string" ? o.startTime : null, argv: Array.isArray(o.argv) ? o.argv.map(String) : [] }];
  });
}

/** True when `pid` is alive and is the process `a` recorded (same start time, or same argv where start times cannot be read). */
export function isRecordedProcess(a: RecordedAgent): boolean {
  if (!isProcessAlive(a.pid)) return false;
  if (a.startTime !== null) return processStat(a.pid)?.startTime === a.startTime;
  const argv = processArgv(a.pid);
  return argv !== null && a.argv.length > 0 && argv.join("\0") === a.argv.join("\0");
}

/**
 * Ends what is left of the agent processes recorded in `path` by a daemon that did not clean
 * up (killed): for each one that is still the recorded process, SIGTERM to its process group
 * (or to it alone), then SIGKILL after `graceMs` if anything of it is left. Logs each one and
 * removes the file. Returns what it did.
 */
export async function reapRecordedAgents(path: string, logger: Logger, graceMs: number): Promise<ReapedAgent[]> {
  const recorded = readAgentRecord(path);
  const results: ReapedAgent[] = [];
  for (const a of recorded) {
    if (!isRecordedProcess(a)) {
      const outcome = isProcessAlive(a.pid) ? "not-ours" : "gone";
      if (outcome === "not-ours") logger.info(`not signalling pid ${a.pid}: it is no longer the agent a previous daemon started (its start time differs)`);
      results.push({ ...a, outcome, signal: null });
      continue;
    }
    logger.warn(`ending agent process ${a.pid} left running by a previous daemon that did not exit cleanly`, { argv: a.argv.join(" ") });
    results.push({ ...a, outcome: "ended", signal: await endRecorded(a, graceMs) });
  }
  removeFile(path);
  return results;
}

/** SIGTERM, then SIGKILL after `graceMs`; returns the last signal sent. */
async function endRecorded(a: RecordedAgent, graceMs: number): Promise<"SIGTERM" | "SIGKILL"> {
  // Once the group has no live member its id may be handed out again, so it is signalled only
  // while it has members without a break (the kernel does not reuse a pid that is a live group's id).
  const alive = () => (a.pgid !== null ? isProcessGroupAlive(a.pgid) : isRecordedProcess(a));
  const send = (signal: NodeJS.Signals) => {
    try {
      process.kill(a.pgid !== null ? -a.pgid : a.pid, signal);
    } catch {
      /* gone meanwhile */
    }
  };
  /** Resolves true once nothing of it is alive, false after `ms`. */
  const gone = async (ms: number) => {
    for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(50)) if (!alive()) return true;
    return !alive();
  };
  send("SIGTERM");
  if (await gone(graceMs)) return "SIGTERM";
  send("SIGKILL");
  // So the new agent starts after the old one is gone (a process stuck in the kernel may take longer: not waited for).
  await gone(graceMs);
  return "SIGKILL";
}
