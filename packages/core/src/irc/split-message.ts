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

/**
 * Splits one line (no CR/LF in it) into pieces of at most `maxBytes` bytes; see
 * {@link splitMessage}. Works on string indices in time linear in the length of the line (a
 * 1 MB `irc_send` splits in milliseconds; the grapheme segmenter is only asked about text
 * that is not plain ASCII, one window at a time).
 */
export function splitLine(line: string, maxBytes: number): string[] {
  if (utf8Bytes(line) <= maxBytes) return line.length ? [line] : [];
  const units = new UnitCursor(line, maxBytes);
  const isSpaceUnit = (i: number): boolean => line.charCodeAt(i) === 0x20 && units.end(i) === i + 1;
  const pieces: string[] = [];
  let pos = 0;
  while (pos < line.length) {
    // Take whole units while they fit, remembering the last space that could end the piece
    // (never the piece's first unit: no empty pieces).
    let end = pos;
    let bytes = 0;
    let lastSpace = -1;
    let overflow = false;
    while (end < line.length) {
      const next = units.end(end);
      const size = utf8Bytes(line, end, next);
      if (bytes + size > maxBytes) {
        overflow = true;
        break;
      }
      if (end > pos && next === end + 1 && line.charCodeAt(end) === 0x20) lastSpace = end;
      bytes += size;
      end = next;
    }
    if (!overflow) {
      pieces.push(line.slice(pos));
      break;
    }
    if (isSpaceUnit(end)) {
      // The space itself is the break: it ends this piece and is dropped.
      pieces.push(line.slice(pos, end));
      pos = end + 1;
    } else if (lastSpace > pos) {
      // Break at the last space (dropped); what followed it starts the next piece.
      pieces.push(line.slice(pos, lastSpace));
      pos = lastSpace + 1;
    } else {
      // One long word: break at the last whole unit that fits.
      pieces.push(line.slice(pos, end));
      pos = end;
    }
  }
  return pieces;
}

/**
 * UTF-8 length of `s` (or of `s.slice(from, to)`), as `Buffer.byteLength` counts it (a lone
 * surrogate becomes U+FFFD, 3 bytes), without a native call per grapheme.
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

const segmenter = typeof Intl.Segmenter === "function" ? new Intl.Segmenter(undefined, { granularity: "grapheme" }) : null;

/**
 * Where each unit of a line ends. A unit is a grapheme (an emoji with modifiers stays whole),
 * or a code point when the grapheme is longer than `maxBytes` (zalgo text). Between two ASCII
 * characters there is always a grapheme boundary (CR, the exception, never gets here), so
 * plain text is answered from the character codes. Other text is segmented in windows of a
 * few pieces' worth of code units, each starting at a known boundary: V8's segmenter slows
 * down more than linearly on one long string (a 150,000-character `irc_send` took 25 s).
 */
class UnitCursor {
  /** Unit start -> unit end, for the segmented window. */
  private readonly ends = new Map<number, number>();
  private readonly window: number;

  constructor(
    private readonly line: string,
    private readonly maxBytes: number,
  ) {
    // A piece holds at most maxBytes code units (each is at least one byte), so a grapheme
    // that does not end inside a window this wide is longer than maxBytes: code points.
    this.window = Math.max(1024, maxBytes * 2);
  }

  /** The end index of the unit that starts at `i` (a unit boundary). */
  end(i: number): number {
    const line = this.line;
    if (line.charCodeAt(i) < 0x80 && (i + 1 === line.length || line.charCodeAt(i + 1) < 0x80)) return i + 1;
    const known = this.ends.get(i);
    if (known !== undefined) return known;
    this.segmentFrom(i);
    return this.ends.get(i) ?? codePointEnd(line, i);
  }

  private segmentFrom(pos: number): void {
    const line = this.line;
    // A piece only ever goes back to a boundary inside itself: older entries can go.
    if (this.ends.size > 4 * this.window) this.ends.clear();
    if (!segmenter) {
      for (let i = pos, n = 0; i < line.length && n < this.window; n++) i = this.setEnd(i, codePointEnd(line, i));
      return;
    }
    let end = Math.min(line.length, pos + this.window);
    // Never cut a surrogate pair: the segmenter must see both code points around the cut.
    if (end < line.length && (line.charCodeAt(end - 1) & 0xfc00) === 0xd800) end++;
    const chunk = line.slice(pos, end);
    for (const { segment, index } of segmenter.segment(chunk)) {
      // The last grapheme of a window that stops short of the line's end may be cut: it is
      // segmented again from its start (unless it is all the window holds).
      if (end < line.length && index > 0 && index + segment.length === chunk.length) break;
      const start = pos + index;
      const stop = start + segment.length;
      if (utf8Bytes(line, start, stop) <= this.maxBytes) this.setEnd(start, stop);
      else for (let i = start; i < stop; ) i = this.setEnd(i, codePointEnd(line, i));
    }
  }

  private setEnd(start: number, end: number): number {
    this.ends.set(start, end);
    return end;
  }
}

/** The end index of the code point at `i` (a surrogate pair is one code point). */
function codePointEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? i + 2 : i + 1;
}
