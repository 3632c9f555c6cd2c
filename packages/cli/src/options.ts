/**
 * The global options every command accepts, read from inside a command's action. Kept apart
 * from program.ts so that command files never import the program that imports them.
 */
import type { Command } from "commander";

/** Global options every command accepts. */
export interface GlobalOptions {
  config?: string;
  debug?: boolean;
}

/** The global options seen from inside a command action. */
export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals() as GlobalOptions;
}

/** The config path from `--config` or `CULTURE_CONFIG` (undefined: search). */
export function configOption(command: Command): string | undefined {
  return globalOptions(command).config ?? (process.env.CULTURE_CONFIG || undefined);
}
