/**
 * The agent-entry fields the Claude backend adds to agents.yaml, validated by
 * {@link claudeOptionsSchema} (strict, so a typo such as `permision_mode` is reported with a
 * did-you-mean).
 */
import { z } from "zod";

/** Claude Code's permission modes (the SDK's `PermissionMode`). */
export const PERMISSION_MODES = ["bypassPermissions", "acceptEdits", "default", "plan", "dontAsk", "auto"] as const;

/** One of {@link PERMISSION_MODES}. */
export type PermissionMode = (typeof PERMISSION_MODES)[number];

const toolList = z.array(z.string().min(1)).default([]);

/** The Claude backend's fields of an agent entry. */
export const claudeOptionsSchema = z
  .object({
    /**
     * The Claude Code CLI to run: a path (relative to the agent's directory), or a program on
     * PATH. A `.js`/`.mjs` file is run with node. Default: the CLI bundled with the SDK.
     */
    executable: z.string().min(1).nullable().default(null),
    /**
     * Claude Code's own permission mode when culture's `permissions` mode is `bypass`; unset
     * means bypassPermissions. With `permissions` mode ask or allowlist, Claude Code runs in
     * `default` mode and asks culture instead (see claude-permissions.ts).
     */
    permission_mode: z.enum(PERMISSION_MODES).nullable().default(null),
    /** After a crash, resume the previous Claude Code session (`--resume`) instead of starting a new one. */
    resume_on_restart: z.boolean().default(true),
    /** Tools allowed without asking (Claude Code's `allowedTools`, e.g. `Bash(git:*)`). */
    allowed_tools: toolList,
    /** Tools removed from the agent (Claude Code's `disallowedTools`). */
    disallowed_tools: toolList,
    /** Extra environment variables for Claude Code (merged over the daemon's). */
    env: z.record(z.string(), z.string()).default({}),
    /** How many times a turn that failed with a temporary API error (overloaded, rate limit, network) is retried. */
    api_retries: z.number().int().min(0).max(20).default(3),
    /** Seconds before the first retry; each further retry waits twice as long (at most 60 s). */
    api_retry_delay_seconds: z.number().positive().max(600).default(5),
  })
  .strict();

/** The parsed Claude fields of an agent entry. */
export type ClaudeOptions = z.output<typeof claudeOptionsSchema>;
