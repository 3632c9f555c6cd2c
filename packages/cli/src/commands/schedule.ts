/**
 * `culture schedule`: the owner's view of an agent's schedules (docs/schedules.md), over the
 * daemon's control socket like `culture approvals` (refused in an agent's environment).
 *
 *   culture schedule list <nick> [--json]
 *   culture schedule run <nick> <name>
 *   culture schedule pause <nick> [name]     (every schedule when no name)
 *   culture schedule resume <nick> [name]
 */
import type { Command } from "commander";
import type { ScheduleView } from "@culture/core";
import { assertOwnerShell, controlAgent, replyOk } from "../control.js";
import { renderTable } from "../table.js";

const COMMAND = "culture schedule";

/** Registers `culture schedule` and its subcommands. */
export function registerSchedule(program: Command): void {
  const schedule = program.command("schedule").description("list, run, pause and resume an agent's schedules");
  schedule.hook("preAction", () => assertOwnerShell(COMMAND));

  schedule
    .command("list")
    .description("the agent's schedules: when each runs next and last ran")
    .argument("<nick>", "the agent")
    .option("--json", "machine-readable output")
    .action(async (nick: string, opts: { json?: boolean }) => {
      const reply = await controlAgent(nick, "schedules", {}, 1500, COMMAND);
      if (!replyOk(nick, reply)) return;
      const rows = (reply.data?.schedules as ScheduleView[] | undefined) ?? [];
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      if (rows.length === 0) {
        process.stdout.write(`${nick} has no schedules (add them under schedules: in its agents.yaml entry)\n`);
        return;
      }
      process.stdout.write(renderTable(["NAME", "WHEN", "TIME ZONE", "REPLY TO", "NEXT RUN", "LAST RUN", "STATE"], rows.map(cells), { width: process.stdout.columns ?? 120 }));
    });

  schedule
    .command("run")
    .description("queue a schedule's prompt now (the agent runs it when free)")
    .argument("<nick>", "the agent")
    .argument("<name>", "the schedule")
    .action(async (nick: string, name: string) => {
      const reply = await controlAgent(nick, "schedule_run", { schedule: name }, 1500, COMMAND);
      if (!replyOk(nick, reply)) return;
      process.stdout.write(`Queued a run of ${name} for ${nick}\n`);
    });

  for (const verb of ["pause", "resume"] as const) {
    schedule
      .command(verb)
      .description(verb === "pause" ? "stop a schedule (or all) from firing, until resume (kept across restarts)" : "let a paused schedule (or all) fire again, from now on")
      .argument("<nick>", "the agent")
      .argument("[name]", "the schedule (default: all of the agent's)")
      .action(async (nick: string, name: string | undefined) => {
        const reply = await controlAgent(nick, `schedule_${verb}`, name ? { schedule: name } : {}, 1500, COMMAND);
        if (!replyOk(nick, reply)) return;
        const names = (reply.data?.[verb === "pause" ? "paused" : "resumed"] as string[] | undefined) ?? [];
        process.stdout.write(`${verb === "pause" ? "Paused" : "Resumed"} ${names.length ? names.join(", ") : "no schedules"} for ${nick}\n`);
      });
  }
}

function cells(r: ScheduleView): string[] {
  const state = r.paused ? "paused" : r.waiting ? "waiting for the agent" : r.next_run === null ? "done" : "active";
  const last = r.last_fired === null ? "-" : new Date(r.last_fired * 1000).toISOString().replace(/:\d\d\.\d+Z$/, "Z").replace("T", " ");
  return [r.name, r.kind === "cron" ? r.spec : `at ${r.spec}`, r.timezone, r.channel ?? "-", r.next_run_local ?? "-", last, state];
}

