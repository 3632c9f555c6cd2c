/**
 * PID files and the "is this process ours?" check. A PID file holds the decimal pid on its
 * first line and, on the second, what the process is (`culture-agent <nick>`); signals go only
 * to a live process whose command line shows it is that culture daemon, so a reused pid never
 * hits an unrelated process.
 */
import { readFileSync, unlinkSync } from "node:fs";
import { execFileSync } from "node:child_process";

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

/** Removes a file, ignoring a missing one. Returns true when something was removed. */
export function removeFile(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch {
    return false;
  }
}

/** True when a process with this pid exists (and we may signal it). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The command line of a process, or null when it cannot be read. */
export function processCommandLine(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    try {
      return execFileSync("ps", ["-o", "command=", "-p", String(pid)], { encoding: "utf8" }).trim() || null;
    } catch {
      return null;
    }
  }
}

/**
 * True when `pid` is alive and its command line contains every one of `markers` (for an agent
 * daemon: the culture entry script, `start`, and the nick).
 */
export function isOurProcess(pid: number, markers: string[]): boolean {
  if (!isProcessAlive(pid)) return false;
  const cmd = processCommandLine(pid);
  if (!cmd) return false;
  return markers.every((m) => cmd.includes(m));
}
