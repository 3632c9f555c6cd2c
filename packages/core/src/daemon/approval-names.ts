/**
 * Who an approval answer addresses. A short name (`@gate`, the part of the nick after
 * `<server>-`) is unambiguous only when no other member of the channel has the same short
 * name: with `spark-gate` and `lab-gate` both in #ops, `@gate approve 3` is refused by both
 * (naming them) instead of approving both agents' request 3. The full nick and DMs are always
 * unambiguous.
 */

/** The part of a nick after its `<server>-` prefix (the nick itself when it has none). */
export function shortName(nick: string): string {
  const dash = nick.indexOf("-");
  return dash === -1 ? nick : nick.slice(dash + 1);
}

/**
 * The nicks an answer addressed to `name` could mean, when that is more than this agent:
 * this agent's nick and every other member of the channel with the same short name, sorted;
 * null when the answer is unambiguous (a DM, the full nick, or a short name nobody else has).
 */
export function ambiguousAddress(name: string | null, ownNicks: string[], members: string[], fold: (s: string) => string = (s) => s.toLowerCase()): string[] | null {
  if (name === null) return null;
  const own = new Set(ownNicks.map(fold));
  if (own.has(fold(name))) return null;
  const others = members.filter((m) => !own.has(fold(m)) && fold(shortName(m)) === fold(name));
  if (others.length === 0) return null;
  return [ownNicks[0]!, ...others].sort((a, b) => fold(a).localeCompare(fold(b)));
}

/** The notice an ambiguous answer gets; `example` (the answer with this agent's full nick) when this agent has that request pending. */
export function ambiguousAnswerText(sender: string, name: string, channel: string, candidates: string[], example: string | null): string {
  return `${sender}: "@${name}" is ambiguous in ${channel} (${candidates.join(", ")}): nothing was answered. Use the full nick${example ? `, e.g. @${example}` : "."}`;
}
