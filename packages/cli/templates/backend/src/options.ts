/**
 * The agent fields this backend adds to an agent entry in agents.yaml (beside the common ones:
 * nick, directory, channels, model, ...). culture validates them with this schema and reports
 * problems one line per field, with a "Did you mean ...?" for typos — that is why it is strict.
 */
import { fileURLToPath } from "node:url";
import { z } from "zod";

/** The stand-in agent shipped with this package (see agent.mjs). */
export const STAND_IN_AGENT = fileURLToPath(new URL("../agent.mjs", import.meta.url));

/** The backend-specific fields of an agent entry. */
export const optionsSchema = z
  .object({
    /** argv of the agent CLI, e.g. ["my-agent", "--json"]. Default: the stand-in agent (agent.mjs). */
    command: z.array(z.string().min(1)).nonempty().optional(),
    /** Arguments added to `command` for one-shot answers (the supervisor's evaluator). */
    evaluate_args: z.array(z.string()).default(["--print"]),
    /** How long stop() waits after closing the agent's stdin before it kills the agent. */
    stop_grace_ms: z.number().int().min(0).default(2000),
  })
  .strict();

/** The parsed fields (defaults filled in). */
export type Options = z.infer<typeof optionsSchema>;

/** The agent's argv: the configured `command`, or the stand-in agent run by this Node. */
export function agentCommand(options: Options): string[] {
  return options.command ? [...options.command] : [process.execPath, STAND_IN_AGENT];
}
