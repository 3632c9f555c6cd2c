/**
 * What a stopping daemon leaves behind in its own process group. `culture start` (and systemd)
 * start a daemon as the leader of its own process group, and every process it starts that does
 * not make a group of its own is in it: an agent CLI started by its SDK, and whatever that agent
 * ran. An agent that exits without ending a tool it started (a shell still looping, a server it
 * launched) left that process running after `culture stop`, unattended, for good. Once the
 * daemon has stopped everything it runs, {@link endOwnProcessGroup} ends what is still in its
 * group.
 *
 * Only the daemon's own group, and only when it leads it: a daemon run in a terminal
 * (`culture start <nick> --foreground` typed in a shell) is in the shell job's group, with the
 * user's other commands, and ends nothing. A process that made its own group or session
 * (setsid) is not in it and is left alone. Linux (/proc); elsewhere nothing is done.
 */
import type { Logger } from "../logger.js";
import { processCommandLine, processGroupMembers, processStat } from "./pid-file.js";
import { sleep } from "./sleep.js";

/** The processes {@link endOwnProcessGroup} ended, and the last signal each needed. */
export interface EndedProcess {
  pid: number;
  /** Its command line when it was found (null when unreadable). */
  command: string | null;
  signal: "SIGTERM" | "SIGKILL";
}

/**
 * Ends every other live process in the group this process leads: SIGTERM, then SIGKILL to what
 * is left after `graceMs`. Logs each one. Returns them ([] when this process leads no group).
 */
export async function endOwnProcessGroup(logger: Logger, graceMs: number): Promise<EndedProcess[]> {
  const self = process.pid;
  if (processStat(self)?.pgid !== self) return [];
  // Only a process of this daemon's session (it leads one: started detached) can be in this
  // group; each pid is looked at again right before it is signalled, in case it exited meanwhile.
  const others = () => (processGroupMembers(self) ?? []).filter((pid) => pid !== self);
  const ended = new Map<number, EndedProcess>();
  /** Signals every process in the group now (one started meanwhile too); false when none is left. */
  const signalAll = (signal: EndedProcess["signal"]) => {
    const pids = others();
    for (const pid of pids) {
      const known = ended.get(pid);
      if (known?.signal === signal || processStat(pid)?.pgid !== self) continue;
      ended.set(pid, { pid, command: known?.command ?? processCommandLine(pid), signal });
      try {
        process.kill(pid, signal);
      } catch {
        /* gone meanwhile */
      }
    }
    return pids.length > 0;
  };
  const settle = async (signal: EndedProcess["signal"]) => {
    for (const deadline = Date.now() + graceMs; signalAll(signal) && Date.now() < deadline; ) await sleep(50);
  };
  if (!signalAll("SIGTERM")) return [];
  await settle("SIGTERM");
  if (others().length > 0) await settle("SIGKILL");
  const list = [...ended.values()];
  for (const p of list) logger.warn(`ended process ${p.pid} left running in the daemon's process group (${p.signal})`, { command: p.command ?? "unknown" });
  return list;
}
