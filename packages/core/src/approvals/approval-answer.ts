/**
 * Operators' answers to approval requests on IRC: `@<nick> approve <id>`, `@<nick> deny <id>
 * [reason...]`, `@<nick> always <id>` in a channel, or the same in a DM with or without the
 * `@<nick>` prefix. Read next to `resume`/`abort` (operators.ts), before a message can become a
 * prompt. The grammar is strict (the id is a number right after the verb, approval-ids.ts), so
 * `@bot deny access to the db` stays a prompt. The answer says which name it was addressed
 * to: a short name another agent in the channel shares is refused (approval-names.ts).
 */

/** What an operator can answer. */
export type ApprovalVerb = "approve" | "deny" | "always";

/** One parsed answer. */
export interface ApprovalAnswer {
  verb: ApprovalVerb;
  /** The request's id (digits, leading zeros dropped). */
  id: string;
  /** The reason of a `deny`, or null. */
  reason: string | null;
  /** The name the answer was addressed to (`spark-bot`, `bot`), or null for a bare answer in a DM. */
  name: string | null;
}

/** Reads an answer addressed to one of `names`; null when the text is anything else. */
export function parseApprovalAnswer(text: string, names: string[], isDm: boolean): ApprovalAnswer | null {
  const t = text.trim();
  const bodies: Array<[string, string | null]> = [];
  if (isDm) bodies.push([t, null]);
  for (const name of names) {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const m = new RegExp(`^@?${escaped}[:,]?\\s+(.*)$`, "is").exec(t);
    if (m) bodies.push([m[1]!, name]);
  }
  for (const [body, name] of bodies) {
    const m = /^(approve|deny|always)\s+#?([0-9]{1,15})(?:[.!]?$|\s+(.*)$)/is.exec(body);
    if (!m) continue;
    const verb = m[1]!.toLowerCase() as ApprovalVerb;
    const rest = m[3]?.trim() ?? "";
    // Only `deny` takes words after the id; `approve 12 and more` is not an answer.
    if (verb !== "deny" && rest !== "") continue;
    return { verb, id: normalizeApprovalId(m[2]!), reason: verb === "deny" && rest !== "" ? rest : null, name };
  }
  return null;
}

/** An id as typed (`#07`, ` 7 `) in the form the desk keys it (`7`); other text unchanged but trimmed. */
export function normalizeApprovalId(id: string): string {
  const t = id.trim().replace(/^#/, "");
  return /^[0-9]+$/.test(t) ? String(BigInt(t)) : t.toLowerCase();
}
