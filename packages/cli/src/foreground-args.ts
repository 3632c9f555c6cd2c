/**
 * Recognises the one command line main.ts runs without commander: `culture start <nick>
 * --foreground`, with the global `--config`/`-c <path>` and `--debug` anywhere, the way
 * `culture start` spawns every daemon and the systemd unit runs one. Anything else — another
 * option, a second nick, `--help`, a repeated option, `--` — is left to commander, so every
 * error and its wording stay commander's.
 */

/** A foreground start as commander would have parsed it. */
export interface ForegroundArgs {
  nick: string;
  /** `--config` or `-c`; undefined when not given (then CULTURE_CONFIG, then the search). */
  config: string | undefined;
  debug: boolean;
}

/** The foreground start `argv` (after the node and script paths) asks for, or null for commander. */
export function foregroundArgs(argv: readonly string[]): ForegroundArgs | null {
  let command = false;
  let foreground = false;
  let debug = false;
  let config: string | undefined;
  let nick: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === "--config" || word === "-c") {
      const value = argv[++i];
      // A value that looks like an option (or none) is commander's to judge.
      if (config !== undefined || value === undefined || value.startsWith("-")) return null;
      config = value;
    } else if (word.startsWith("--config=")) {
      if (config !== undefined || word.length === "--config=".length) return null;
      config = word.slice("--config=".length);
    } else if (word === "--debug") {
      if (debug) return null;
      debug = true;
    } else if (word === "--foreground" && command) {
      if (foreground) return null;
      foreground = true;
    } else if (word.startsWith("-")) {
      return null;
    } else if (!command) {
      if (word !== "start") return null;
      command = true;
    } else {
      if (nick !== undefined) return null;
      nick = word;
    }
  }
  return command && foreground && nick !== undefined ? { nick, config, debug } : null;
}
