/**
 * IRC lines in and out: the RFC 1459 message grammar with IRCv3 message tags.
 *
 * Parsing is lenient where real clients are sloppy (runs of spaces, a lowercase command, a
 * source prefix a client should not send) and strict where it protects other users: tag
 * values are unescaped on the way in and escaped again on the way out, so a client cannot
 * smuggle a `;` or a space into another client's tag section.
 */

/** One parsed IRC message. */
export interface IrcMessage {
  /** Tags as sent (`+` client tags included), values unescaped; empty when there were none. */
  tags: Map<string, string>;
  /** The source prefix without its `:`, if the line had one (clients should not send one). */
  source: string | undefined;
  /** The command, upper-cased (`PRIVMSG`, `001`). */
  command: string;
  /** Middle parameters and the trailing one, in order. */
  params: string[];
}

/**
 * Parses one line (no CR/LF). Returns null for a line with no command (blank, only tags or
 * only a prefix), which the server ignores as RFC 1459 says.
 */
export function parseMessage(line: string): IrcMessage | null {
  let pos = 0;
  const tags = new Map<string, string>();
  if (line.charCodeAt(0) === 0x40 /* @ */) {
    const end = line.indexOf(" ");
    if (end === -1) return null;
    for (const part of line.slice(1, end).split(";")) {
      if (part.length === 0) continue;
      const eq = part.indexOf("=");
      if (eq === -1) tags.set(part, "");
      else tags.set(part.slice(0, eq), unescapeTagValue(part.slice(eq + 1)));
    }
    pos = end + 1;
  }
  pos = skipSpaces(line, pos);
  let source: string | undefined;
  if (line.charCodeAt(pos) === 0x3a /* : */) {
    const end = line.indexOf(" ", pos);
    if (end === -1) return null;
    source = line.slice(pos + 1, end);
    pos = skipSpaces(line, end + 1);
  }
  let end = line.indexOf(" ", pos);
  if (end === -1) end = line.length;
  const command = line.slice(pos, end).toUpperCase();
  if (command.length === 0) return null;
  pos = skipSpaces(line, end);
  const params: string[] = [];
  while (pos < line.length) {
    if (line.charCodeAt(pos) === 0x3a /* : */) {
      params.push(line.slice(pos + 1));
      break;
    }
    let next = line.indexOf(" ", pos);
    if (next === -1) next = line.length;
    params.push(line.slice(pos, next));
    pos = skipSpaces(line, next);
  }
  return { tags, source, command, params };
}

/**
 * The wire form of a command and its parameters (no tags, no CR/LF): the last parameter
 * gets a `:` when it is empty, has a space or starts with `:`, or always with `trailing`
 * (text parameters, as ircds write them). Middle parameters must not need one.
 */
export function formatParams(command: string, params: readonly string[], trailing = false): string {
  let out = command;
  const last = params.length - 1;
  for (let i = 0; i < params.length; i++) {
    const p = params[i]!;
    if (i === last && (trailing || p.length === 0 || p.includes(" ") || p.charCodeAt(0) === 0x3a)) out += " :" + p;
    else out += " " + p;
  }
  return out;
}

/** `key=value;key2` from a tag map (values escaped; empty values written as bare keys). */
export function formatTags(tags: Iterable<readonly [string, string]>): string {
  let out = "";
  for (const [k, v] of tags) {
    if (out.length > 0) out += ";";
    out += v.length === 0 ? k : `${k}=${escapeTagValue(v)}`;
  }
  return out;
}

/** Escapes a tag value per IRCv3 message-tags (`;` `\s` `\\` `\r` `\n`). */
export function escapeTagValue(value: string): string {
  if (!/[; \\\r\n]/.test(value)) return value;
  return value.replace(/[; \\\r\n]/g, (c) => TAG_ESCAPES[c] ?? c);
}

/** Reverses {@link escapeTagValue}; a lone trailing backslash is dropped, as the spec says. */
export function unescapeTagValue(value: string): string {
  if (!value.includes("\\")) return value;
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const n = value[++i];
    if (n === undefined) break;
    out += TAG_UNESCAPES[n] ?? n;
  }
  return out;
}

/** The longest wire line without tags, CR LF included (RFC 1459). */
export const MAX_LINE_BYTES = 512;
/** The longest tag section (`@` through the space before the rest), per IRCv3 message-tags. */
export const MAX_TAGS_BYTES = 8191;

/**
 * Cuts `text` so that it is at most `maxBytes` of UTF-8, never inside a character. Outgoing
 * lines are clipped with it: a relayed message grows by the sender's prefix, and RFC 1459
 * clients may not accept more than 512 bytes.
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  // A UTF-16 code unit is at most 3 bytes of UTF-8: short strings need no measuring.
  if (text.length * 3 <= maxBytes) return text;
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) to the start of the cut character.
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString("utf8");
}

const TAG_ESCAPES: Record<string, string> = { ";": "\\:", " ": "\\s", "\\": "\\\\", "\r": "\\r", "\n": "\\n" };
const TAG_UNESCAPES: Record<string, string> = { ":": ";", s: " ", "\\": "\\", r: "\r", n: "\n" };

function skipSpaces(line: string, pos: number): number {
  while (line.charCodeAt(pos) === 0x20) pos++;
  return pos;
}
