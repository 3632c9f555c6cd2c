/** The sandbox's errors (codes in errors.ts; one factory per condition). */
import { CultureError } from "../errors.js";

/**
 * A `sandbox.read_only` / `sandbox.read_write` entry culture will not bind: it is (or holds,
 * or leads through a symlink to) a protected path, or it does not exist.
 */
export function sandboxPathRefused(nick: string, field: string, path: string, reason: string): CultureError {
  return new CultureError(
    "E_SANDBOX_PATH",
    `agent ${nick}: ${field} "${path}" is refused: ${reason}.\n` +
      "A sandbox never shows protected paths (culture's credentials and state, ~/.ssh, other agents' directories, agent CLI credentials); " +
      `remove it from ${field.replace(/\[\d+\]$/, "")} or name a folder that holds none of them.`,
    { details: { nick, field, path, reason } },
  );
}

/** The sandbox cannot run here (bwrap missing, user namespaces refused, a kind not built in). */
export function sandboxUnavailable(kind: string, detail: string, fix: string): CultureError {
  return new CultureError("E_SANDBOX_UNAVAILABLE", `sandbox ${kind} cannot run: ${detail}\n${fix}`, { details: { kind, detail } });
}
