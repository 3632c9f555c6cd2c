/**
 * The agent-entry fields the ACP backend adds to agents.yaml. They are validated by
 * {@link acpOptionsSchema} (strict, so a typo such as `acp_comand` is reported).
 */
import { z } from "zod";

/** What the runner answers when the agent asks permission to run a tool. */
export const PERMISSION_POLICIES = ["allow", "deny"] as const;

/** The ACP backend's fields of an agent entry. */
export const acpOptionsSchema = z
  .object({
    /** The command that starts the agent in ACP mode (argv, no shell). */
    acp_command: z.array(z.string().min(1)).nonempty().default(["opencode", "acp"]),
    /** Extra environment variables for the agent process (merged over the daemon's). */
    env: z.record(z.string(), z.string()).default({}),
    /** `allow` picks an allow option of every permission request; `deny` a reject option. */
    permission: z.enum(PERMISSION_POLICIES).default("allow"),
    /**
     * culture's retries of a turn whose model call failed for now (429, 503 ...), after the
     * agent's own: `auto` adds none for agents that retry by themselves (OpenCode, Gemini CLI)
     * and 3 for others (agent-retries.ts).
     */
    api_retries: z.union([z.literal("auto"), z.number().int().min(0).max(20)]).default("auto"),
    /** The first wait before such a retry; each retry doubles it (at most 60 s). */
    api_retry_delay_seconds: z.number().positive().max(600).default(5),
  })
  .strict();

/** The parsed ACP fields of an agent entry. */
export type AcpOptions = z.output<typeof acpOptionsSchema>;

/** A permission policy: `allow` or `deny`. */
export type PermissionPolicy = (typeof PERMISSION_POLICIES)[number];
