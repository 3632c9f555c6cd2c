/**
 * Resolves after `ms`: the polls of process/ that wait for processes to go. Not
 * node:timers/promises: tsup drops the `node:` prefix, and vitest's module loader (which inlines
 * core for the claude suites) does not take bare `timers/promises` for a builtin.
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
