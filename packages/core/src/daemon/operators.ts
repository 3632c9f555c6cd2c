/**
 * Operator commands from IRC: `@nick resume` / `@nick abort`. Who may give them is decided by
 * AccessPolicy (access-policy.ts): by IRC account.
 */

/** An operator command addressed to the agent. */
export type OperatorCommand = "resume" | "abort";

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
