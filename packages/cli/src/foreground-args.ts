/**
 * Recognises the one command line main.ts runs without commander: `culture start <nick>
 * --foreground`, with the global `--config`/`-c <path>` and `--debug` anywhere, the way
 * `culture start` spawns every daemon and the systemd unit runs one. Anything else — another
 * option, a second nick, `--help`, a repeated option, `--` — is left to commander, so every
 * error and its wording stay commander's. The words are read once, by start-args.ts's startLine.
 */
import { startLine } from "./start-args.js";

/** A foreground start as commander would have parsed it. */
export interface ForegroundArgs {
  nick: string;
  /** `--config` or `-c`; undefined when not given (then CULTURE_CONFIG, then the search). */
  config: string | undefined;
  debug: boolean;
}

/** The foreground start `argv` (after the node and script paths) asks for, or null for commander. */
export function foregroundArgs(argv: readonly string[]): ForegroundArgs | null {
  const line = startLine(argv);
  // --all, --timeout and --parallel mean nothing to one daemon: commander's to answer.
  if (!line?.foreground || line.nick === undefined || line.all || line.timeout !== undefined || line.parallel !== undefined) return null;
  return { nick: line.nick, config: line.config, debug: line.debug };
}
