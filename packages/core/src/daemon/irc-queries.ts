/**
 * The daemon's own answers on IRC to `@nick status` and `@nick pending` (operators.ts parses
 * them, the inbox decides who may ask) and the NOTICE an operator gets on joining a channel
 * where requests wait (IRC clients replay no history, so the request lines posted before they
 * joined are lost to them). Nothing here is a prompt: the agent is never asked.
 *
 *   alice: state running Bash for 12s; queued 2; turns 14; pending approvals 1; today $0.0312 over 5 turns
 *   alice: 1 approval request pending in #dev; operators who may answer (by account): alice, bob
 *   alice: #7 Bash "npm publish --tag next" (42s ago); reply @spark-bot approve 7 | deny 7 | always 7; whole text: culture approvals show spark-bot 7
 *
 * The status answer says the state, never the task's text (a DM's words must not reach a
 * channel). A request's command is masked, its control characters made visible, quoted and cut;
 * the whole text is for `culture approvals show` on the agent's host.
 */
import { visibleText } from "../approvals/approval-text.js";
import { maskSecrets } from "../approvals/secret-mask.js";
import type { AgentStatus } from "../events.js";
import type { PendingApproval } from "./approval-desk.js";
import { formatSeconds } from "./presence-state.js";

/** At most this many requests are listed in one answer; the rest are counted. */
export const PENDING_LIST_MAX = 5;
/** The longest command shown per request (characters, before quoting). */
export const PENDING_TEXT_MAX = 80;

/** The one-line answer to `@nick status`. */
export function statusAnswer(status: AgentStatus): string {
  const presence = status.presence as { state?: string } | undefined;
  const tool = status.tool as { name: string; elapsed_seconds: number } | null | undefined;
  const state = presence?.state ?? String(status.activity ?? "unknown");
  const queue = status.queue as Record<string, number> | undefined;
  const queued = queue ? Object.values(queue).reduce((a, b) => a + b, 0) : 0;
  const approvals = (status.approvals as { pending?: unknown[] } | undefined)?.pending?.length ?? 0;
  const parts = [
    `state ${state}${tool && (state === "running" || state === "stalled") ? ` (${visibleText(tool.name, null)} for ${formatSeconds(tool.elapsed_seconds)})` : ""}`,
    `queued ${queued}`,
    `turns ${Number(status.turn_count ?? 0)}`,
    `pending approvals ${approvals}`,
  ];
  const today = (status.usage as { today?: { turns: number; cost_usd: number; cost_unknown_turns: number } } | undefined)?.today;
  if (today) {
    const unknown = today.cost_unknown_turns > 0 ? ` (cost unknown for ${today.cost_unknown_turns})` : "";
    parts.push(`today $${today.cost_usd.toFixed(4)} over ${today.turns} turn${today.turns === 1 ? "" : "s"} (UTC)${unknown}`);
  }
  return parts.join("; ");
}

/** Who may answer requests on IRC, for the answers. */
export interface Answerers {
  /** The agent's nick (for the reply words and the CLI pointer). */
  nick: string;
  /** `operators:` (accounts). */
  operators: readonly string[];
}

/**
 * The answer to `@nick pending`: in a channel (`channel` set) only that channel's requests; in
 * a DM (`channel` null, operators only) every request. `fold` compares channel names.
 */
export function pendingAnswer(pending: readonly PendingApproval[], channel: string | null, who: Answerers, fold: (name: string) => string, now = Date.now() / 1000): string[] {
  const here = channel === null ? [...pending] : pending.filter((p) => p.target !== null && fold(p.target) === fold(channel));
  const where = channel === null ? "" : ` in ${channel}`;
  if (here.length === 0) return [`no approval request is pending${where}`];
  const lines = [`${here.length} approval request${here.length === 1 ? "" : "s"} pending${where}; ${answerersText(who)}`];
  for (const p of here.slice(0, PENDING_LIST_MAX)) lines.push(pendingItem(p, who.nick, now, channel === null));
  if (here.length > PENDING_LIST_MAX) lines.push(`... and ${here.length - PENDING_LIST_MAX} more: culture approvals list ${who.nick}`);
  return lines;
}

/** The NOTICE lines for an operator who joined `channel`, or none when nothing waits there. */
export function joinNotice(pending: readonly PendingApproval[], channel: string, who: Answerers, fold: (name: string) => string, now = Date.now() / 1000): string[] {
  const here = pending.filter((p) => p.target !== null && fold(p.target) === fold(channel));
  if (here.length === 0) return [];
  return pendingAnswer(here, channel, who, fold, now);
}

/** One request: id, tool, the command cut and quoted, its age, where (in a DM's list), the reply words and the CLI pointer. */
export function pendingItem(p: PendingApproval, nick: string, now: number, showWhere: boolean): string {
  const chars = [...maskSecrets(p.text).replace(/\s+/g, " ").trim()];
  const short = chars.length > PENDING_TEXT_MAX ? `${chars.slice(0, PENDING_TEXT_MAX - 1).join("")}…` : chars.join("");
  const age = formatSeconds(Math.max(0, now - p.requested_at));
  const where = showWhere ? `, in ${p.target ?? "no channel"}` : "";
  return `#${p.id} ${visibleText(p.tool, null)} "${visibleText(short)}" (${age} ago${where}); reply @${nick} approve ${p.id} | deny ${p.id} | always ${p.id}; whole text: culture approvals show ${nick} ${p.id}`;
}

function answerersText(who: Answerers): string {
  return who.operators.length === 0
    ? "no operators are configured, so nobody may answer on IRC: use culture approvals on the agent's host"
    : `operators who may answer (by account): ${who.operators.join(", ")}`;
}
