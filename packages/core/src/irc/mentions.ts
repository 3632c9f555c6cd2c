/**
 * Mention detection (DESIGN.md section 5): `@<nick>`, or `@<name>` where name is what follows
 * `<server>-` in the nick, case-insensitive, not preceded by a word character and not followed
 * by a word character or `-`. The reference implementation matched substrings, so `@botany`
 * woke `@bot`; the boundaries here are Unicode-aware (`@bötany` does not mention `@bö`).
 */

/** The names a nick answers to: the nick itself and, for `<server>-<name>`, the name. */
export function mentionNames(nick: string): string[] {
  const names = [nick];
  const dash = nick.indexOf("-");
  if (dash > 0 && dash < nick.length - 1) names.push(nick.slice(dash + 1));
  return names;
}

/**
 * True when `text` mentions any of `nicks` (pass both the configured and the current nick
 * after a 433 fallback: mentions of either count).
 */
export function isMentioned(text: string, nicks: readonly string[]): boolean {
  const pattern = mentionPattern(nicks);
  return pattern !== null && pattern.test(text);
}

// The daemon asks about every channel line with the same few nicks: compile each set once.
const patterns = new Map<string, RegExp | null>();

function mentionPattern(nicks: readonly string[]): RegExp | null {
  const key = nicks.join("\0");
  let pattern = patterns.get(key);
  if (pattern !== undefined) return pattern;
  const names = new Set<string>();
  for (const nick of nicks) {
    if (!nick) continue;
    for (const name of mentionNames(nick)) names.add(name);
  }
  const alternatives = [...names].sort((a, b) => b.length - a.length).map(escapeRegExp).join("|");
  pattern = names.size === 0 ? null : new RegExp(`(?<![\\p{L}\\p{N}_])@(?:${alternatives})(?![\\p{L}\\p{N}_-])`, "iu");
  if (patterns.size > 64) patterns.clear();
  patterns.set(key, pattern);
  return pattern;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
