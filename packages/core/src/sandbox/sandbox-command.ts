/**
 * The one place an agent's argv becomes a sandboxed argv (issue #29). Every backend spawns its
 * agent through this (core's AgentProcess, the Claude SDK's spawn, the Copilot runtime's path
 * and args): `sandboxCommand(spec, argv, context)` returns the argv and environment to spawn.
 * With `sandbox: none` both come back unchanged.
 */
import type { ProtectedPaths } from "../approvals/protected-paths.js";
import { bwrapCommand } from "./bwrap-args.js";
import { podmanSandboxCommand } from "./podman-sandbox.js";
import type { SandboxConfig } from "./sandbox-config.js";

/**
 * The agent CLI's own config and session folders and files, declared by its backend
 * (`BackendDefinition.sandboxPaths`): bound read-write, credentials included (they are this
 * agent's own). A missing folder is created (0700) so the CLI's writes outlive the sandbox; a
 * missing file is left out.
 */
export interface SandboxAgentPaths {
  /** Folders, e.g. `~/.codex` (absolute). */
  dirs: readonly string[];
  /** Files, e.g. `~/.claude.json` (absolute). */
  files?: readonly string[];
  /** Folders or files the CLI only reads (e.g. its skills folder), bound read-only when they exist. */
  readOnly?: readonly string[];
}

/** One more bind the caller asks for (the seam for culture's own helpers, e.g. a model-API bridge). */
export interface SandboxBind {
  /** The path outside. */
  source: string;
  /** Where it appears inside (default: the same path). */
  target?: string;
  /** `ro` (default) or `rw`. */
  access?: "ro" | "rw";
}

/**
 * Extras a caller adds to one sandbox (`network: off` adds its model-API bridge here): binds,
 * environment entries for the agent, and raw bwrap arguments placed before the command.
 */
export interface SandboxExtra {
  binds?: readonly SandboxBind[];
  env?: Readonly<Record<string, string>>;
  args?: readonly string[];
}

/** What an agent's sandbox is built from (besides its `sandbox:` setting). */
export interface SandboxContext {
  /** The agent's nick (for error messages). */
  nick: string;
  /** The agent's directory (absolute): bound read-write. */
  directory: string;
  /** The working directory of the spawn (default: `directory`). */
  cwd?: string;
  /** The environment the agent process gets (its HOME, PATH, XDG_RUNTIME_DIR, CULTURE_HOME are read). */
  env: Record<string, string | undefined>;
  /** The daemon's IRC-tools socket (paths.ts socketPath): the one file of culture's bound inside. */
  toolsSocket: string;
  /** The agent's protected paths (approvals/protected-paths.ts): none is ever visible inside. */
  protectedPaths: ProtectedPaths;
  /** The agent CLI's own folders (from its backend). */
  agentPaths: SandboxAgentPaths;
  /** Seam: more binds / env / args (see {@link SandboxExtra}). */
  extra?: SandboxExtra;
}

/** The command to spawn: argv[0] is the program (bwrap for `sandbox: bwrap`). */
export interface SandboxedCommand {
  argv: string[];
  env: Record<string, string | undefined>;
}

/**
 * The argv and environment that run `argv` in the sandbox `spec` describes. Throws
 * E_SANDBOX_PATH for a refused `read_only`/`read_write` entry and E_SANDBOX_UNAVAILABLE when
 * the sandbox's program is missing (with the install command).
 */
export function sandboxCommand(spec: SandboxConfig, argv: readonly string[], context: SandboxContext): SandboxedCommand {
  switch (spec.kind) {
    case "none":
      return { argv: [...argv], env: { ...context.env } };
    case "bwrap":
      return bwrapCommand(spec, argv, context);
    case "podman":
      return podmanSandboxCommand(spec, argv, context);
  }
}
