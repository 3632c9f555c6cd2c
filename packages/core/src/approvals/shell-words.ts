/**
 * Words of a shell command as bash sees them after quote removal, and the strict reading of a
 * "plain" command: one simple command of literal words, nothing the shell would expand, run
 * or redirect. The plain reading is a small lexer of its own on purpose: the parser
 * (shell-parser.ts) finds the structure, and this lexer must agree with it word for word, so a
 * parser mistake can make a command "not plain" (asked) but never plain.
 */
import type { ShellNode } from "./shell-parser.js";

/** Bash's reserved words: as a first word they start syntax, not a program. */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  "!", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for", "function", "if", "in", "select", "then", "time", "until", "while", "{", "}", "[[", "]]",
]);

/** Characters a plain word may hold outside quotes (everything else is shell syntax or a glob). */
const PLAIN_UNQUOTED = /^[A-Za-z0-9_\-./:=@%+,^]$/;

/** A plain command's literal words, or why it is not plain. */
export type PlainLex = { ok: true; words: string[]; raw: string[] } | { ok: false; why: string };

/**
 * Reads `command` as plain words: printable ASCII only, words separated by spaces, each made of
 * safe characters, backslash escapes, '…' and "…" (without `$` or a backquote inside).
 * Anything else (an operator, an expansion, a glob, `~`, `{`, a tab or line break, a non-ASCII
 * character such as a fullwidth `；` or a zero-width space) makes it not plain.
 */
export function lexPlainCommand(command: string): PlainLex {
  const words: string[] = [];
  const raw: string[] = [];
  let i = 0;
  const n = command.length;
  for (let k = 0; k < n; k++) {
    const code = command.charCodeAt(k);
    if (code < 0x20 || code > 0x7e) {
      return { ok: false, why: code < 0x20 || code === 0x7f ? `it contains the control character U+${hex(code)}` : `it contains the non-ASCII character U+${hex(command.codePointAt(k)!)}` };
    }
  }
  while (i < n) {
    if (command[i] === " ") {
      i++;
      continue;
    }
    const start = i;
    let word = "";
    while (i < n && command[i] !== " ") {
      const c = command[i]!;
      if (c === "\\") {
        if (i + 1 >= n) return { ok: false, why: "it ends with a lone backslash" };
        word += command[i + 1];
        i += 2;
      } else if (c === "'") {
        const end = command.indexOf("'", i + 1);
        if (end < 0) return { ok: false, why: "a ' is not closed" };
        word += command.slice(i + 1, end);
        i = end + 1;
      } else if (c === '"') {
        i++;
        for (;;) {
          if (i >= n) return { ok: false, why: 'a " is not closed' };
          const d = command[i]!;
          if (d === '"') break;
          if (d === "$" || d === "`") return { ok: false, why: `it has ${d === "$" ? "an expansion ($)" : "a backquote"} inside double quotes` };
          if (d === "\\" && i + 1 < n && '$`"\\'.includes(command[i + 1]!)) {
            word += command[i + 1];
            i += 2;
          } else {
            word += d;
            i++;
          }
        }
        i++;
      } else if (PLAIN_UNQUOTED.test(c)) {
        word += c;
        i++;
      } else {
        return { ok: false, why: `it has an unquoted ${describeChar(c)}` };
      }
    }
    raw.push(command.slice(start, i));
    words.push(word);
  }
  if (words.length === 0) return { ok: false, why: "it is empty" };
  if (/^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(raw[0]!)) return { ok: false, why: "it starts with a variable assignment" };
  if (RESERVED_WORDS.has(words[0]!)) return { ok: false, why: `it starts with the reserved word ${words[0]}` };
  return { ok: true, words, raw };
}

/**
 * The literal value of one word node (quotes and escapes removed), or null when the word is
 * not a literal: an expansion, a substitution, a glob, a brace, a leading `~`, `$'…'`, `$"…"`.
 */
export function literalWordValue(node: ShellNode): string | null {
  switch (node.type) {
    case "command_name": {
      const inner = node.namedChildren[0];
      return inner ? literalWordValue(inner) : null;
    }
    case "word":
      return unquotedValue(node.text);
    case "number":
      return /^-?[0-9]+$/.test(node.text) ? node.text : null;
    case "raw_string":
      return node.text.startsWith("'") && node.text.endsWith("'") ? node.text.slice(1, -1) : null;
    case "string": {
      const t = node.text;
      if (!t.startsWith('"') || !t.endsWith('"')) return null;
      if (node.namedChildren.some((c) => c?.type !== "string_content")) return null;
      return doubleQuotedValue(t.slice(1, -1));
    }
    case "concatenation": {
      let out = "";
      for (const part of node.namedChildren) {
        const v = part ? literalWordValue(part) : null;
        if (v === null) return null;
        out += v;
      }
      // The parts must cover the whole text: a piece the grammar left unnamed (`$` of `$"…"`) is not literal.
      const covered = node.namedChildren.reduce((sum, c) => sum + (c ? c.endIndex - c.startIndex : 0), 0);
      return covered === node.endIndex - node.startIndex ? out : null;
    }
    default:
      return null;
  }
}

/** Quote removal on an unquoted word; null when bash would expand it (glob, brace, tilde, `$`). */
export function unquotedValue(text: string): string | null {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\") {
      if (i + 1 >= text.length) return null;
      if (text[i + 1] !== "\n") out += text[i + 1];
      i++;
    } else if ("*?[{~$`()<>;&|'\"".includes(c)) return null;
    else out += c;
  }
  return out;
}

function doubleQuotedValue(body: string): string | null {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "$" || c === "`") return null;
    if (c === "\\" && i + 1 < body.length && '$`"\\\n'.includes(body[i + 1]!)) {
      if (body[i + 1] !== "\n") out += body[i + 1];
      i++;
    } else out += c;
  }
  return out;
}

function describeChar(c: string): string {
  const names: Record<string, string> = {
    ";": "; (command separator)",
    "&": "& (background or &&)",
    "|": "| (pipe or ||)",
    "<": "< (redirection or process substitution)",
    ">": "> (redirection or process substitution)",
    $: "$ (expansion or substitution)",
    "`": "backquote (command substitution)",
    "(": "( (subshell or substitution)",
    ")": ") (subshell or substitution)",
    "*": "* (glob)",
    "?": "? (glob)",
    "[": "[ (glob)",
    "]": "] (glob)",
    "{": "{ (brace expansion or group)",
    "}": "} (brace expansion or group)",
    "~": "~ (home directory expansion)",
    "#": "# (comment)",
    "!": "! (negation or history)",
  };
  return names[c] ?? JSON.stringify(c);
}

function hex(code: number): string {
  return code.toString(16).toUpperCase().padStart(4, "0");
}
