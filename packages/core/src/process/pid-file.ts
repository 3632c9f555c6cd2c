/**
 * PID files and the "is this process ours?" check. A PID file holds the decimal pid on its
 * first line and, on the second, what the process is (`culture-agent <nick>`); signals go only
 * to a live process whose command line shows it is that culture daemon, so a reused pid never
 * hits an unrelated process.
 *
 * "Alive" excludes zombies: a detached daemon that has exited stays a zombie until whoever
 * inherited it reaps it (in containers whose init is slow to reap, for seconds), and
 * `kill(pid, 0)` succeeds on a zombie. On Linux the state letter in `/proc/<pid>/stat` says so.
 */
import { readdirSync, readFileSync, unlinkSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { writePrivateFile } from "../private-files.js";

/** What a PID file says. */
export interface PidFileContents {
  pid: number;
  /** The second line (e.g. `culture-agent spark-bot`), or null. */
  label: string | null;
}

/** Reads a PID file; null when missing or malformed. */
export function readPidFile(path: string): PidFileContents | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return null;
  }
  const [first, second] = text.split("\n");
  const pid = Number(first?.trim());
  if (!Number.isInteger(pid) || pid <= 0) return null;
  return { pid, label: second?.trim() || null };
}

/**
 * Writes this process's PID file: the pid on the first line and `label` (what the process is,
 * e.g. `culture-agent spark-bot`) on the second; 0600 in a 0700 folder (private-files.ts).
 */
export function writePidFile(path: string, label: string, pid: number = process.pid): void {
  writePrivateFile(path, `${pid}\n${label}\n`);
}

/** Removes a file, ignoring a missing one. Returns true when something was removed. */
export function removeFile(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch {
    return false;
  }
}

/** What `/proc/<pid>/stat` says about a process (Linux only). */
export interface ProcessStat {
  /** The state letter: R running, S sleeping, D disk wait, Z zombie, T stopped, X dead, ... */
  state: string;
  /** The parent's pid. */
  ppid: number;
  /** The process group id. */
  pgid: number;
  /**
   * When the process started, in clock ticks since boot (field 22): with the pid, what
   * identifies one process for good, since a reused pid starts later.
   */
  startTime: string;
}

/** The state, parent, process group and start time of a process from `/proc/<pid>/stat`; null when unreadable (gone, or not Linux). */
export function processStat(pid: number): ProcessStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // `pid (comm) state ppid pgrp ...`: comm may contain spaces and parentheses, so split after the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const [state, ppid, pgid] = fields;
  if (!state) return null;
  // Field 22 of the whole line; `fields` starts at field 3.
  return { state, ppid: Number(ppid), pgid: Number(pgid), startTime: fields[19] ?? "" };
}

/** True when a process with this pid exists, is not a zombie, and we may signal it. */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const stat = processStat(pid);
  return !(stat && (stat.state === "Z" || stat.state === "X"));
}

/**
 * True while some live (not zombie) process is in process group `pgid`. Reads /proc on Linux;
 * elsewhere asks the kernel with signal 0 (which also counts zombies).
 */
export function isProcessGroupAlive(pgid: number): boolean {
  if (!Number.isSafeInteger(pgid) || pgid <= 1) return false;
  const members = processGroupMembers(pgid);
  if (members !== null) return members.length > 0;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The live (not zombie) processes in process group `pgid`, from /proc; null where there is no
 * /proc to read (not Linux).
 */
export function processGroupMembers(pgid: number): number[] | null {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return null;
  }
  return names.filter((name) => {
    if (!/^\d+$/.test(name)) return false;
    const stat = processStat(Number(name));
    return stat !== null && stat.pgid === pgid && stat.state !== "Z" && stat.state !== "X";
  }).map(Number);
}

/** The argument vector of a process (argv[0] first), or null when it cannot be read. */
export function processArgv(pid: number): string[] | null {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    const argv = raw.split("\0");
    if (argv.at(-1) === "") argv.pop();
    return argv.length ? argv : null;
  } catch {
    // No /proc (macOS, BSD): ps gives the command line joined by spaces, the best there is.
    const line = processCommandLine(pid);
    return line ? line.split(/\s+/) : null;
  }
}

/** The command line of a process, its arguments joined by spaces, or null when it cannot be read. */
export function processCommandLine(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim() || null;
  } catch {
    try {
      return execFileSync("ps", ["-o", "command=", "-p", String(pid)], { encoding: "utf8" }).trim() || null;
    } catch {
      return null;
    }
  }
}

/**
 * True when `pid` is alive (not a zombie) and every one of `markers` is one whole argument of
 * its command line. For an agent daemon the markers are `start`, the nick and `--foreground`,
 * so `spark-a` does not match the daemon of `spark-ab`, and `sleep 30` matches nothing.
 */
export function isOurProcess(pid: number, markers: readonly string[]): boolean {
  if (!isProcessAlive(pid)) return false;
  const argv = processArgv(pid);
  if (!argv) return false;
  return markers.every((m) => argv.includes(m));
}
