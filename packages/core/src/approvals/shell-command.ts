/**
 * What a shell command runs, read with a real bash parser (shell-parser.ts) rather than from
 * its text: every simple command at any depth (in pipelines, lists, subshells, groups,
 * functions, command and process substitutions, here-docs, `bash -c '…'` / `eval '…'` /
 * `trap '…'` strings parsed again, `find -exec …`), with wrappers taken off (`command`, `exec`,
 * `builtin`, `env`, `nohup`, `time`, `nice`, `sudo`, `xargs`, `timeout`, …) so `sudo env rm`
 * is seen as `rm`.
 *
 * Two answers come out of it. `plain` (with {@link plainArgv}): exactly one simple command of
 * literal words; only such a command can be allowed by a pattern or saved rule. `opaque`:
 * reasons what runs cannot be known from the text (a program word that is not a literal, code
 * in a string that is not a literal, prompt expansion, arithmetic that reads variables, a shell
 * reading its script from stdin, text the parser could not read); such a command cannot be
 * proven clear of a deny pattern.
 */
import { parseShell, type ShellNode } from "./shell-parser.js";
import { lexPlainCommand, literalWordValue } from "./shell-words.js";

/** One word of a simple command. */
export interface ShellWord {
  /** The word as written. */
  source: string;
  /** Its value after quote removal, or null when the shell would expand it. */
  literal: string | null;
}

/** One simple command that runs, wrappers removed. */
export interface ShellSimpleCommand {
  /** The words from the program on (`rm -rf x` of `sudo -u root rm -rf x`). */
  words: ShellWord[];
  /** The wrappers removed in front, outermost first (`["sudo"]`). */
  wrappers: string[];
}

/** The analysis of one command line. */
export interface ShellAnalysis {
  command: string;
  /** The parser read it without errors. */
  parsed: boolean;
  /** The literal argv when the command is plain, else null. */
  argv: string[] | null;
  /** Why the command is not plain (null when it is). */
  notPlain: string | null;
  /** Every simple command found, at any depth. */
  commands: ShellSimpleCommand[];
  /** Why what runs cannot all be known from the text; empty when it can. */
  opaque: string[];
}

/** How deep `bash -c '…'` inside `bash -c '…'` is followed before giving up (opaque). */
const MAX_DEPTH = 4;

const cache = new Map<string, ShellAnalysis>();
const CACHE_SIZE = 256;

/** Analyses `command` (cached: the policy asks about the same command several times). */
export function analyzeShellCommand(command: string): ShellAnalysis {
  const hit = cache.get(command);
  if (hit) return hit;
  const commands: ShellSimpleCommand[] = [];
  const opaque: string[] = [];
  const parsed = collectScript(command, 0, commands, opaque);
  let argv: string[] | null = null;
  let notPlain: string | null = null;
  const lex = lexPlainCommand(command);
  if (!lex.ok) notPlain = lex.why;
  else if (!parsed) notPlain = opaque[0] ?? "the shell parser could not read it";
  else {
    notPlain = parserDisagrees(command, lex.raw);
    if (notPlain === null) argv = lex.words;
  }
  const result: ShellAnalysis = { command, parsed, argv, notPlain, commands, opaque: [...new Set(opaque)] };
  if (result.parsed) {
    // Only keep answers given with the parser loaded.
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(command, result);
  }
  return result;
}

/**
 * The literal argv of a plain command (one simple command, every word a literal; see the module
 * comment), or null. Another check (protected paths) reads path arguments with it.
 */
export function plainArgv(command: string): string[] | null {
  return analyzeShellCommand(command).argv;
}

/** Parses `script` and collects its simple commands; false when it could not be parsed. */
function collectScript(script: string, depth: number, out: ShellSimpleCommand[], opaque: string[]): boolean {
  if (depth > MAX_DEPTH) {
    opaque.push(`shell code nested more than ${MAX_DEPTH} levels deep`);
    return false;
  }
  const tree = parseShell(script);
  if (!tree) {
    opaque.push("the shell parser is not loaded");
    return false;
  }
  try {
    const root = tree.rootNode;
    const ok = !root.hasError;
    if (!ok) opaque.push("the shell parser could not read it");
    walk(root, depth, out, opaque);
    return ok;
  } finally {
    tree.delete();
  }
}

function walk(node: ShellNode, depth: number, out: ShellSimpleCommand[], opaque: string[]): void {
  switch (node.type) {
    case "command":
      simpleCommand(node, depth, out, opaque);
      break;
    case "expansion": {
      const t = node.text;
      if (t.startsWith("${!")) opaque.push(`indirect expansion ${t}`);
      if (/@[A-Za-z]?P/.test(t.slice(2)) || /@P\}$/.test(t)) opaque.push(`prompt expansion ${t} (it can run commands)`);
      // `${x:off:len}`: the offsets are arithmetic, and arithmetic on a variable can run code.
      const offset = /^\$\{[A-Za-z_][A-Za-z0-9_]*:([^-=?+][^]*)\}$/.exec(t);
      if (offset && /[A-Za-z_$]/.test(offset[1]!)) opaque.push(`arithmetic in ${t} (it can run code)`);
      break;
    }
    case "subscript": {
      const index = node.childForFieldName("index");
      if (index && !/^[0-9@*]+$/.test(index.text)) opaque.push(`an array subscript ${node.text} (arithmetic, which can run code)`);
      break;
    }
    case "arithmetic_expansion":
    case "c_style_for_statement":
      if (readsVariables(node)) opaque.push(`arithmetic that reads variables: ${short(node.text)} (it can run code)`);
      break;
    case "compound_statement":
      if (node.text.startsWith("((") && readsVariables(node)) opaque.push(`arithmetic that reads variables: ${short(node.text)} (it can run code)`);
      break;
    case "test_command":
      if (/\s-(eq|ne|lt|le|gt|ge|v)\s/.test(node.text) && readsVariables(node)) opaque.push(`[[ … ]] arithmetic or -v: ${short(node.text)} (it can run code)`);
      break;
    case "declaration_command":
    case "unset_command": {
      // `declare`, `local`, `export`, `readonly`, `typeset`, `unset` have nodes of their own.
      const keyword = node.child(0)?.text ?? "declare";
      const words: ShellWord[] = [{ source: keyword, literal: keyword }];
      for (const c of node.namedChildren) if (c) words.push({ source: c.text, literal: c.type === "variable_assignment" ? null : literalWordValue(c) });
      out.push({ words, wrappers: [] });
      if (node.text.includes("[") || words.some((w) => w.literal !== null && /^-[A-Za-z]*[in]/.test(w.literal)))
        opaque.push(`${keyword} with a subscript or an integer attribute (arithmetic, which can run code)`);
      break;
    }
    default:
      break;
  }
  for (const child of node.namedChildren) if (child) walk(child, depth, out, opaque);
}

function readsVariables(node: ShellNode): boolean {
  if (["variable_name", "simple_expansion", "expansion", "word", "command_substitution"].includes(node.type) && !/^[0-9]+$/.test(node.text)) return true;
  return node.namedChildren.some((c) => c !== null && readsVariables(c));
}

/** The words of one `command` node: adjacent nodes are one word (the grammar splits `"r"\m`). */
function commandWords(node: ShellNode): ShellWord[] {
  const words: ShellWord[] = [];
  let lastEnd = -1;
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i);
    if (!child) continue;
    const field = node.fieldNameForChild(i);
    if (child.type !== "command_name" && field !== "argument") continue;
    const literal = literalWordValue(child);
    const prev = words[words.length - 1];
    if (prev && child.startIndex === lastEnd) {
      prev.source += child.text;
      prev.literal = prev.literal !== null && literal !== null ? prev.literal + literal : null;
    } else words.push({ source: child.text, literal });
    lastEnd = child.endIndex;
  }
  return words;
}

function simpleCommand(node: ShellNode, depth: number, out: ShellSimpleCommand[], opaque: string[]): void {
  resolveWords(commandWords(node), [], depth, out, opaque);
}

/** Removes wrappers, follows code in strings, and records the command that runs. */
function resolveWords(words: ShellWord[], wrappers: string[], depth: number, out: ShellSimpleCommand[], opaque: string[]): void {
  if (words.length === 0) return;
  const program = words[0]!;
  if (program.literal === null) {
    opaque.push(`the program ${program.source} is not a literal word`);
    out.push({ words, wrappers });
    return;
  }
  const name = basename(program.literal);
  const rest = words.slice(1);
  const again = (next: ShellWord[]) => resolveWords(next, [...wrappers, name], depth, out, opaque);
  const code = (word: ShellWord | undefined, what: string) => {
    if (!word) return;
    if (word.literal === null) opaque.push(`${what} ${word.source} is not a literal string`);
    else collectScript(word.literal, depth + 1, out, opaque);
  };
  out.push({ words, wrappers });
  // A program word holding spaces or shell syntax is read as a script too (`sudo -s 'rm -rf x'`
  // runs it through a shell): reading more than runs can only make a deny pattern match more.
  if (/[\s;&|<>()$`]/.test(program.literal)) collectScript(words.map((w) => w.literal ?? "").join(" "), depth + 1, out, opaque);
  if (name === "env") {
    // `env -S 'rm -rf x'` splits its string into a command.
    for (let i = 0; i < rest.length; i++) {
      const w = rest[i]!.literal;
      const split = w === "-S" || w === "--split-string" ? rest[i + 1] : w?.startsWith("--split-string=") ? { source: w, literal: w.slice(15) } : w?.startsWith("-S") && w.length > 2 ? { source: w, literal: w.slice(2) } : null;
      if (split) code(split, "the string of env -S");
    }
  }
  const wrapper = WRAPPERS[name];
  if (wrapper) {
    const r = skipOptions(rest, wrapper);
    if (r === "unknown") {
      opaque.push(`${name} with an option culture does not know: ${words.map((w) => w.source).join(" ")}`);
      return;
    }
    if (r === "stop") return;
    const after = rest.slice(r + (wrapper.operands ?? 0));
    if (name === "env") {
      let k = 0;
      while (k < after.length && after[k]!.literal !== null && /^[A-Za-z_][A-Za-z0-9_]*=/.test(after[k]!.literal!)) k++;
      if (k < after.length && after[k]!.literal === null && /^[A-Za-z_][A-Za-z0-9_]*=/.test(after[k]!.source)) {
        opaque.push(`env with an assignment culture cannot read: ${after[k]!.source}`);
        return;
      }
      return again(after.slice(k));
    }
    if (name === "watch" && !rest.some((w) => w.literal === "-x" || w.literal === "--exec")) {
      if (after.every((w) => w.literal !== null)) collectScript(after.map((w) => w.literal).join(" "), depth + 1, out, opaque);
      else opaque.push(`watch runs a command that is not literal`);
      return;
    }
    if (after.length === 0) return;
    return again(after);
  }
  if (SHELLS.has(name)) {
    const cIndex = rest.findIndex((w) => w.literal !== null && /^-[A-Za-z]*c[A-Za-z]*$/.test(w.literal) && !w.literal.startsWith("--"));
    if (cIndex >= 0) {
      const script = rest.slice(cIndex + 1).find((w) => !(w.literal !== null && /^[-+][A-Za-z]+$/.test(w.literal)));
      if (!script) opaque.push(`${name} -c without a script`);
      else code(script, `the script of ${name} -c`);
      return;
    }
    const operand = rest.find((w) => w.literal === null || !w.literal.startsWith("-"));
    if (!operand || rest.some((w) => w.literal === "-s")) opaque.push(`${name} reading its script from standard input`);
    else if (operand.literal === null) opaque.push(`${name} running the script ${operand.source}, which is not a literal word`);
    return;
  }
  switch (name) {
    case "eval":
      if (rest.every((w) => w.literal !== null)) collectScript(rest.map((w) => w.literal).join(" "), depth + 1, out, opaque);
      else opaque.push(`eval of words that are not literal: ${rest.map((w) => w.source).join(" ")}`);
      return;
    case "trap": {
      const first = rest[0];
      if (first && first.literal !== null && (first.literal.startsWith("-") || first.literal === "")) return;
      code(first, "the trap command");
      return;
    }
    case "su":
    case "runuser": {
      const i = rest.findIndex((w) => w.literal === "-c" || w.literal === "--command" || w.literal?.startsWith("--command=") === true);
      if (i < 0) return;
      const w = rest[i]!;
      if (w.literal!.startsWith("--command=")) code({ source: w.source, literal: w.literal!.slice("--command=".length) }, `the command of ${name}`);
      else code(rest[i + 1], `the command of ${name} -c`);
      return;
    }
    case "find": {
      for (let i = 0; i < rest.length; i++) {
        const w = rest[i]!.literal;
        if (w === "-exec" || w === "-execdir" || w === "-ok" || w === "-okdir") {
          let j = i + 1;
          while (j < rest.length && rest[j]!.literal !== ";" && rest[j]!.literal !== "+") j++;
          resolveWords(rest.slice(i + 1, j), [...wrappers, "find"], depth, out, opaque);
          i = j;
        }
      }
      return;
    }
    case "coproc":
      opaque.push("coproc (the parser does not read it)");
      return;
    default:
      break;
  }
  if (EVALUATING_BUILTINS.has(name)) opaque.push(`${name} evaluates its arguments as code`);
  else if (ARRAY_BUILTINS.has(name)) {
    // A subscript (`a[$(cmd)]`) or an integer attribute makes these evaluate arithmetic, which can run code.
    if (rest.some((w) => w.source.includes("[")) || (["declare", "typeset", "local", "readonly"].includes(name) && rest.some((w) => w.literal !== null && /^-[A-Za-z]*[in]/.test(w.literal))))
      opaque.push(`${name} with a subscript or an integer attribute (arithmetic, which can run code)`);
    if (name === "printf" && rest.some((w) => w.literal === "-v")) opaque.push("printf -v (assigns to a name that can hold a subscript)");
  }
}

/** How a wrapper's options look, so the program after them can be found. */
interface WrapperSpec {
  /** Options that take a value as the next word (or glued: `-uroot`, `--user=root`). */
  withValue: readonly string[];
  /** Options without a value. */
  flags: readonly string[];
  /** Options after which nothing runs (`command -v`). */
  stop?: readonly string[];
  /** Words after the options before the program (`timeout 5 cmd`, `chroot dir cmd`). */
  operands?: number;
  /** Options may also be `-N` numbers (`nice -5`). */
  numeric?: boolean;
}

const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  busybox: { withValue: [], flags: [] },
  toybox: { withValue: [], flags: [] },
  command: { withValue: [], flags: ["-p"], stop: ["-v", "-V"] },
  builtin: { withValue: [], flags: [] },
  exec: { withValue: ["-a"], flags: ["-c", "-l"] },
  env: { withValue: ["-u", "--unset", "-C", "--chdir", "-S", "--split-string"], flags: ["-i", "--ignore-environment", "-0", "--null", "-v", "--debug", "-"] },
  nohup: { withValue: [], flags: [] },
  setsid: { withValue: [], flags: ["-c", "--ctty", "-f", "--fork", "-w", "--wait"] },
  time: { withValue: ["-f", "--format", "-o", "--output"], flags: ["-p", "-a", "--append", "-v", "--verbose", "--portability"] },
  nice: { withValue: ["-n", "--adjustment"], flags: [], numeric: true },
  ionice: { withValue: ["-c", "--class", "-n", "--classdata", "-p", "--pid"], flags: ["-t", "--ignore"] },
  stdbuf: { withValue: ["-i", "--input", "-o", "--output", "-e", "--error"], flags: [] },
  timeout: { withValue: ["-s", "--signal", "-k", "--kill-after"], flags: ["--preserve-status", "--foreground", "-v", "--verbose"], operands: 1 },
  taskset: { withValue: [], flags: ["-a", "--all-tasks", "-c", "--cpu-list"], operands: 1 },
  chrt: { withValue: [], flags: ["-b", "-d", "-f", "-i", "-o", "-r", "-R", "-a", "-m", "-v"], operands: 1 },
  unbuffer: { withValue: [], flags: ["-p"] },
  sudo: {
    withValue: ["-u", "--user", "-g", "--group", "-h", "--host", "-p", "--prompt", "-C", "--close-from", "-D", "--chdir", "-r", "--role", "-t", "--type", "-U", "--other-user", "-T", "--command-timeout"],
    flags: ["-E", "--preserve-env", "-H", "--set-home", "-n", "--non-interactive", "-S", "--stdin", "-b", "--background", "-k", "--reset-timestamp", "-P", "--preserve-groups", "-A", "--askpass", "-B", "--bell", "-i", "--login", "-s", "--shell"],
  },
  doas: { withValue: ["-u", "-C"], flags: ["-n", "-s"] },
  xargs: {
    withValue: ["-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "--max-lines", "-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars", "--process-slot-var"],
    flags: ["-0", "--null", "-o", "--open-tty", "-p", "--interactive", "-r", "--no-run-if-empty", "-t", "--verbose", "-x", "--exit", "--show-limits"],
  },
  flock: { withValue: ["-w", "--timeout", "-E", "--conflict-exit-code"], flags: ["-s", "--shared", "-x", "-e", "--exclusive", "-u", "--unlock", "-n", "--nb", "--nonblock", "-o", "--close", "-F", "--no-fork", "--verbose"], operands: 1 },
  watch: { withValue: ["-n", "--interval", "-d", "--differences", "-q", "--equexit"], flags: ["-b", "--beep", "-e", "--errexit", "-g", "--chgexit", "-t", "--no-title", "-x", "--exec", "-c", "--color", "-p", "--precise", "-w", "--no-wrap"] },
};

/** Index of the first word after a wrapper's options, `stop` when nothing runs, `unknown` for an option it does not know. */
function skipOptions(words: ShellWord[], spec: WrapperSpec): number | "stop" | "unknown" {
  let i = 0;
  while (i < words.length) {
    const w = words[i]!.literal;
    if (w === null) return words[i]!.source.startsWith("-") ? "unknown" : i;
    if (w === "--") return i + 1;
    if (!w.startsWith("-") || w === "-") {
      if (w === "-" && spec.flags.includes("-")) {
        i++;
        continue;
      }
      return i;
    }
    if (spec.stop?.includes(w)) return "stop";
    if (spec.numeric && /^-[0-9]+$/.test(w)) {
      i++;
      continue;
    }
    if (spec.flags.includes(w)) {
      i++;
      continue;
    }
    const long = w.startsWith("--") ? w.split("=")[0]! : null;
    if (long !== null && spec.withValue.includes(long)) {
      i += w.includes("=") ? 1 : 2;
      continue;
    }
    if (spec.withValue.includes(w)) {
      i += 2;
      continue;
    }
    if (!w.startsWith("--") && spec.withValue.includes(w.slice(0, 2))) {
      i++; // a glued value: -uroot
      continue;
    }
    if (!w.startsWith("--") && w.length > 2 && [...w.slice(1)].every((c) => spec.flags.includes(`-${c}`))) {
      i++; // a cluster of flags: -En
      continue;
    }
    if (spec.stop && [...w.slice(1)].some((c) => spec.stop!.includes(`-${c}`))) return "stop";
    return "unknown";
  }
  return i;
}

/** Shells whose `-c` string is parsed again. */
const SHELLS: ReadonlySet<string> = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "rbash", "fish"]);

/** Builtins that run their arguments as code in ways the text does not show. */
const EVALUATING_BUILTINS: ReadonlySet<string> = new Set(["let", "mapfile", "readarray", "complete", "compgen", "bind", "fc", "enable", "source", "."]);

/** Builtins that evaluate a subscript or an integer attribute arithmetically. */
const ARRAY_BUILTINS: ReadonlySet<string> = new Set(["declare", "typeset", "local", "readonly", "export", "printf", "read", "unset", "test", "[", "wait"]);

/** The last path segment (`/usr/bin/rm` -> `rm`). */
export function basename(program: string): string {
  const i = program.lastIndexOf("/");
  return i >= 0 ? program.slice(i + 1) : program;
}

/** Checks that the parser sees exactly the lexer's one simple command; returns why not, or null. */
function parserDisagrees(command: string, raw: string[]): string | null {
  const tree = parseShell(command);
  if (!tree) return "the shell parser is not loaded";
  try {
    const root = tree.rootNode;
    const top = root.namedChildren.filter((c) => c !== null);
    if (top.length !== 1 || top[0]!.type !== "command") return `the parser reads it as ${top.map((c) => c.type).join(", ") || "nothing"}, not one simple command`;
    const cmd = top[0]!;
    for (let i = 0; i < cmd.childCount; i++) {
      const c = cmd.child(i);
      if (c?.isNamed && c.type !== "command_name" && cmd.fieldNameForChild(i) !== "argument") return `the parser finds ${c.type} in it`;
    }
    const words = commandWords(cmd);
    if (words.length !== raw.length || words.some((w, i) => w.source !== raw[i] || w.literal === null)) return "the parser reads its words differently";
    return null;
  } finally {
    tree.delete();
  }
}

function short(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
