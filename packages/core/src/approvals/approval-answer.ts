/**
 * Operators' answers to approval requests on IRC: `@<nick> approve <id>`, `@<nick> deny <id>
 * [reason...]`, `@<nick> always <id>` in a channel, or the same in a DM with or without the
 * `@<nick>` prefix. Read next to `resume`/`abort` (operators.ts), before a message can become a
 * prompt. The grammar is strict (a hex id right after the verb), so `@bot deny access to the
 * db` stays a prompt.
 */

/** What an operator can answer. */
export type ApprovalVerb = "approve" | "deny" | "always";

/** One parsed answer. */
export interface ApprovalAnswer {
  verb: ApprovalVerb;
  /** The request's id, lowercased. */
  id: string;
  /** The reason of a `deny`, or null. */
  reason: string | null;
}

/** Reads an answer addressed to one of `names`; null when the text is anything else. */
export function parseApprovalAnswer(text: string, names: string[], isDm: boolean): ApprovalAnswer | null {
  const t = text.trim();
  const bodies: string[] = [];
  if (isDm) bodies.push(t);
  for (const name of names) {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const m = new RegExp(`^@?${escaped}[:,]?\\s+(.*)$`, "is").exec(t);
    if (m) bodies.push(m[1]!);
  }
  for (const body of bodies) {
    const m = /^(approve|deny|always)\s+#?([0-9a-f]{2,16})(?:[.!]?$|\s+(.*)$)/is.exec(body);
    if (!m) continue;
    const verb = m[1]!.toLowerCase() as ApprovalVerb;
    const rest = m[3]?.trim() ?? "";
    // Only `deny` takes words after the id; `approve ab and more` is not an answer.
    if (verb !== "deny" && rest !== "") continue;
    return { verb, id: m[2]!.toLowerCase(), reason: verb === "deny" && rest !== "" ? rest : null };
  }
  return null;
}
