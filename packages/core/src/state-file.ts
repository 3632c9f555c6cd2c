/**
 * What the daemon's JSON-lines state files (the prompt journal, the channel marks) share:
 * reading one line as a JSON object, and replacing the file so that a crash or power cut
 * leaves either the old file or the new one, never a torn mix: written to `<path>.tmp` (mode
 * 0600), fsync'd, renamed over the file, and the directory fsync'd.
 */
import { closeSync, fsyncSync, openSync, renameSync, writeSync, constants as fsConstants } from "node:fs";
import { dirname } from "node:path";

/** Replaces `path` with `body` atomically and durably (see the module comment). Throws what the filesystem throws. */
export function replaceFileDurably(path: string, body: string): void {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_TRUNC, 0o600);
  try {
    writeSync(fd, body);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  syncDir(dirname(path));
}

/** fsyncs a directory (so a rename in it is durable); not every filesystem supports it. */
function syncDir(dir: string): void {
  let fd = -1;
  try {
    fd = openSync(dir, fsConstants.O_RDONLY);
    fsyncSync(fd);
  } catch {
    /* not supported on every filesystem */
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/** The JSON object on one line of a state file, or null when the line is not one (a torn last line). */
export function parseJsonObject(line: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
