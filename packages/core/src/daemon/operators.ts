/**
 * Commands and questions addressed to the agent on IRC that the daemon answers itself (never
 * prompts): `@nick resume` / `@nick abort` (operators only) and `@nick status` / `@nick pending`
 * (anyone who may prompt the agent; `pending` in a DM: operators only). Who may give them is
 * decided by AccessPolicy (access-policy.ts): by IRC account. One parser reads them all.
 */

/** An operator command addressed to the agent. */
export type OperatorCommand = "resume" | "abort";

/** A question the daemon answers itself (daemon/irc-queries.ts). */
export type AgentQuery = "status" | "pending";

const COMMANDS: readonly OperatorCommand[] = ["resume", "abort"];
const QUERIES: readonly AgentQuery[] = ["status", "pending"];

/**
 * Reads `@nick resume` / `@nick abort` (or `nick: resume`, or a DM of just `resume`). Returns
 * null when the text is anything else.
 */
export function parseOperatorCommand(text: string, names: string[], isDm: boolean): OperatorCommand | null {
  return parseWord(text, names, isDm, COMMANDS, "[.!]");
}

/** Reads `@nick status` / `@nick pending` (or `nick: status`, or a DM of just `status`); null for anything else. */
export function parseAgentQuery(text: string, names: string[], isDm: boolean): AgentQuery | null {
  return parseWord(text, names, isDm, QUERIES, "[.!?]");
}

/** The one word of `words` addressed to one of `names` (or alone in a DM), optionally ending in one of `end`. */
function parseWord<W extends string>(text: string, names: string[], isDm: boolean, words: readonly W[], end: string): W | null {
  const t = text.trim();
  const alt = words.join("|");
  const word = new RegExp(`^(${alt})${end}?$`, "i");
  const dm = isDm ? word.exec(t) : null;
  if (dm) return dm[1]!.toLowerCase() as W;
  for (const name of names) {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const m = new RegExp(`^@?${escaped}[:,]?\\s+(${alt})${end}?$`, "i").exec(t);
    if (m) return m[1]!.toLowerCase() as W;
  }
  return null;
}
