/**
 * `culture usage [--since WHEN] [--until WHEN] [--by KEYS] [--agent NICK] [--json]`: the tokens
 * and cost every agent under this culture home metered, from their usage journals (so stopped
 * and removed agents count too), grouped by agent, channel, account, nick, model or UTC day.
 */
import type { Command } from "commander";
import { readAllUsageJournals, type UsageFilter } from "@culture/core";
import { parseBy, parseWhen, usageJson, usageTable } from "../usage-report.js";

/** Registers `culture usage`. */
export function registerUsage(program: Command): void {
  program
    .command("usage")
    .description("tokens and cost per agent, channel, account, model or day (from the usage journals)")
    .option("--since <when>", "from: today, yesterday, 7d, 12h, 2026-11-01 (UTC) or an ISO date-time", "today")
    .option("--until <when>", "until (exclusive), same forms as --since")
    .option("--by <keys>", "group by agent, channel, account, nick, model, day (comma-separated)", "agent")
    .option("--agent <nick>", "only this agent")
    .option("--json", "machine-readable output")
    .action((opts: { since: string; until?: string; by: string; agent?: string; json?: boolean }) => {
      const now = Date.now();
      const filter: UsageFilter = { since: parseWhen(opts.since, now, "--since") };
      if (opts.until !== undefined) filter.until = parseWhen(opts.until, now, "--until");
      if (opts.agent !== undefined) filter.agent = opts.agent;
      const by = parseBy(opts.by);
      const files = readAllUsageJournals();
      const entries = files.flatMap((f) => f.entries);
      const skipped = files.flatMap((f) => f.skipped.map((s) => ({ file: f.path, line: s.line, reason: s.reason })));
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(usageJson(entries, by, filter, skipped), null, 2)}\n`);
        return;
      }
      for (const s of skipped) process.stderr.write(`culture usage: skipped line ${s.line} of ${s.file} (${s.reason})\n`);
      const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
      const window = `since ${iso(filter.since!)}${filter.until !== undefined ? ` until ${iso(filter.until)}` : ""}`;
      if (!entries.some((e) => e.at >= filter.since! && (filter.until === undefined || e.at < filter.until))) {
        process.stdout.write(`No usage ${window}${files.length ? "" : " (no agent has a usage journal yet)"}.\n`);
        return;
      }
      process.stdout.write(`Usage ${window}:\n${usageTable(entries, by, filter)}`);
    });
}
