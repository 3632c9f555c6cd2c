/**
 * Everything culture puts on an IRC line passes through here first. A CR or LF inside a
 * target or parameter ends the line early and lets the rest run as a new command (the
 * reference implementation let `#chan\r\nJOIN #evil` through); NUL truncates lines on many
 * servers. Stripping them makes injection impossible; validation then rejects what is left
 * over if it is still not a usable target.
 */
import { ircInvalidTarget } from "../errors.js";

/** The bytes that may never appear inside an IRC line: CR, LF and NUL. */
const UNSAFE = /[\r\n\0]/g;

/** Removes CR, LF and NUL from `value` (anything else is kept). */
export function stripIrcUnsafe(value: string): string {
  return value.replace(UNSAFE, "");
}

/** The channel prefixes RFC 2812 servers use when ISUPPORT does not say (CHANTYPES). */
export const DEFAULT_CHANTYPES = "#&";

/**
 * A channel name culture accepts in its config (`agents.yaml`, `culture init`), before any
 * server has said its CHANTYPES: `#` or `&`, then 1-49 characters that are not a space, comma,
 * BEL, NUL, CR or LF (RFC 2812 2.3.1). At run time the server's CHANTYPES decide
 * ({@link isChannelName}).
 */
export const CONFIG_CHANNEL_NAME = /^[#&][^\s,\x07\0\r\n]{1,49}$/;

/** True when `name` starts with one of the server's channel prefixes. */
export function isChannelName(name: string, chantypes: string = DEFAULT_CHANTYPES): boolean {
  return name.length > 1 && chantypes.includes(name[0]!);
}

/**
 * A message target (channel or nick) cleaned of CR/LF/NUL and surrounding whitespace.
 * Throws `E_IRC_INVALID_TARGET` when what is left is empty or would be read as several
 * targets or parameters (spaces, commas, a leading colon).
 */
export function sanitizeTarget(target: string): string {
  const clean = stripIrcUnsafe(String(target)).trim();
  if (clean.length === 0) {
    throw ircInvalidTarget(target, "it is empty");
  }
  if (/[\s,]/.test(clean)) {
    throw ircInvalidTarget(target, "it contains a space or comma (one channel or nick at a time)");
  }
  if (clean.startsWith(":")) {
    throw ircInvalidTarget(target, "it starts with ':'");
  }
  if (clean.includes("\x07")) {
    throw ircInvalidTarget(target, "it contains a BEL character");
  }
  return clean;
}

/**
 * A channel name cleaned like {@link sanitizeTarget} that must also start with a channel
 * prefix (so `0`, which means "part every channel" to JOIN, is refused).
 */
export function sanitizeChannel(channel: string, chantypes: string = DEFAULT_CHANTYPES): string {
  const clean = sanitizeTarget(channel);
  if (!isChannelName(clean, chantypes)) {
    throw ircInvalidTarget(channel, `a channel name starts with one of ${chantypes.split("").join(" ")} (like #general)`);
  }
  return clean;
}

/** Cleans a trailing parameter (topic, part or quit reason): CR/LF become spaces, NUL goes. */
export function sanitizeParameter(value: string): string {
  return String(value).replace(/\r\n|\r|\n/g, " ").replace(/\0/g, "");
}
