/**
 * The server's files are its owner's alone: history holds every channel line, the PID file and
 * the channel registry say what runs. Created 0600 in 0700 folders whatever the umask, and
 * tightened again when an existing one (an older server wrote 0644) is opened. A copy of
 * `@culture/core`'s private-files.ts: this package has no dependencies.
 */
import { chmodSync, mkdirSync, statSync } from "node:fs";

/** Creates `dir` (and missing parents) 0700; an existing `dir` with group or other bits is chmod'ed 0700. */
export function ensurePrivateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
  return dir;
}

/** chmod 0600 when `path` has group or other bits; a missing file is fine. */
export function tightenFile(path: string): void {
  try {
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  } catch {
    /* gone, or not ours to change */
  }
}
