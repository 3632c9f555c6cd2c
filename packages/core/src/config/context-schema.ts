/**
 * `context:` (top level, and per agent to override it): when culture warns an agent that its
 * context window is filling up, and when it compacts it (docs/schedules.md "Context care").
 * Shares are fractions of the window the backend reports (0.7 = 70 %).
 */
import { z } from "zod";

// Custom checks rather than .gt/.max, so the message says what the number means (70 is a
// likely mistake for 0.7).
const share = z
  .number()
  .refine((v) => v > 0, { message: "must be above 0: a share of the context window, e.g. 0.7 for 70 %" })
  .refine((v) => v <= 1, { message: "must be at most 1: a share of the context window, e.g. 0.7 for 70 % (not 70)" });

/** Context care settings. */
export const contextSchema = z
  .object({
    /** Whisper a warning to the agent once its context reaches this share (once per crossing); null: never. */
    warn_at: share.nullable().default(0.7),
    /** Compact the agent's context after the turn in which it reached this share; null (default): never. */
    compact_at: share.nullable().default(null),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.warn_at !== null && c.compact_at !== null && c.compact_at < c.warn_at)
      ctx.addIssue({ code: "custom", path: ["compact_at"], message: `is ${c.compact_at}, below warn_at (${c.warn_at}): compacting before the warning would hide it; raise compact_at or lower warn_at` });
  });

/** Context care settings, defaults filled in. */
export type ContextConfig = z.infer<typeof contextSchema>;

/** The defaults (warn at 70 %, never compact). */
export const DEFAULT_CONTEXT_CONFIG: ContextConfig = { warn_at: 0.7, compact_at: null };
