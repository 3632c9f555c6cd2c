/**
 * Mention detection (DESIGN.md section 5): `@<nick>`, or `@<name>` where name is what follows
 * `<server>-` in the nick, not preceded by a word character and not followed by a word
 * character, a combining mark or `-`. The reference implementation matched substrings, so
 * `@botany` woke `@bot`; the boundaries here are Unicode-aware (`@bötany` does not mention `@bö`).
 *
 * Case: the text is first normalised to NFKC (so a fullwidth `＠ｓｐａｒｋ` or a Kelvin sign
 * reads as what it looks like), then compared the way the server compares nicks, by its
 * ISUPPORT CASEMAPPING (`rfc1459` by default: ASCII letters and `[]\~` = `{}|^`). Unicode case
 * folding is deliberately not used: under it `ſ`, `K` (Kelvin) or `İ` would fold onto ASCII
 * letters that the server itself treats as different nicks.
 */
import { ircLower } from "./case-mapping.js";

/** The names a nick answers to: the nick itself and, for `<server>-<name>`, the name. */
export function mentionNames(nick: string): string[] {
  const names = [nick];
  const dash = nick.indexOf("-");
  if (dash > 0 && dash < nick.length - 1) names.push(nick.slice(dash + 1));
  return names;
}

/** Characters that glue onto a mention and make it part of a longer word. */
const WORD_BEFORE = /[\p{L}\p{N}\p{M}_]/u;
const WORD_AFTER = /[\p{L}\p{N}\p{M}_-]/u;

/**
 * True when `text` mentions any of `nicks` (pass both the configured and the current nick
 * after a 433 fallback: mentions of either count), compared under the server's `caseMapping`
 * (ISUPPORT CASEMAPPING; default `rfc1459`) after NFKC normalisation.
 */
export function isMentioned(text: string, nicks: readonly string[], caseMapping: string = "rfc1459"): boolean {
  if (!text.includes("@") && !text.includes("\uFF20") && !text.includes("\uFE6B")) return false; // @, fullwidth @, small @
  const names = foldedNames(nicks, caseMapping);
  if (names.length === 0) return false;
  const folded = ircLower(text.normalize("NFKC"), caseMapping);
  for (let at = folded.indexOf("@"); at >= 0; at = folded.indexOf("@", at + 1)) {
    if (at > 0 && WORD_BEFORE.test(codePointBefore(folded, at))) continue;
    for (const name of names) {
      if (!folded.startsWith(name, at + 1)) continue;
      const after = folded.codePointAt(at + 1 + name.length);
      if (after === undefined || !WORD_AFTER.test(String.fromCodePoint(after))) return true;
    }
  }
  return false;
}

// The daemon asks about every channel line with the same few nicks: fold each set once.
const nameSets = new Map<string, string[]>();

function foldedNames(nicks: readonly string[], caseMapping: string): string[] {
  const key = `${caseMapping}\0${nicks.join("\0")}`;
  let names = nameSets.get(key);
  if (names) return names;
  const set = new Set<string>();
  for (const nick of nicks) {
    if (!nick) continue;
    for (const name of mentionNames(nick)) set.add(ircLower(name.normalize("NFKC"), caseMapping));
  }
  names = [...set].sort((a, b) => b.length - a.length);
  if (nameSets.size > 64) nameSets.clear();
  nameSets.set(key, names);
  return names;
}

function codePointBefore(s: string, i: number): string {
  const low = s.charCodeAt(i - 1);
  if ((low & 0xfc00) === 0xdc00 && i >= 2 && (s.charCodeAt(i - 2) & 0xfc00) === 0xd800) return s.slice(i - 2, i);
  return s[i - 1] ?? "";
}
