/**
 * The `schedules:` of an agent entry (docs/schedules.md): prompts the daemon sends its agent on
 * its own, from a cron expression or once at a given time. Cron expressions and time zones are
 * checked here with the same parser the daemon runs them with (croner), so `culture config
 * check` and `culture start` reject a bad one naming its key path, before any daemon starts.
 */
import { z } from "zod";
import { cronClass } from "./croner.js";
import { isTimeZone, machineTimeZone } from "../time-zone.js";

/** `30`, `"90s"`, `"15m"`, `"2h"`, `"1d"`: a duration as seconds. */
const durationSeconds = z.union([
  z.number().int().min(0),
  z
    .string()
    .regex(/^\d+\s*[smhd]$/, "a duration like 90s, 15m, 2h or 1d (or a number of seconds)")
    .transform((s) => Number.parseInt(s, 10) * { s: 1, m: 60, h: 3600, d: 86_400 }[s.trim().slice(-1) as "s" | "m" | "h" | "d"]),
]);

/** One entry of `schedules:`. */
export const scheduleSchema = z
  .object({
    /** Unique per agent: `culture schedule run <nick> <name>` and the state file use it. */
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, "a short name: letters, digits, '.', '_' or '-' (at most 64)"),
    /** A cron expression (5 fields, or 6 with seconds first), read in `timezone`. */
    cron: z.string().min(1).optional(),
    /** One run at this local time in `timezone` (`2026-12-01T09:00`), or an instant with `Z`/an offset. */
    at: z.string().min(1).optional(),
    /** IANA time zone; default: the machine's. */
    timezone: z.string().min(1).optional(),
    /** The prompt the agent gets (the line starts with `[schedule <name>]`). */
    prompt: z.string().min(1),
    /** Where the reply goes (relayed like a mention's): one of the agent's channels, or a nick. Default: the agent's first channel. */
    channel: z.string().min(1).optional(),
    /** A run missed while the daemon was down fires once at the next start if it is at most this old. Default 1h. */
    catch_up: durationSeconds.default(3600),
    /** Start paused (`culture schedule resume` starts it). */
    paused: z.boolean().default(false),
  })
  .strict()
  .superRefine((s, ctx) => {
    if ((s.cron === undefined) === (s.at === undefined)) {
      ctx.addIssue({ code: "custom", path: ["cron"], message: "give exactly one of cron: (repeating) or at: (once)" });
      return;
    }
    if (s.timezone !== undefined && !isTimeZone(s.timezone)) {
      ctx.addIssue({ code: "custom", path: ["timezone"], message: `unknown time zone "${s.timezone}" (an IANA name such as Europe/Berlin, America/New_York or UTC)` });
      return;
    }
    const field = s.cron !== undefined ? "cron" : "at";
    const problem = cronProblem(s.cron ?? s.at!, s.timezone ?? machineTimeZone(), field);
    if (problem) ctx.addIssue({ code: "custom", path: [field], message: problem });
  });

/** One schedule, defaults filled in. */
export type ScheduleConfig = z.infer<typeof scheduleSchema>;

/** The `schedules:` list: names unique. */
export const schedulesSchema = z.array(scheduleSchema).superRefine((list, ctx) => {
  const seen = new Set<string>();
  list.forEach((s, i) => {
    const key = s.name.toLowerCase();
    if (seen.has(key)) ctx.addIssue({ code: "custom", path: [i, "name"], message: `duplicate schedule name "${s.name}" (names are unique per agent)` });
    seen.add(key);
  });
});

/** Why croner refuses `pattern` (a cron expression or an `at:` time), or null. */
function cronProblem(pattern: string, timezone: string, field: "cron" | "at"): string | null {
  if (field === "at" && !/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/.test(pattern)) {
    return `"${pattern}" is not a date and time like 2026-12-01T09:00 (local to timezone:) or 2026-12-01T08:00Z`;
  }
  const Cron = cronClass();
  try {
    const job = new Cron(field === "at" ? pattern.replace(" ", "T") : pattern, { timezone, paused: true });
    job.nextRun(new Date(0));
    job.stop();
    return null;
  } catch (err) {
    const why = err instanceof Error ? err.message.replace(/^Cron\w*:\s*/, "") : String(err);
    return field === "cron" ? `"${pattern}" is not a cron expression croner accepts: ${why} (five fields: minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5")` : `"${pattern}": ${why}`;
  }
}
