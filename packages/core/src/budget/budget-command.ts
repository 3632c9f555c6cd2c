/**
 * The operators' budget command on IRC: `@nick budget`, `@nick budget show`,
 * `@nick budget raise <amount>`, `@nick budget reset` (or the same words without the nick in a
 * DM). Who may give it is the operator rule (access-policy.ts: by IRC account); the daemon
 * answers where it was asked.
 */

/** A budget command. `amount` is the text after `raise` (read by parseBudgetAmount). */
export type BudgetCommand = { verb: "show" } | { verb: "reset" } | { verb: "raise"; amount: string };

/** Reads a budget command addressed to one of `names`, or returns null for any other text. */
export function parseBudgetCommand(text: string, names: string[], isDm: boolean): BudgetCommand | null {
  const t = text.trim();
  const rest = isDm ? commandWords(t) : null;
  if (rest) return rest;
  for (const name of names) {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const m = new RegExp(`^@?${escaped}[:,]?\\s+(budget\\b.*)$`, "i").exec(t);
    if (m) return commandWords(m[1]!);
  }
  return null;
}

function commandWords(t: string): BudgetCommand | null {
  const m = /^budget(?:\s+(show|reset|raise)(?:\s+(.+?))?)?[.!]?$/i.exec(t.trim());
  if (!m) return null;
  const verb = (m[1] ?? "show").toLowerCase();
  if (verb === "raise") return { verb: "raise", amount: m[2] ?? "" };
  if (m[2]) return null; // `budget show me the money` is a prompt, not a command
  return { verb: verb as "show" | "reset" };
}
