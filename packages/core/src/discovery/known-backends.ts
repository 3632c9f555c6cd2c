/**
 * The backends culture knows by name, and the command that installs each. `acp` ships inside
 * the `culture` package; `claude`, `codex` and `copilot` are separate packages (they pull large
 * agent SDKs) that `culture backend add <name>` installs on demand.
 */
import { BACKEND_PACKAGE_PREFIX, BUILTIN_SCOPE } from "./candidates.js";

/** Backends that come with the `culture` package itself. */
export const BUNDLED_BACKENDS = ["acp"] as const;
/** Culture's own backends that are installed on demand (`@culture/backend-<name>`). */
export const INSTALLABLE_BACKENDS = ["claude", "codex", "copilot"] as const;
/** Every backend culture publishes, bundled or not. */
export const KNOWN_BACKENDS: readonly string[] = [...BUNDLED_BACKENDS, ...INSTALLABLE_BACKENDS];

/**
 * ACP agents people name as if they were backends (`agent: opencode`), with the `acp_command`
 * that runs each under the `acp` backend (docs/backends/acp.md, "Known ACP agents").
 */
export const ACP_AGENTS: Readonly<Record<string, readonly string[]>> = {
  opencode: ["opencode", "acp"],
  gemini: ["gemini", "--experimental-acp"],
  "gemini-cli": ["gemini", "--experimental-acp"],
  cline: ["cline", "--acp"],
  kiro: ["kiro-cli", "acp"],
  "kiro-cli": ["kiro-cli", "acp"],
};

/** A package spec split into its name and version range (`foo@1.2` -> foo, 1.2). */
export interface PackageSpec {
  name: string;
  version: string | null;
}

/**
 * The npm package `culture backend add <name>` installs: culture's own backends
 * (`claude` -> `@culture/backend-claude`), a full package name as is (`culture-backend-foo`,
 * `@acme/culture-backend-foo`, `@acme/anything`), `@culture/foo` -> `@culture/backend-foo`,
 * anything else -> `culture-backend-<name>`. A trailing `@version` is kept apart.
 */
export function backendPackageFor(name: string): PackageSpec {
  const trimmed = name.trim();
  const at = trimmed.lastIndexOf("@");
  const base = at > 0 ? trimmed.slice(0, at) : trimmed;
  const version = at > 0 ? trimmed.slice(at + 1) || null : null;
  if (KNOWN_BACKENDS.includes(base)) return { name: `${BUILTIN_SCOPE}/backend-${base}`, version };
  if (base.startsWith(`${BUILTIN_SCOPE}/`)) {
    const rest = base.slice(BUILTIN_SCOPE.length + 1);
    return { name: rest.startsWith("backend-") ? base : `${BUILTIN_SCOPE}/backend-${rest}`, version };
  }
  if (base.startsWith("@") || base.startsWith(BACKEND_PACKAGE_PREFIX)) return { name: base, version };
  return { name: `${BACKEND_PACKAGE_PREFIX}${base}`, version };
}

/** The command that installs the backend an `agent:` value names (`culture backend add claude`). */
export function installCommandFor(agent: string): string {
  return `culture backend add ${agent.trim()}`;
}
