/**
 * The control socket's token: 32 random bytes (hex) that a daemon writes to
 * `<state dir>/control.token` (0600) when it starts and removes when it stops. Every request
 * on the control socket carries it, so reaching the socket file is not enough: a caller must
 * also be able to read the agent's state folder, which the agent is never given (it is not
 * in its environment, the approvals policy never auto-allows the folder, and a sandbox does
 * not mount it). Node builtins only.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";

/** A new random token. */
export function newControlToken(): string {
  return randomBytes(32).toString("hex");
}

/**
 * Writes `token` to `path` with mode 0600, atomically (a temp file renamed over it), so a
 * reader never sees half a token. The folder must exist.
 */
export function writeControlToken(path: string, token: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${token}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}

/** The token in `path`, or null when there is none (no daemon, or not readable). */
export function readControlToken(path: string): string | null {
  try {
    const token = readFileSync(path, "utf8").trim();
    return /^[0-9a-f]{64}$/.test(token) ? token : null;
  } catch {
    return null;
  }
}

/** Removes `path` if it still holds `token` (not a successor daemon's). */
export function removeControlToken(path: string, token: string): void {
  if (readControlToken(path) !== token) return;
  try {
    unlinkSync(path);
  } catch {
    /* already gone */
  }
}

/** True when `given` is `expected`, compared in constant time. */
export function controlTokenMatches(expected: string, given: unknown): boolean {
  if (typeof given !== "string" || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}
