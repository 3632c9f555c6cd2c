/**
 * `culture approvals`: the local side of approvals (docs/approvals.md). Lists what agents are
 * waiting for, answers from this machine (recorded as `by: local`; the socket is the owner's
 * only, so this is as good as an operator on IRC), and manages the saved `always` rules.
 *
 *   culture approvals list [nick]
 *   culture approvals show <nick> <id>
 *   culture approvals approve <nick> <id>
 *   culture approvals deny <nick> <id> [reason...]
 *   culture approvals always <nick> <id>
 *   culture approvals rules <nick>
 *   culture approvals revoke <nick> <pattern>
 */
import type { Command } from "commander";
import { visibleText } from "@culture/core";
import type { AgentReply } from "../agents.js";
// Every request here is an owner's: over the control socket, refused in an agent's environment.
import { assertOwnerShell, controlAgent as requestAgent } from "../control.js";
import { runningDaemons } from "../fleet.js";
import { renderTable } from "../table.js";

interface Pending {
  id: string;
  tool: string;
  kind?: string;
  summary: string;
  /** The whole masked text (command or summary). */
  text?: string;
  is_command?: boolean;
  pattern?: string | null;
  target: string | null;
  requested_at: number;
  expires_at: number;
}

interface Rule {
  pattern: string;
  added_by: string;
  added_at: number;
}

/** Registers `culture approvals` and its subcommands. */
export function registerApprovals(program: Command): void {
  const approvals = program.command("approvals").description("list and answer agents' permission requests; manage saved rules");
  approvals.hook("preAction", () => assertOwnerShell("culture approvals"));

  approvals
    .command("list")
    .description("requests waiting for an operator (every running agent, or one)")
    .argument("[nick]", "the agent")
    .option("--json", "machine-readable output")
    .action(async (nick: string | undefined, opts: { json?: boolean }) => {
      const nicks = nick ? [nick] : (await runningDaemons()).filter((d) => d.state.answering).map((d) => d.nick);
      const replies = await Promise.all(nicks.map(async (n) => ({ nick: n, reply: await requestAgent(n, "approvals") })));
      const rows: Array<Pending & { nick: string }> = [];
      for (const { nick: n, reply } of replies) {
        if (!reply.running) {
          if (nick) return notRunning(n);
          continue;
        }
        if (!reply.ok) {
          fail(`${n}: ${reply.error}`);
          continue;
        }
        for (const p of (reply.data?.pending as Pending[] | undefined) ?? []) rows.push({ nick: n, ...p });
      }
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      if (rows.length === 0) {
        process.stdout.write(nick ? `${nick} is not waiting for any approval\n` : "No agent is waiting for an approval\n");
        return;
      }
      const now = Date.now() / 1000;
      const cells = rows.map((r) => [r.nick, r.id, visibleText(r.tool, null), `${Math.max(0, Math.round(now - r.requested_at))}s`, `${Math.max(0, Math.round(r.expires_at - now))}s`, r.target ?? "-", r.summary]);
      process.stdout.write(renderTable(["NICK", "ID", "TOOL", "WAITING", "TIMEOUT IN", "ASKED IN", "SUMMARY"], cells, { width: process.stdout.columns ?? 120 }));
    });

  approvals
    .command("show")
    .description("print one pending request whole: the command (secrets masked, control characters made visible), where it was asked, what always would save")
    .argument("<nick>", "the agent")
    .argument("<id>", "the request id, as in [APPROVAL <id>]")
    .option("--json", "machine-readable output (the text as it is, masked)")
    .action(async (nick: string, id: string, opts: { json?: boolean }) => {
      const reply = await requestAgent(nick, "approval_show", { approval: id });
      if (!check(nick, reply)) return;
      const p = reply.data?.pending as Pending;
      if (opts.json) {
        process.stdout.write(`${JSON.stringify({ nick, ...p }, null, 2)}\n`);
        return;
      }
      process.stdout.write(renderRequest(nick, p));
    });

  const answers = [
    ["approve", "allow the request once", "Approved"],
    ["deny", "deny the request (the reason reaches the agent)", "Denied"],
    ["always", "allow it and save its exact pattern, so the same request is never asked again", "Approved"],
  ] as const;
  for (const [verb, description, done] of answers) {
    const cmd = approvals.command(verb).description(description).argument("<nick>", "the agent").argument("<id>", "the request id, as in [APPROVAL <id>]");
    if (verb === "deny") cmd.argument("[reason...]", "why, in words the agent can act on");
    cmd.action(async (nick: string, id: string, ...rest: unknown[]) => {
      const reason = verb === "deny" && Array.isArray(rest[0]) && rest[0].length ? (rest[0] as string[]).join(" ") : undefined;
      const reply = await requestAgent(nick, "approval_answer", { approval: id, answer: verb, ...(reason ? { reason } : {}) });
      if (!check(nick, reply)) return;
      const pattern = typeof reply.data?.pattern === "string" ? ` and saved the rule ${reply.data.pattern}` : "";
      process.stdout.write(`${done} ${id} for ${nick}${pattern}\n`);
    });
  }

  approvals
    .command("rules")
    .description("the patterns an operator approved with always")
    .argument("<nick>", "the agent")
    .option("--json", "machine-readable output")
    .action(async (nick: string, opts: { json?: boolean }) => {
      const reply = await requestAgent(nick, "approvals");
      if (!check(nick, reply)) return;
      const rules = (reply.data?.rules as Rule[] | undefined) ?? [];
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(rules, null, 2)}\n`);
        return;
      }
      if (rules.length === 0) {
        process.stdout.write(`${nick} has no saved rules\n`);
        return;
      }
      const cells = rules.map((r) => [r.pattern, r.added_by, new Date(r.added_at * 1000).toISOString().replace(/\.\d+Z$/, "Z")]);
      process.stdout.write(renderTable(["PATTERN", "ADDED BY", "ADDED AT"], cells));
      if (typeof reply.data?.rules_file === "string") process.stdout.write(`(saved in ${reply.data.rules_file})\n`);
    });

  approvals
    .command("revoke")
    .description("remove a saved rule: the request is asked again next time")
    .argument("<nick>", "the agent")
    .argument("<pattern>", "the rule, exactly as culture approvals rules shows it")
    .action(async (nick: string, pattern: string) => {
      const reply = await requestAgent(nick, "approval_revoke", { pattern });
      if (!check(nick, reply)) return;
      process.stdout.write(`Revoked ${pattern} for ${nick}\n`);
    });
}

/** `culture approvals show`: the whole request, one field a line, the text quoted with control characters visible. */
function renderRequest(nick: string, p: Pending): string {
  const now = Date.now() / 1000;
  const text = p.text ?? p.summary;
  const rows: Array<[string, string]> = [
    ["request", `${p.id} of ${nick}`],
    ["tool", `${visibleText(p.tool, null)}${p.kind ? ` (${p.kind})` : ""}`],
    [p.is_command ? "command" : "summary", `"${visibleText(text)}"`],
    ["length", `${[...text].length} characters`],
    ["asked in", p.target ?? "- (nowhere on IRC)"],
    ["waiting", `${Math.max(0, Math.round(now - p.requested_at))}s (timeout in ${Math.max(0, Math.round(p.expires_at - now))}s)`],
    ["always saves", p.pattern ? visibleText(p.pattern, null) : "nothing (always approves once)"],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const answer = `culture approvals approve|deny|always ${nick} ${p.id}`;
  return `${rows.map(([k, v]) => `${`${k}:`.padEnd(width + 2)}${v}`).join("\n")}\n\nanswer: ${answer}\n`;
}

/** True when the agent answered ok; otherwise prints why and sets the exit code. */
function check(nick: string, reply: AgentReply): boolean {
  if (!reply.running) {
    notRunning(nick);
    return false;
  }
  if (!reply.ok) {
    fail(`${nick}: ${reply.error}`);
    return false;
  }
  return true;
}

function notRunning(nick: string): void {
  process.stderr.write(`${nick} is not running\n`);
  process.exitCode = 1;
}

function fail(message: string): void {
  process.stderr.write(`${message}\n`);
  process.exitCode = 1;
}
