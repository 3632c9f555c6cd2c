/**
 * The agent-entry fields the Codex backend adds to agents.yaml, validated by
 * {@link codexOptionsSchema} (strict, so a typo such as `sandbx` is reported).
 */
import { z } from "zod";
import { CHANNEL_ACCESS_MODES } from "./channel-access.js";

/** Codex's sandbox modes (`thread/start.sandbox`, kebab-case on the wire). */
export const SANDBOX_MODES = ["read-only", "workspace-write", "danger-full-access"] as const;

/** A Codex sandbox mode. */
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** The Codex backend's fields of an agent entry. */
export const codexOptionsSchema = z
  .object({
    /** The Codex CLI: a program on PATH, or a path (relative to the agent's directory). Null: `codex`. */
    executable: z.string().min(1).nullable().default(null),
    /**
     * What Codex's own sandbox lets the agent's commands touch. Null: `workspace-write`, or
     * `danger-full-access` when the agent runs in culture's `sandbox:` (see {@link codexSandboxMode}).
     * (Named `sandbox` before culture's own `sandbox:` existed.)
     */
    codex_sandbox: z.enum(SANDBOX_MODES).nullable().default(null),
    /**
     * How the agent's `culture channel` reaches the daemon through the sandbox: `exec-rule` (a
     * Codex rule lets exactly `culture channel ...` run outside it), `network` (network access
     * for the whole workspace sandbox), `none`. Ignored with `danger-full-access`.
     */
    channel_access: z.enum(CHANNEL_ACCESS_MODES).default("exec-rule"),
    /** Extra environment variables for the app-server process (merged over the daemon's). */
    env: z.record(z.string(), z.string()).default({}),
  })
  .strict();

/** The parsed Codex fields of an agent entry. */
export type CodexOptions = z.output<typeof codexOptionsSchema>;

/** The program culture runs for the options: `executable`, or `codex` on PATH. */
export function codexProgram(options: Pick<CodexOptions, "executable"> | undefined): string {
  return options?.executable ?? "codex";
}

/**
 * Codex's own sandbox mode for an agent: `codex_sandbox` when set; else `danger-full-access`
 * when culture runs Codex in its own sandbox (`boxed`: `sandbox: bwrap|podman`), because Codex's
 * Linux sandbox needs user namespaces that a bubblewrap box does not give ("bwrap: setting up
 * uid map: Operation not permitted") and culture's box is the boundary then; else
 * `workspace-write`.
 */
export function codexSandboxMode(options: Pick<CodexOptions, "codex_sandbox">, boxed: boolean): SandboxMode {
  return options.codex_sandbox ?? (boxed ? "danger-full-access" : "workspace-write");
}
