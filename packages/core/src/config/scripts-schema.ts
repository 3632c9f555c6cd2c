/**
 * The `scripts:` of an agent entry (docs/schedules.md "Lifecycle scripts"): programs the daemon
 * runs around its agent's turns, like agent-kernel's pre-tick / post-tick / pre-stop hooks.
 * Each list entry is an executable file or a folder (its executable files run in sorted
 * filename order); relative paths are read from the agent's directory.
 */
import { z } from "zod";

const scriptList = z.array(z.string().min(1)).default([]);

/** One agent's lifecycle scripts. */
export const scriptsSchema = z
  .object({
    /** Before each turn; their stdout lines are added to the prompt as context. */
    before_turn: scriptList,
    /** After each turn, with its status, duration, last message and session id in the environment. */
    after_turn: scriptList,
    /** When the daemon stops, before the agent does. */
    before_stop: scriptList,
    /** A script running longer is killed (and the daemon carries on). */
    timeout_seconds: z.number().positive().max(3600).default(60),
  })
  .strict();

/** An agent's lifecycle scripts, defaults filled in. */
export type ScriptsConfig = z.infer<typeof scriptsSchema>;
