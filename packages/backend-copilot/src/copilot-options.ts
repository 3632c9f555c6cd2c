/**
 * The agent-entry fields the Copilot backend adds to agents.yaml, validated by
 * {@link copilotOptionsSchema} (strict, so a typo such as `executible` is reported).
 */
import { z } from "zod";

/** The Copilot backend's fields of an agent entry. */
export const copilotOptionsSchema = z
  .object({
    /**
     * The Copilot runtime to run: a path (relative to the agent's directory), or a command
     * name looked up on PATH (`copilot`). Null: `COPILOT_CLI_PATH`, else the SDK's bundled
     * runtime, else `copilot` on PATH.
     */
    executable: z.string().min(1).nullable().default(null),
    /** Extra environment variables for the runtime process (merged over the daemon's). */
    env: z.record(z.string(), z.string()).default({}),
  })
  .strict();

/** The parsed Copilot fields of an agent entry. */
export type CopilotOptions = z.output<typeof copilotOptionsSchema>;
