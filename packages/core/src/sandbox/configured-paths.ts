/**
 * `sandbox.read_only` / `sandbox.read_write` as the kernel will see them: `~/` expanded with
 * the agent's HOME, relative paths taken from the agent's directory, `..` and symlinks resolved
 * before anything is bound (a `docs -> ~/.ssh` symlink is `~/.ssh`). An entry that is, holds,
 * or leads to a protected path is refused with E_SANDBOX_PATH, as is one that does not exist.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ProtectedPaths } from "../approvals/protected-paths.js";
import { realPath, realPathCandidates } from "../approvals/real-path.js";
import type { SandboxConfig } from "./sandbox-config.js";
import { sandboxPathRefused } from "./sandbox-errors.js";

/** One configured path, checked and resolved. */
export interface ConfiguredPath {
  /** The field it came from, e.g. `sandbox.read_write[0]`. */
  field: string;
  /** As written. */
  written: string;
  /** Its real path (what is bound). */
  real: string;
  access: "ro" | "rw";
}

/**
 * Checks and resolves a sandbox's `read_only` and `read_write` entries for an agent. Throws
 * E_SANDBOX_PATH for the first entry that is refused.
 */
export function configuredPaths(nick: string, spec: Pick<SandboxConfig, "read_only" | "read_write">, directory: string, home: string, protectedPaths: ProtectedPaths): ConfiguredPath[] {
  const out: ConfiguredPath[] = [];
  const lists: Array<[string, readonly string[], "ro" | "rw"]> = [
    ["sandbox.read_only", spec.read_only, "ro"],
    ["sandbox.read_write", spec.read_write, "rw"],
  ];
  for (const [key, list, access] of lists) {
    list.forEach((written, i) => {
      const field = `${key}[${i}]`;
      const path = written === "~" || written.startsWith("~/") ? join(home, written.slice(1)) : written;
      // Every reading of the text (the kernel's, a normalising tool's): each must be clean.
      for (const candidate of realPathCandidates(path, directory, home)) {
        const hit = protectedPaths.check(candidate, access === "rw" ? "write" : "read", directory);
        if (hit) {
          const where = hit.path === candidate ? "it is" : candidate.startsWith(`${hit.path}/`) ? `it is inside ${hit.path},` : `it holds ${hit.path},`;
          throw sandboxPathRefused(nick, field, written, `${where} a protected path (${hit.why})${candidate !== written ? ` [real path: ${candidate}]` : ""}`);
        }
      }
      const real = realPath(path, directory);
      if (!existsSync(real)) throw sandboxPathRefused(nick, field, written, `${real} does not exist`);
      out.push({ field, written, real, access });
    });
  }
  return out;
}
