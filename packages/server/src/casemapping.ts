/**
 * Names as IRC compares them. CASEMAPPING=rfc1459: A-Z fold to a-z and `[]\~` fold to
 * `{}|^` (Scandinavian heritage), so `Nick[1]` and `nick{1}` are the same user. Every map of
 * nicks or channels is keyed by {@link ircLower}.
 */

/** The ISUPPORT CASEMAPPING value this server uses. */
export const CASEMAPPING = "rfc1459";

/** Folds a nick or channel name for comparison under rfc1459 casemapping. */
export function ircLower(name: string): string {
  let out = "";
  let changed = false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    let f = c;
    if (c >= 0x41 && c <= 0x5a) f = c + 0x20;
    else if (c === 0x5b || c === 0x5c || c === 0x5d) f = c + 0x20; // [ \ ] -> { | }
    else if (c === 0x7e) f = 0x5e; // ~ -> ^
    if (f !== c) changed = true;
    out += String.fromCharCode(f);
  }
  return changed ? out : name;
}

/** Nick: a letter or one of `[]\`_^{|}`, then those, digits and `-` (RFC 2812 2.3.1). */
const NICK_RE = /^[A-Za-z[\]\\`_^{|}][A-Za-z0-9[\]\\`_^{|}-]*$/;

/** True when `nick` is a valid nickname of at most `maxLen` characters. */
export function isValidNick(nick: string, maxLen: number): boolean {
  return nick.length > 0 && nick.length <= maxLen && NICK_RE.test(nick);
}

/** The channel prefixes this server accepts (CHANTYPES). */
export const CHANTYPES = "#&";

/** True when `name` starts with a channel prefix (it may still be invalid). */
export function isChannelName(name: string): boolean {
  return name.length > 0 && CHANTYPES.includes(name[0]!);
}

/**
 * True when `name` is a channel name this server creates: a CHANTYPES prefix, at most
 * `maxLen` characters, and none of space, comma, BEL, NUL, CR, LF or `:` (RFC 2812 1.3;
 * `:` would break the wire form of a JOIN).
 */
export function isValidChannelName(name: string, maxLen: number): boolean {
  return isChannelName(name) && name.length > 1 && name.length <= maxLen && !/[\s,\x07\0:]/.test(name);
}
