/**
 * What an incoming IRC text line is to the agent, decided once, in one place (the inbox reads
 * the answer; nothing else re-derives it):
 *
 * - `own`: our own line echoed back (our configured or current nick, by the server's CASEMAPPING);
 * - `notice`: a NOTICE: buffered, never a prompt (RFC 2812 3.3.2);
 * - `unaddressed`: channel chatter that does not mention us: buffered only;
 * - `command`: `@nick resume|abort` (or the bare word in a DM);
 * - `approval`: `@nick approve|deny|always <id>` (or the bare words in a DM);
 * - `budget`: `@nick budget [show|raise <amount>|reset]` (budget/budget-command.ts);
 * - `query`: `@nick status|pending` (or the bare word in a DM), answered by the daemon (irc-queries.ts);
 * - `prompt`: a mention or DM for the agent.
 *
 * Alongside: channel or DM (the transport decided it by the server's CHANTYPES), where an
 * answer goes (the channel, or the sender for a DM), whether the sender is an operator and
 * whether they may prompt (access-policy.ts).
 */
import { parseApprovalAnswer, type ApprovalAnswer } from "../approvals/approval-answer.js";
import { parseBudgetCommand, type BudgetCommand } from "../budget/budget-command.js";
import type { IrcMessageEvent } from "../events.js";
import { ircLower } from "../irc/case-mapping.js";
import type { IrcTransport } from "../irc/irc-transport.js";
import { isMentioned, mentionNames } from "../irc/mentions.js";
import type { AccessPolicy } from "./access-policy.js";
import { parseAgentQuery, parseOperatorCommand, type AgentQuery, type OperatorCommand } from "./operators.js";

/** What the classifier needs to know about the connection now. */
export interface LineContext {
  /** The configured nick. */
  nick: string;
  /** The nick we have on the server now (`<nick>_` after a 433). */
  currentNick: string;
  /** The server's CASEMAPPING. */
  caseMapping: string;
  /** Folds a nick by the server's CASEMAPPING. */
  fold(name: string): string;
  /** True when the server has services accounts (SASL or account-tag). */
  serverHasAccounts: boolean;
}

/** One incoming line, classified. */
export type ClassifiedLine = {
  ev: IrcMessageEvent;
  /** The channel, or the sender's nick for a DM: where an answer to this line goes. */
  replyTo: string;
  /** The sender may command the agent (an operator, by account). */
  operator: boolean;
  /** The sender may prompt the agent (access-policy.ts). */
  mayPrompt: boolean;
} & (
  | { kind: "own" | "notice" | "unaddressed" | "prompt" }
  | { kind: "command"; command: OperatorCommand }
  | { kind: "approval"; answer: ApprovalAnswer }
  | { kind: "budget"; budget: BudgetCommand }
  | { kind: "query"; query: AgentQuery }
);

/** The context of a line from the transport now (before it exists: the configured nick, RFC 1459 case mapping). */
export function lineContext(nick: string, transport: Pick<IrcTransport, "nick" | "caseMapping" | "fold" | "serverHasAccounts"> | undefined): LineContext {
  return {
    nick,
    currentNick: transport?.nick ?? nick,
    caseMapping: transport?.caseMapping ?? "rfc1459",
    fold: (name) => (transport ? transport.fold(name) : ircLower(name)),
    serverHasAccounts: transport?.serverHasAccounts ?? false,
  };
}

/** The names the agent answers to: the nick, its short name, and the current nick when it differs. */
export function agentNames(ctx: Pick<LineContext, "nick" | "currentNick" | "fold">): string[] {
  const names = mentionNames(ctx.nick);
  if (ctx.fold(ctx.currentNick) !== ctx.fold(ctx.nick)) names.push(ctx.currentNick);
  return names;
}

/** True when `nick` is the agent (configured or current nick), by the server's CASEMAPPING. */
export function isOwnNick(nick: string, ctx: Pick<LineContext, "nick" | "currentNick" | "fold">): boolean {
  const n = ctx.fold(nick);
  return n === ctx.fold(ctx.nick) || n === ctx.fold(ctx.currentNick);
}

/** Classifies `ev` (see the module comment). */
export function classifyLine(ev: IrcMessageEvent, ctx: LineContext, access: AccessPolicy): ClassifiedLine {
  const base = {
    ev,
    replyTo: ev.isDm ? ev.nick : ev.target,
    operator: access.mayCommand(ev),
    mayPrompt: access.mayPrompt(ev, ctx.serverHasAccounts),
  };
  if (isOwnNick(ev.nick, ctx)) return { ...base, kind: "own" };
  if (ev.kind === "notice") return { ...base, kind: "notice" };
  const names = agentNames(ctx);
  if (!ev.isDm && !isMentioned(ev.text, names, ctx.caseMapping)) return { ...base, kind: "unaddressed" };
  const command = parseOperatorCommand(ev.text, names, ev.isDm);
  if (command) return { ...base, kind: "command", command };
  const answer = parseApprovalAnswer(ev.text, names, ev.isDm);
  if (answer) return { ...base, kind: "approval", answer };
  const budget = parseBudgetCommand(ev.text, names, ev.isDm);
  if (budget) return { ...base, kind: "budget", budget };
  const query = parseAgentQuery(ev.text, names, ev.isDm);
  if (query) return { ...base, kind: "query", query };
  return { ...base, kind: "prompt" };
}
