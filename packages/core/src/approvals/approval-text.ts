/**
 * The text of approval requests as people see it. What the operator reads must be what runs:
 * the whole command (never cut; split over several IRC lines when long), secrets masked
 * (secret-mask.ts), control characters made visible, and the command quoted so that nothing
 * inside it can pass for a request line or for the `Reply:` instructions:
 *
 *   [APPROVAL 7] wants to run "npm publish --tag next" (Bash). Reply: @spark-bot approve 7 | deny 7 [reason] | always 7
 *
 * A longer request is a header line and numbered continuation lines, each starting with the
 * request's own tag, each quoting one part of the text:
 *
 *   [APPROVAL 7] wants to run a 412-character command, quoted in the 2 lines below (Bash). Reply: ...
 *   [APPROVAL 7 1/2] "curl -s https://example.com/..."
 *   [APPROVAL 7 2/2] "...; touch P50"
 *
 * Past {@link APPROVAL_MAX_PARTS} parts the start is quoted and the last line says how much is
 * left and how to read it all (`culture approvals show <nick> <id>`).
 */
import { maskSecrets } from "./secret-mask.js";

export { MASK, MASK_RULES, maskInput, maskSecrets, type MaskRule } from "./secret-mask.js";

/** The longest summary in tables and status lines (`culture approvals list`, `culture status`). */
export const APPROVAL_SUMMARY_MAX = 120;

/** At most this many continuation lines quote a long request on IRC; past it, `culture approvals show` has the rest. */
export const APPROVAL_MAX_PARTS = 6;

/**
 * `text` with every character that could hide or fake something made visible: `\` -> `\\`,
 * CR/LF/TAB/ESC -> `\r` `\n` `\t` `\e`, other C0 controls and DEL -> `\xHH`, C1 controls,
 * bidi overrides and isolates, zero-width and other format characters, line/paragraph
 * separators and unusual spaces -> `\u{HHHH}`. With `quote`, that quote character is escaped too.
 */
export function visibleText(text: string, quote: '"' | null = '"'): string {
  let out = "";
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (ch === "\\") out += "\\\\";
    else if (quote !== null && ch === quote) out += `\\${quote}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (cp === 0x1b) out += "\\e";
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (HIDDEN.test(ch)) out += `\\u{${cp.toString(16)}}`;
    else out += ch;
  }
  return out;
}

/** Characters that are invisible, reorder text or look like a plain space. */
const HIDDEN = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}]$|^[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u115f\u1160\u3164\uffa0]$/u;

/** `text` masked, made visible and put in double quotes. */
export function quoteText(text: string): string {
  return `"${visibleText(maskSecrets(text))}"`;
}

/** One line for tables: masked, control characters visible, at most `max` characters with an ellipsis (the CLI's `show` has it all). */
export function shortenLine(text: string, max = APPROVAL_SUMMARY_MAX): string {
  const line = visibleText(maskSecrets(text).trim(), null);
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
}

/** A request's summary for tables and status: masked, visible, shortened. */
export function approvalSummary(summary: string): string {
  return shortenLine(summary) || "use a tool";
}

/** What a request line needs to know. */
export interface RequestText {
  id: string;
  /** The agent's nick (in `Reply: @<nick>` and the `show` pointer). */
  nick: string;
  tool: string;
  /** The command of a shell request; otherwise null and `summary` is quoted. */
  command: string | null;
  summary: string;
  /** Put after the tag on every line: `" spark-bot"` for #alerts, where many agents post. */
  who?: string;
}

/**
 * The IRC lines of one request, each at most `maxBytes` UTF-8 bytes: one line when the quoted
 * text fits, else a header and at most {@link APPROVAL_MAX_PARTS} quoted parts (the last one
 * pointing to `culture approvals show` when the text is longer still).
 */
export function requestLines(r: RequestText, maxBytes: number): string[] {
  const tag = `[APPROVAL ${r.id}]${r.who ?? ""}`;
  // A tool name is a plain word; anything else (an ACP title is the model's) is quoted like the command.
  const tool = /^[\w.:/-]{1,64}$/.test(r.tool) ? r.tool : quoteText(r.tool);
  const reply = `Reply: @${r.nick} approve ${r.id} | deny ${r.id} [reason] | always ${r.id}`;
  const body = visibleText(maskSecrets(r.command ?? r.summary));
  const what = r.command !== null ? "run" : "do";
  const single = `${tag} wants to ${what === "run" ? "run " : ""}"${body}" (${tool}). ${reply}`;
  if (bytes(single) <= maxBytes) return [single];

  const count = [...(r.command ?? r.summary)].length;
  const noun = r.command !== null ? `run a ${count}-character command` : `do what ${count} characters describe`;
  const partTag = (k: number, n: number) => `[APPROVAL ${r.id} ${k}/${n}]${r.who ?? ""} "`;
  // The widest tag a part can have, so every part fits whatever its number.
  const room = Math.max(16, maxBytes - bytes(partTag(APPROVAL_MAX_PARTS, APPROVAL_MAX_PARTS)) - 1 - bytes(` (continues: culture approvals show ${r.nick} ${r.id})`));
  const parts = splitBytes(body, room);
  const shown = parts.slice(0, APPROVAL_MAX_PARTS);
  const n = shown.length;
  const cut = parts.length > APPROVAL_MAX_PARTS;
  const header = cut
    ? `${tag} wants to ${noun}; the ${n} lines below quote its start, culture approvals show ${r.nick} ${r.id} prints all of it (${tool}). ${reply}`
    : `${tag} wants to ${noun}, quoted in the ${n} lines below (${tool}). ${reply}`;
  const lines = [header];
  shown.forEach((part, i) => {
    const last = i === n - 1;
    lines.push(`${partTag(i + 1, n)}${part}"${last && cut ? ` (continues: culture approvals show ${r.nick} ${r.id})` : ""}`);
  });
  return lines;
}

/** The one-line form of a request (webhooks): the whole quoted text, however long. */
export function requestLine(r: RequestText): string {
  return requestLines(r, Number.POSITIVE_INFINITY)[0]!;
}

function bytes(s: string): number {
  return Buffer.byteLength(s);
}

/**
 * Splits visible text into pieces of at most `max` bytes, never inside an escape (`\x1b`,
 * `\u{202e}`, `\"`) or a character, and after a space when one is in the second half of the
 * piece (so words stay whole; the space stays inside the quotes, nothing is lost).
 */
function splitBytes(text: string, max: number): string[] {
  const tokens = text.match(/\\u\{[0-9a-f]+\}|\\x[0-9a-f]{2}|\\.|[\s\S]/gu) ?? [];
  const out: string[] = [];
  let cur: string[] = [];
  let size = 0;
  for (const t of tokens) {
    const b = bytes(t);
    if (size + b > max && cur.length > 0) {
      const space = cur.lastIndexOf(" ");
      const cut = space >= cur.length / 2 ? space + 1 : cur.length;
      out.push(cur.slice(0, cut).join(""));
      cur = cur.slice(cut);
      size = bytes(cur.join(""));
    }
    cur.push(t);
    size += b;
  }
  if (cur.length > 0 || out.length === 0) out.push(cur.join(""));
  return out;
}
