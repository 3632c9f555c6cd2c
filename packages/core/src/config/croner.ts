/**
 * croner (cron expressions), loaded on first use: only an agent with `schedules:` needs it, and
 * importing it cost every daemon ~3 ms of CPU at startup (issue 30). It is required (croner ships
 * CommonJS too) because the config check that needs it runs inside a synchronous zod refinement;
 * the daemon's schedules take it from here as well, so a process loads one copy.
 */
import { createRequire } from "node:module";
import type { Cron } from "croner";

let loaded: typeof Cron | undefined;

/** croner's `Cron` class, loaded the first time it is asked for. */
export function cronClass(): typeof Cron {
  return (loaded ??= (createRequire(import.meta.url)("croner") as { Cron: typeof Cron }).Cron);
}
