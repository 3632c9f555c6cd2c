/**
 * What a shell pattern (`Bash(npm test*)`) covers, decided on the parsed command
 * (shell-command.ts), not on its text.
 *
 * A pattern's glob is a list of words separated by spaces (`\ ` is a space inside a word).
 * Within a word `*` and `?` match characters of that word, `{a,b}` either alternative and `\`
 * the next character literally. A `*` at the very end of the pattern, alone or glued to the last
 * word, stands for "and any further words": `Bash(npm test*)` = `Bash(npm test *)` = argv is
 * `npm`, `test`, then zero or more words.
 *
 * - **allow** and saved rules cover only a plain command (one simple command of literal words),
 *   compared word by word with its literal argv; a word matched by a wildcard (the further
 *   words too) must not be a file-writing option (shell-write-options.ts).
 * - **deny** matches every simple command anywhere in the script, wrappers removed; the
 *   program by every name it is known by (shell-program.ts); options in any order and
 *   spelling (`-rf`, `-fr`, `-r -f`, `--recursive --force`, with the per-program synonyms
 *   below); and the pattern's other words as an in-order subsequence of the command's other
 *   words. Without a trailing `*` nothing else may be there. A command that could match but has
 *   a word that is not literal, or whose analysis is opaque, is "maybe": it cannot be proven
 *   clear of the pattern.
 */
import { globToRegExp } from "./permission-pattern.js";
import type { ShellAnalysis, ShellSimpleCommand } from "./shell-command.js";
import { basename } from "./shell-command.js";
import { programNames } from "./shell-program.js";
import { writesFile } from "./shell-write-options.js";

/** A shell pattern's words. */
export interface ShellPatternWords {
  /** Word globs, escapes kept (for globToRegExp). */
  words: string[];
  /** A trailing `*`: further words are covered. */
  rest: boolean;
}

/** Splits a pattern's glob into words (see the module comment). */
export function shellPatternWords(glob: string): ShellPatternWords {
  const words: string[] = [];
  let cur = "";
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "\\" && i + 1 < glob.length) {
      cur += c + glob[++i];
      continue;
    }
    if (c === "{") braces++;
    else if (c === "}" && braces > 0) braces--;
    if (c === " " && braces === 0) {
      if (cur) words.push(cur);
      cur = "";
    } else cur += c;
  }
  if (cur) words.push(cur);
  let rest = false;
  const last = words[words.length - 1];
  if (last === "*") {
    rest = true;
    words.pop();
  } else if (last && last.endsWith("*") && !last.endsWith("\\*")) {
    rest = true;
    words[words.length - 1] = last.slice(0, -1);
  }
  return { words, rest };
}

/** True when a word glob has a wildcard (`*`, `?`, `{`) that is not escaped. */
function hasWildcard(glob: string): boolean {
  for (let i = 0; i < glob.length; i++) {
    if (glob[i] === "\\") i++;
    else if ("*?{".includes(glob[i]!)) return true;
  }
  return false;
}

/** True when an allow pattern (or saved rule) covers the plain argv `argv`. */
export function allowCoversArgv(glob: string, argv: readonly string[]): boolean {
  const { words, rest } = shellPatternWords(glob);
  if (words.length === 0) return false;
  if (argv.length < words.length || (!rest && argv.length !== words.length)) return false;
  const program = basename(argv[0]!);
  for (let i = 0; i < words.length; i++) {
    if (!globToRegExp(words[i]!, "text").test(argv[i]!)) return false;
    if (i > 0 && hasWildcard(words[i]!) && writesFile(program, argv[i]!)) return false;
  }
  return argv.slice(words.length).every((w) => !writesFile(program, w));
}

/** How a deny pattern relates to a command: it matches, it might (cannot be told), or it does not. */
export type DenyMatch = "match" | "maybe" | "no";

/** Matches a deny pattern's glob against an analysed command (see the module comment). */
export function denyMatchesAnalysis(glob: string, analysis: ShellAnalysis, path?: string): DenyMatch {
  const pattern = shellPatternWords(glob);
  if (pattern.words.length === 0) return "maybe";
  let maybe = analysis.opaque.length > 0;
  for (const command of analysis.commands) {
    const m = denyMatchesCommand(pattern, command, path);
    if (m === "match") return "match";
    if (m === "maybe") maybe = true;
  }
  return maybe ? "maybe" : "no";
}

function denyMatchesCommand(pattern: ShellPatternWords, command: ShellSimpleCommand, path?: string): DenyMatch {
  const program = command.words[0];
  if (!program) return "no";
  if (program.literal === null) return "maybe";
  const programRe = globToRegExp(pattern.words[0]!, "text");
  const patternNames = hasWildcard(pattern.words[0]!) ? null : programNames(unescape(pattern.words[0]!), path);
  const names = programNames(program.literal, path);
  const same = patternNames ? names.some((n) => patternNames.includes(n)) : names.some((n) => programRe.test(n)) || programRe.test(program.literal);
  if (!same) return "no";
  const prog = patternNames ? patternNames[0]! : basename(program.literal);
  const want = splitArgs(prog, pattern.words.slice(1).map((g) => ({ text: unescape(g), glob: g })), (w) => globToRegExp(w.glob!, "text"));
  const words = command.words.slice(1);
  const unknown = words.some((w) => w.literal === null);
  const have = splitArgs(prog, words.filter((w) => w.literal !== null).map((w) => ({ text: w.literal!, glob: null })), (w) => w.text);
  const flagsOk = [...want.flags].every((f) => have.flags.has(f));
  const operandsOk = pattern.rest ? isSubsequence(want.operands, have.operands) : want.operands.length === have.operands.length && want.operands.every((o, i) => o.test(have.operands[i]!));
  const exactOk = pattern.rest || (have.flags.size === want.flags.size && flagsOk);
  if (flagsOk && operandsOk && exactOk) return "match";
  return unknown ? "maybe" : "no";
}

/** A word of a pattern or command: its text (escapes removed) and, for a pattern, its glob. */
interface ArgWord {
  text: string;
  glob: string | null;
}

/** Options as canonical tokens (`-rf`, `--recursive --force` -> `-r`, `-f` for rm), and the other words. */
function splitArgs<T extends RegExp | string>(program: string, words: ArgWord[], operand: (w: ArgWord) => T): { flags: Set<string>; operands: T[] } {
  const flags = new Set<string>();
  const operands: T[] = [];
  let options = true;
  for (const w of words) {
    if (options && w.text === "--") {
      options = false;
      continue;
    }
    if (options && w.text.startsWith("-") && w.text !== "-" && (w.glob === null || !hasWildcard(w.glob))) {
      for (const f of canonicalFlags(program, w.text)) flags.add(f);
      continue;
    }
    operands.push(operand(w));
  }
  return { flags, operands };
}

/** Per-program option synonyms culture knows (documented in docs/approvals.md). Keys are the spellings; values canonical short flags. */
export const FLAG_SYNONYMS: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  rm: { "-R": ["-r"], "--recursive": ["-r"], "--force": ["-f"], "--dir": ["-d"], "--verbose": ["-v"], "--interactive": ["-i"] },
  cp: { "-R": ["-r"], "--recursive": ["-r"], "--force": ["-f"], "--archive": ["-a"] },
  mv: { "--force": ["-f"] },
  ln: { "--force": ["-f"], "--symbolic": ["-s"] },
  chmod: { "--recursive": ["-R"] },
  chown: { "--recursive": ["-R"] },
  chgrp: { "--recursive": ["-R"] },
  shred: { "--remove": ["-u"], "--force": ["-f"] },
  git: { "--force": ["-f"], "--delete": ["-d"], "-D": ["-d", "-f"], "--hard": ["--hard"], "--all": ["--all"], "--mirror": ["--mirror"] },
  npm: { "--force": ["-f"] },
  docker: { "--force": ["-f"] },
  kubectl: { "--force": ["--force"] },
};

function canonicalFlags(program: string, word: string): string[] {
  const table = FLAG_SYNONYMS[program] ?? {};
  if (word.startsWith("--")) {
    const name = word.split("=")[0]!;
    if (table[name]) return [...table[name]!];
    // GNU getopt and git accept a unique abbreviation of a long option (`--rec`).
    const longs = Object.keys(table).filter((k) => k.startsWith("--") && k.startsWith(name) && name.length >= 4);
    if (longs.length === 1) return [...table[longs[0]!]!];
    return [name];
  }
  const out: string[] = [];
  for (const c of word.slice(1)) {
    const f = `-${c}`;
    out.push(...(table[f] ?? [f]));
  }
  return out;
}

function isSubsequence(want: RegExp[], have: string[]): boolean {
  let j = 0;
  for (const w of have) if (j < want.length && want[j]!.test(w)) j++;
  return j === want.length;
}

function unescape(glob: string): string {
  return glob.replace(/\\(.)/g, "$1");
}
