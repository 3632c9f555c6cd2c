/**
 * Recognises the `culture start` command lines main.ts runs without commander: `culture start
 * <nick>` and `culture start --all`, with `--timeout <seconds>` and `--parallel <n>` (each once,
 * `--opt value` or `--opt=value`) and the global `--config`/`-c <path>` and `--debug` anywhere.
 * That is the parent of every fleet start, which should spend its CPU on spawning daemons rather
 * than on loading the whole program (issue 30). Anything else — `--foreground` (foreground-args.ts
 * has the daemon's line), another option, a third word, `--help`, a repeated option, `--`, a
 * value that looks like an option — is left to commander, so those errors and their wording
 * stay commander's. Values are not judged here: `runStart` checks them as the commander action does.
 */
import type { StartOptions } from "./start-fleet.js";

/** `--timeout`'s default (seconds), for `culture start` and `culture restart` alike. */
export const DEFAULT_START_TIMEOUT = "60";

/** A plain `culture start` as commander would have parsed it. */
export interface StartArgs {
  nick: string | undefined;
  options: StartOptions;
  /** `--config` or `-c`; undefined when not given (then CULTURE_CONFIG, then the search). */
  config: string | undefined;
  debug: boolean;
}

/** The `culture start` that `argv` (after the node and script paths) asks for, or null for commander. */
export function startArgs(argv: readonly string[]): StartArgs | null {
  const line = startLine(argv);
  if (!line || line.foreground) return null;
  const options: StartOptions = { timeout: line.timeout ?? DEFAULT_START_TIMEOUT };
  if (line.all) options.all = true;
  if (line.parallel !== undefined) options.parallel = line.parallel;
  return { nick: line.nick, options, config: line.config, debug: line.debug };
}

/** A `culture start` command line, word by word: what both fast paths (this and foreground-args.ts) read. */
export interface StartLine {
  nick: string | undefined;
  config: string | undefined;
  debug: boolean;
  all: boolean;
  foreground: boolean;
  timeout: string | undefined;
  parallel: string | undefined;
}

/**
 * Reads `culture start [nick]` with `--all`, `--foreground`, `--timeout`, `--parallel` (after
 * `start`, each once, `--opt value` or `--opt=value`) and `--config`/`-c`, `--debug` anywhere;
 * null for any other line (commander's to parse and judge).
 */
export function startLine(argv: readonly string[]): StartLine | null {
  let command = false;
  const line: StartLine = { nick: undefined, config: undefined, debug: false, all: false, foreground: false, timeout: undefined, parallel: undefined };
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    const option = /^(--config|-c|--timeout|--parallel)(=.*)?$/.exec(word);
    if (option) {
      const key = option[1] === "-c" || option[1] === "--config" ? "config" : (option[1]!.slice(2) as "timeout" | "parallel");
      // -c=path is not commander's syntax for a short option; `--timeout` before `start` belongs to no command.
      if ((option[1] === "-c" && option[2] !== undefined) || (key !== "config" && !command)) return null;
      const value = option[2] !== undefined ? option[2].slice(1) : argv[++i];
      // A repeated option, an empty one, or a value that looks like an option (or none) is commander's to judge.
      if (line[key] !== undefined || value === undefined || value === "" || value.startsWith("-")) return null;
      line[key] = value;
    } else if (word === "--debug") {
      if (line.debug) return null;
      line.debug = true;
    } else if ((word === "--all" || word === "--foreground") && command) {
      const flag = word === "--all" ? "all" : "foreground";
      if (line[flag]) return null;
      line[flag] = true;
    } else if (word.startsWith("-")) {
      return null;
    } else if (!command) {
      if (word !== "start") return null;
      command = true;
    } else {
      if (line.nick !== undefined) return null;
      line.nick = word;
    }
  }
  return command ? line : null;
}
