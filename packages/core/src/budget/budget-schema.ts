/**
 * The `budget:` section of agents.yaml (docs/budgets.md "Budgets") and an agent entry's own
 * `budget:`. A cap is tokens and/or US dollars per day, week or month; caps exist for one
 * agent (its entry), for a channel, for an asking account and for the whole culture home (the
 * top-level section). Periods are counted in one time zone, stated in the config or the
 * machine's. Validation errors name the field (the config loader prints the key path).
 */
import { z } from "zod";
import { isTimeZone } from "../time-zone.js";

/** The periods a cap can count over. */
export const BUDGET_PERIODS = ["day", "week", "month"] as const;
/** One period. */
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/** One cap: tokens and/or USD per period. */
export const budgetCapSchema = z
  .object({
    /** Tokens of every kind the agent reported (input, output, cache read and write, reasoning). */
    tokens: z.number().int().positive().optional(),
    /** US dollars, from the agent's reported cost or the `prices:` table. */
    usd: z.number().positive().optional(),
    per: z.enum(BUDGET_PERIODS, { error: 'a period: "day", "week" or "month"' }),
    /** Abort a turn in flight once it passes the cap (without it, the turn finishes and the next one waits). */
    hard_stop: z.boolean().optional(),
  })
  .strict()
  .refine((c) => c.tokens !== undefined || c.usd !== undefined, { message: "a cap needs tokens or usd (or both), e.g. { usd: 5, per: day }" });
/** One cap as written. */
export type BudgetCapConfig = z.infer<typeof budgetCapSchema>;

/** One cap or a list, as written. */
export type BudgetCapsConfig = BudgetCapConfig | [BudgetCapConfig, ...BudgetCapConfig[]];
const capListSchema = z.array(budgetCapSchema).nonempty();
/**
 * A cap, or several (e.g. a daily and a monthly one). Parsed by hand rather than as a zod union,
 * whose only message for a bad cap is "Invalid input": this way the error names the field.
 */
const capsSchema = z.unknown().transform((value, ctx): BudgetCapsConfig => {
  const r = Array.isArray(value) ? capListSchema.safeParse(value) : budgetCapSchema.safeParse(value);
  if (r.success) return r.data as BudgetCapsConfig;
  for (const issue of r.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path, input: value });
  return z.NEVER;
});

/** An agent entry's `budget:`. */
export const agentBudgetSchema = capsSchema.nullable().default(null);

/** The top-level `budget:` section. */
export const budgetSchema = z
  .object({
    /**
     * The time zone periods are counted in (an IANA name); unset, the machine's, looked up
     * when a budget first counts (time-zone.ts `machineTimeZone`): the lookup loads ICU's time-zone
     * data (about 5 MiB of RSS), which a daemon without budgets should not pay for (issue 30).
     */
    time_zone: z
      .string()
      .refine(isTimeZone, { message: 'an IANA time zone like "Europe/Berlin" or "UTC"' })
      .optional(),
    /** The default of every cap's `hard_stop`. */
    hard_stop: z.boolean().default(false),
    /** The whole culture home: every agent's turns together. */
    home: capsSchema.nullable().default(null),
    /** Per channel (`"#general": {...}`): the turns asked in that channel, by any agent. */
    channels: z
      .record(z.string(), capsSchema)
      .superRefine((rec, ctx) => {
        for (const key of Object.keys(rec)) if (!/^[#&][^\s,]+$/.test(key)) ctx.addIssue({ code: "custom", message: `"${key}" is not a channel name like #general (quote it in YAML: "#general")`, path: [key] });
      })
      .default({}),
    /** Per asking IRC account (`alice: {...}`): the turns that account asked for, from any agent. */
    accounts: z.record(z.string().min(1), capsSchema).default({}),
    /** Tokens one agent-to-agent chain may spend before a further agent mention is refused (a human message starts a new chain). */
    chain_tokens: z.number().int().positive().nullable().default(null),
  })
  .strict();
/** The top-level budget section, defaults filled in. */
export type BudgetConfig = z.infer<typeof budgetSchema>;
