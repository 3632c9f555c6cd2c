/**
 * Files only their owner may read. culture's logs hold every prompt, DM and tool call; its PID
 * files, state and credentials say what runs and as whom. So everything culture writes under
 * `$CULTURE_HOME` is created 0600 in a 0700 folder, whatever the umask, and an existing file or
 * folder that someone loosened (or an older culture created 0644) is tightened again the next
 * time culture opens it. Node builtins only: `paths.ts` (loaded by `culture channel`) uses it.
 *
 * The embedded server (`@culture/server`, no dependencies) has its own copy of these few lines
 * in `packages/server/src/private-files.ts`.
 */
import { chmodSync, fchmodSync, fstatSync, mkdirSync, openSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** The mode of culture's folders. */
export const PRIVATE_DIR_MODE = 0o700;
/** The mode of culture's files. */
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` (and missing parents) 0700; an existing `dir` with group or other bits is chmod'ed 0700. Returns `dir`. */
export function ensurePrivateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, PRIVATE_DIR_MODE);
  return dir;
}

/** chmod 0600 when `path` has group or other bits; a missing file is fine. */
export function tightenFile(path: string): void {
  try {
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, PRIVATE_FILE_MODE);
  } catch {
    /* gone, or not ours to change */
  }
}

/**
 * Opens `path` for appending (a log), creating it 0600 in a 0700 folder; an existing file is
 * tightened to 0600. Returns the file descriptor (the caller closes it).
 */
export function openPrivateAppend(path: string): number {
  ensurePrivateDir(dirname(path));
  const fd = openSync(path, "a", PRIVATE_FILE_MODE);
  if ((fstatSync(fd).mode & 0o077) !== 0) fchmodSync(fd, PRIVATE_FILE_MODE);
  return fd;
}

/** Writes `content` to `path` (0600, its folder 0700), tightening a file that was already there. */
export function writePrivateFile(path: string, content: string): void {
  ensurePrivateDir(dirname(path));
  writeFileSync(path, content, { mode: PRIVATE_FILE_MODE });
  tightenFile(path);
}
