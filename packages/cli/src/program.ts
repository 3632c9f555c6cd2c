/**
 * The commander program: global options, one file per command (src/commands/), and the
 * error policy — a CultureError prints its message alone (exit 1, or 2 for usage errors),
 * anything else prints its stack; `--debug` adds stacks everywhere.
 */
import { Command, CommanderError } from "commander";
import { commands } from "./commands/index.js";
import { cliVersion } from "./version.js";
import { reportCultureError } from "./report-error.js";

export { configOption, globalOptions, type GlobalOptions } from "./options.js";

/** Builds the program (exported for tests). */
export function buildProgram(): Command {
  const program = new Command("culture")
    .description("Run AI coding agents on IRC, beside humans and each other.")
    .version(cliVersion(), "-V, --version")
    .option("-c, --config <path>", "config file (default: search from the cwd, then $CULTURE_HOME/agents.yaml; env CULTURE_CONFIG)")
    .option("--debug", "print stack traces")
    .showHelpAfterError()
    .exitOverride();
  for (const register of commands) register(program);
  return program;
}

/** Runs the CLI with the given arguments and sets the exit code. */
export async function runCli(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (err) {
    process.exitCode = reportError(err, argv.includes("--debug"));
  }
}

/** Prints an error per the policy and returns the exit code. */
export function reportError(err: unknown, debug: boolean): number {
  if (err instanceof CommanderError) {
    // commander already printed usage errors; help and version exit 0.
    return err.exitCode === 0 ? 0 : 2;
  }
  return reportCultureError(err, debug);
}
