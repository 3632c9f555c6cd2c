/**
 * Splitting outgoing text into IRC lines. A server relays our PRIVMSG to others as
 * `:<nick>!<user>@<host> PRIVMSG <target> :<text>\r\n`, and that whole line must fit in 512
 * bytes or the tail is cut off by the server (the reference implementation lost text this
 * way). So the text budget is computed from the relayed line, not from what we send, and
 * each line is split at the last space that fits (DESIGN.md section 9), never inside a
 * UTF-8 character, and where possible never inside a grapheme (an emoji with modifiers).
 */

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

/** Splits one line (no CR/LF in it) into pieces of at most `maxBytes` bytes; see {@link splitMessage}. */
export function splitLine(line: string, maxBytes: number): string[] {
  if (Buffer.byteLength(line) <= maxBytes) return line.length ? [line] : [];
  const pieces: string[] = [];
  let cur: string[] = [];
  let curBytes = 0;
  // Index in `cur` of the last space that could end a piece (never index 0: no empty pieces).
  let lastSpace = -1;

  const flush = (): void => {
    if (cur.length) pieces.push(cur.join(""));
    cur = [];
    curBytes = 0;
    lastSpace = -1;
  };

  for (const unit of units(line, maxBytes)) {
    const bytes = Buffer.byteLength(unit);
    if (curBytes + bytes > maxBytes) {
      if (unit === " ") {
        // The space itself is the break: it ends this piece and is dropped.
        flush();
        continue;
      }
      if (lastSpace > 0) {
        const rest = cur.slice(lastSpace + 1);
        pieces.push(cur.slice(0, lastSpace).join(""));
        cur = rest;
        curBytes = rest.reduce((n, u) => n + Buffer.byteLength(u), 0);
        lastSpace = rest.lastIndexOf(" ");
        if (lastSpace === 0) lastSpace = -1;
      }
      if (curBytes + bytes > maxBytes) flush();
    }
    if (unit === " " && cur.length > 0) lastSpace = cur.length;
    cur.push(unit);
    curBytes += bytes;
  }
  flush();
  return pieces;
}

const segmenter = typeof Intl.Segmenter === "function" ? new Intl.Segmenter(undefined, { granularity: "grapheme" }) : null;

/** The line as graphemes; a grapheme longer than `maxBytes` (zalgo text) falls back to code points. */
function* units(line: string, maxBytes: number): Generator<string> {
  if (!segmenter) {
    yield* line;
    return;
  }
  for (const { segment } of segmenter.segment(line)) {
    if (Buffer.byteLength(segment) <= maxBytes) yield segment;
    else yield* segment; // string iteration is by code point: never splits a surrogate pair
  }
}
