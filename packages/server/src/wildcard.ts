/**
 * IRC glob masks (`*` any run, `?` one character), compared under rfc1459 casemapping. Used
 * by bans (`nick!user@host` masks) and WHO.
 */
import { ircLower } from "./casemapping.js";

/** True when `text` matches the glob `mask`, case-insensitively (rfc1459). */
export function matchMask(mask: string, text: string): boolean {
  const m = ircLower(mask);
  const t = ircLower(text);
  // Iterative glob match with single-star backtracking: linear-ish, no regex to blow up on
  // a hostile mask like `*a*a*a*a*b`.
  let mi = 0;
  let ti = 0;
  let star = -1;
  let mark = 0;
  while (ti < t.length) {
    const mc = m[mi];
    if (mc === "?" || (mc !== undefined && mc !== "*" && mc === t[ti])) {
      mi++;
      ti++;
    } else if (mc === "*") {
      star = mi++;
      mark = ti;
    } else if (star !== -1) {
      mi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (m[mi] === "*") mi++;
  return mi === m.length;
}

/**
 * Completes a partial ban mask the way ircds do: `nick` -> `nick!*@*`, `user@host` ->
 * `*!user@host`, `nick!user` -> `nick!user@*`.
 */
export function normalizeBanMask(mask: string): string {
  const bang = mask.indexOf("!");
  const at = mask.indexOf("@");
  if (bang === -1 && at === -1) return `${mask}!*@*`;
  if (bang === -1) return `*!${mask}`;
  if (at === -1) return `${mask}@*`;
  return mask;
}
