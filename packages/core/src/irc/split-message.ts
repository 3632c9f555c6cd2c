/**
 * Splitting outgoing text into IRC lines. A server relays our PRIVMSG to others as
 * `:<nick>!<user>@<host> PRIVMSG <target> :<text>\r\n`, and that whole line must fit in 512
 * bytes or the tail is cut off by the server (the reference implementation lost text this
 * way). So the text budget is computed from the relayed line, not from what we send, and
 * each line is split at the last space that fits (DESIGN.md section 9), never inside a
 * UTF-8 character, and where possible never inside a grapheme (an emoji with modifiers).
 */
import { graphemeSegmenter } from "./grapheme-segmenter.js";

/** The IRC line limit (RFC 1459), CRLF included; message tags do not count against it. */
export const IRC_LINE_MAX_BYTES = 512;

/** Longest username the worst-case prefix assumes (`~` + USERLEN 10). */
export const WORST_CASE_USER_BYTES = 11;
/** Longest hostname the worst-case prefix assumes. */
export const WORST_CASE_HOST_BYTES = 63;

/** What {@link textBudget} needs to know about the line the server will relay. */
export interface TextBudgetInput {
  command: "PRIVMSG" | "NOTICE";
  target: string;
  /** Our nick (use the longest we may have while the line is in flight). */
  nick: string;
  /** Our username as the server shows it; unknown means the worst case. */
  user?: string | null;
  /** Our host as the server shows it; unknown means the worst case. */
  host?: string | null;
  /** The line limit; default 512. */
  lineMax?: number;
}

/**
 * How many bytes of text fit in one `PRIVMSG`/`NOTICE` so that the line the server relays,
 * `:<nick>!<user>@<host> <command> <target> :<text>\r\n`, stays within `lineMax` bytes.
 * Never less than 4, so that any single character still fits.
 */
export function textBudget(input: TextBudgetInput): number {
  const userBytes = input.user ? Buffer.byteLength(input.user) : WORST_CASE_USER_BYTES;
  const hostBytes = input.host ? Buffer.byteLength(input.host) : WORST_CASE_HOST_BYTES;
  const overhead =
    1 + Buffer.byteLength(input.nick) + 1 + userBytes + 1 + hostBytes + // :nick!user@host
    1 + input.command.length + 1 + Buffer.byteLength(input.target) + 2 + // " PRIVMSG <target> :"
    2; // CRLF
  return Math.max(4, (input.lineMax ?? IRC_LINE_MAX_BYTES) - overhead);
}

/**
 * Splits message text into IRC-ready pieces of at most `maxBytes` UTF-8 bytes each: CR, LF
 * and CRLF separate lines, blank (whitespace-only) lines are dropped, NUL is removed, and a
 * line that is too long is split at the last space before the limit when there is one (that
 * space is dropped), else at the last whole grapheme (or code point) that fits.
 */
export function splitMessage(text: string, maxBytes: number): string[] {
  if (!Number.isInteger(maxBytes) || maxBytes < 4) {
    throw new RangeError(`splitMessage: maxBytes must be an integer >= 4 (got ${maxBytes})`);
  }
  const out: string[] = [];
  for (const line of String(text).replace(/\0/g, "").split(/\r\n|\r|\n/)) {
    if (line.trim().length === 0) continue;
    for (const piece of splitLine(line, maxBytes)) out.push(piece);
  }
  return out;
}

/**
 * Splits one line (no CR/LF in it) into pieces of at most `maxBytes` bytes; see
 * {@link splitMessage}. Linear in the length of the line: each piece is measured code point
 * by code point, and grapheme rules are only consulted at the cut (V8's grapheme segmenter
 * costs microseconds per grapheme and slows down more than linearly on one long string, so
 * a 150,000-character `irc_send` used to take 25 s). A cut lands at the last space that fits
 * (the space is dropped), else at the last grapheme boundary that fits, else, inside a
 * grapheme longer than `maxBytes` (zalgo text), at the last code point that fits.
 */
export function splitLine(line: string, maxBytes: number): string[] {
  if (utf8Bytes(line) <= maxBytes) return line.length ? [line] : [];
  const n = line.length;
  const pieces: string[] = [];
  let pos = 0;
  while (pos < n) {
    // The first code point (index `hard`) that no longer fits.
    let hard = pos;
    let bytes = 0;
    while (hard < n) {
      const c = line.charCodeAt(hard);
      const pair = (c & 0xfc00) === 0xd800 && hard + 1 < n && (line.charCodeAt(hard + 1) & 0xfc00) === 0xdc00;
      const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
      if (bytes + size > maxBytes) break;
      bytes += size;
      hard += pair ? 2 : 1;
    }
    if (hard >= n) {
      pieces.push(line.slice(pos));
      break;
    }
    if (isSpaceUnit(line, hard)) {
      // The space itself is the break: it ends this piece and is dropped.
      pieces.push(line.slice(pos, hard));
      pos = hard + 1;
      continue;
    }
    const space = lastSpaceUnit(line, pos, hard);
    if (space > pos) {
      // Break at the last space (dropped); what followed it starts the next piece.
      pieces.push(line.slice(pos, space));
      pos = space + 1;
      continue;
    }
    // One long word: break at the last grapheme boundary that fits.
    const cut = lastBoundary(line, pos, hard);
    pieces.push(line.slice(pos, cut));
    pos = cut;
  }
  return pieces;
}

/**
 * UTF-8 length of `s` (or of `s.slice(from, to)`), as `Buffer.byteLength` counts it (a lone
 * surrogate becomes U+FFFD, 3 bytes), without a native call per piece.
 */
export function utf8Bytes(s: string, from = 0, to = s.length): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < to && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

// Grapheme rules (UAX #29) that can join two code points into one grapheme, by which side
// they look at. Where neither applies, there is certainly a boundary between them.
/** A code point that attaches to what precedes it: Extend, SpacingMark, ZWJ, Hangul V/T jamo. */
const JOINS_PREVIOUS = /[\p{M}\u200C\u200D\p{Emoji_Modifier}\u{E0020}-\u{E007F}\uFF9E\uFF9F\u0E33\u0EB3\u1160-\u11FF\uD7B0-\uD7FF]/u;
/** A code point that attaches what follows it: ZWJ (emoji sequences), Prepend, Hangul L jamo, Indic linkers (GB9c). */
const JOINS_NEXT = /[\u200D\u1100-\u115F\uA960-\uA97F\u094D\u09CD\u0ACD\u0B4D\u0C4D\u0D4D\u0600-\u0605\u06DD\u070F\u0890\u0891\u08E2\u0D4E\u{110BD}\u{110CD}\u{111C2}\u{111C3}\u{1193F}\u{11941}\u{11A3A}\u{11A84}-\u{11A89}\u{11D46}]/u;
const REGIONAL_INDICATOR = /\p{Regional_Indicator}/u;

/** True when index `k` (0 < k < length) is certainly a grapheme boundary of `s`. */
function isBoundary(s: string, k: number): boolean {
  const b = s.charCodeAt(k);
  const a = s.charCodeAt(k - 1);
  if (a < 0x80 && b < 0x80) return true; // (CR LF never gets here)
  if ((b & 0xfc00) === 0xdc00 && (a & 0xfc00) === 0xd800) return false; // inside a surrogate pair
  const next = String.fromCodePoint(s.codePointAt(k)!);
  const prevStart = (a & 0xfc00) === 0xdc00 && k >= 2 && (s.charCodeAt(k - 2) & 0xfc00) === 0xd800 ? k - 2 : k - 1;
  const prev = String.fromCodePoint(s.codePointAt(prevStart)!);
  if (JOINS_PREVIOUS.test(next) || JOINS_NEXT.test(prev)) return false;
  if (REGIONAL_INDICATOR.test(prev) && REGIONAL_INDICATOR.test(next)) {
    // Flags pair up from the start of a run: a boundary after an even number of indicators.
    let run = 0;
    for (let i = k; i >= 2 && REGIONAL_INDICATOR.test(s.slice(i - 2, i)); i -= 2) run++;
    return run % 2 === 0;
  }
  return true;
}

/** True when the code unit at `i` is a space that is a grapheme of its own. */
function isSpaceUnit(s: string, i: number): boolean {
  return s.charCodeAt(i) === 0x20 && (i + 1 >= s.length || s.charCodeAt(i + 1) < 0x80 || isBoundary(s, i + 1));
}

/** The last space in (from, to) that is a grapheme of its own, or -1. */
function lastSpaceUnit(s: string, from: number, to: number): number {
  // A bounded walk back (lastIndexOf would scan to the start of the line: quadratic).
  for (let i = to - 1; i > from; i--) {
    if (s.charCodeAt(i) === 0x20 && isSpaceUnit(s, i)) return i;
  }
  return -1;
}

/**
 * The last grapheme boundary in (from, hard] (`from` is a boundary, `hard` the first code
 * point that does not fit). Tries the rules first, walking back from `hard`; where they cannot
 * tell (a run of combining marks, an emoji sequence), the segmenter decides on this piece
 * alone. A grapheme that starts at `from` and does not fit at all is cut at `hard`.
 */
function lastBoundary(s: string, from: number, hard: number): number {
  // A grapheme boundary is never more than a few dozen code units back in real text; the
  // bound keeps zalgo text linear (it goes to the segmenter below).
  for (let k = hard, steps = 0; k > from && steps < 64; k--, steps++) {
    if (isBoundary(s, k)) return k;
  }
  const segmenter = graphemeSegmenter();
  if (segmenter) {
    let end = Math.min(s.length, hard + 64);
    if (end < s.length && (s.charCodeAt(end - 1) & 0xfc00) === 0xd800) end++;
    let cut = from;
    for (const { segment, index } of segmenter.segment(s.slice(from, end))) {
      const stop = from + index + segment.length;
      if (stop > hard) break;
      cut = stop;
    }
    if (cut > from) return cut;
  }
  // One grapheme longer than maxBytes: cut it at the last code point that fits.
  return hard > from ? hard : from + ((s.charCodeAt(from) & 0xfc00) === 0xd800 ? 2 : 1);
}
