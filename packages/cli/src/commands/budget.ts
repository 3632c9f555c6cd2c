/**
 * `culture budget`: the local side of budgets (docs/budgets.md "Budgets"). Shows each running
 * agent's caps and how much of each is used, and raises or resets them for the current period,
 * over the daemon's control socket (as the owner: recorded as `by local`, like an operator on IRC).
 *
 *   culture budget show [nick] [--json]
 *   culture budget raise <nick> <amount...>     ($5, 5usd, 200k tokens)
 *   culture budget reset <nick>
 */
import type { Command } from "commander";
import type { AgentReply } from "../agents.js";
import { assertOwnerShell, controlAgent, replyOk } from "../control.js";
import { runningDaemons } from "../fleet.js";

/** Registers `culture budget` and its subcommands. */
export function registerBudget(program: Command): void {
  const budget = program.command("budget").description("show agents' budget caps and use; raise or reset a cap for this period");
  budget.hook("preAction", () => assertOwnerShell("culture budget"));

  budget
    .command("show", { isDefault: true })
    .description("each cap, how much of it is used and when it resets (every running agent, or one)")
    .argument("[nick]", "the agent")
    .option("--json", "machine-readable output")
    .action(async (nick: string | undefined, opts: { json?: boolean }) => {
      const nicks = nick ? [nick] : (await runningDaemons()).filter((d) => d.state.answering).map((d) => d.nick);
      const replies = await Promise.all(nicks.map(async (n) => ({ nick: n, reply: await ask(n, { action: "show" }) })));
      const out: Array<{ nick: string; budget: unknown }> = [];
      for (const { nick: n, reply } of replies) {
        if (!replyOk(n, reply, nick !== undefined)) continue;
        if (opts.json) out.push({ nick: n, budget: reply.data?.budget });
        else for (const line of (reply.data?.lines as string[] | undefined) ?? []) process.stdout.write(`${line}\n`);
      }
      if (opts.json) process.stdout.write(`${JSON.stringify(nick ? (out[0] ?? null) : out, null, 2)}\n`);
      else if (nicks.length === 0) process.stdout.write("No agent is running\n");
    });

  budget
    .command("raise")
    .description("raise the caps that stop the agent now (else its own caps) for the rest of this period")
    .argument("<nick>", "the agent")
    .argument("<amount...>", "dollars ($5, 5usd) or tokens (200k, 200000 tokens)")
    .action(async (nick: string, amount: string[]) => {
      const reply = await ask(nick, { action: "raise", amount: amount.join(" ") });
      if (replyOk(nick, reply, true)) for (const line of (reply.data?.lines as string[] | undefined) ?? []) process.stdout.write(`${line}\n`);
    });

  budget
    .command("reset")
    .description("start the counts of the caps that stop the agent now (else its own) from zero for this period")
    .argument("<nick>", "the agent")
    .action(async (nick: string) => {
      const reply = await ask(nick, { action: "reset" });
      if (replyOk(nick, reply, true)) for (const line of (reply.data?.lines as string[] | undefined) ?? []) process.stdout.write(`${line}\n`);
    });
}

function ask(nick: string, fields: Record<string, unknown>): Promise<AgentReply> {
  return controlAgent(nick, "budget", fields, 1500, "culture budget");
}

