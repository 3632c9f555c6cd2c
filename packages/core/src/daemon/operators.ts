/**
 * Who may resume/abort an agent from IRC. Matched per message: by the message's services
 * account (account-tag) when it carries one, else by nick. With no operators configured, any
 * nick that is not one of our own agents is an operator (a single-user machine).
 */
import type { IrcMessageEvent } from "../events.js";

/** An operator command addressed to the agent. */
export type OperatorCommand = "resume" | "abort";

/** True when the sender of `message` may give operator commands. */
export function isOperator(message: Pick<IrcMessageEvent, "nick" | "account">, operators: string[], agentNicks: string[]): boolean {
  const fold = (s: string) => s.toLowerCase();
  if (operators.length === 0) {
    return !agentNicks.some((n) => fold(n) === fold(message.nick));
  }
  const allowed = new Set(operators.map(fold));
  if (message.account) return allowed.has(fold(message.account));
  return allowed.has(fold(message.nick));
}

/**
 * Reads `@nick resume` / `@nick abort` (or `nick: resume`, or a DM of just `resume`). Returns
 * null when the text is anything else.
 */
export function parseOperatorCommand(text: string, names: string[], isDm: boolean): OperatorCommand | null {
  const t = text.trim();
  const word = /^(resume|abort)[.!]?$/i;
  if (isDm && word.test(t)) return t.replace(/[.!]$/, "").toLowerCase() as OperatorCommand;
  for (const name of names) {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const m = new RegExp(`^@?${escaped}[:,]?\\s+(resume|abort)[.!]?$`, "i").exec(t);
    if (m) return m[1]!.toLowerCase() as OperatorCommand;
  }
  return null;
}
