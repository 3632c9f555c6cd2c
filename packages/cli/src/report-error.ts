/**
 * The CLI's error policy for everything but commander's own errors, apart from the program so
 * that the fast paths in main.ts (which load no commander) report errors exactly like it: a
 * CultureError prints its message alone (exit 1, or 2 for usage errors), anything else prints
 * its stack; `--debug` adds stacks everywhere.
 */
import { isCultureError } from "@culture/core/config";

/** Prints `err` per the policy and returns the exit code. */
export function reportCultureError(err: unknown, debug: boolean): number {
  if (isCultureError(err)) {
    process.stderr.write(`${debug && err.stack ? err.stack : err.message}\n`);
    if (debug && err.cause) process.stderr.write(`Caused by: ${err.cause instanceof Error ? err.cause.stack : String(err.cause)}\n`);
    return err.code === "E_USAGE" ? 2 : 1;
  }
  process.stderr.write(`culture: unexpected error (this is a bug)\n${err instanceof Error ? err.stack : String(err)}\n`);
  return 1;
}
