/**
 * How `culture start --all` paces its daemons. Each daemon is a node process that loads culture,
 * logs in to IRC and starts its agent (another process): all 50 at once on two cores made 100
 * processes share the CPU, and the embedded server's registration deadline (10 s) passed for a
 * fifth of them. Starting at most a few per core at a time keeps every core busy (one daemon
 * loads while another waits for its login or its agent) without starving any of them, so the
 * whole fleet is up sooner than when everything fights for the CPU.
 */
import { availableParallelism } from "node:os";
import { usageError } from "@culture/core/config";

/** Daemons starting at once per CPU core, by default. */
export const STARTS_PER_CORE = 8;

/** The default bound: {@link STARTS_PER_CORE} per core the process may use, at least 2. */
export function defaultParallelStarts(cores = availableParallelism()): number {
  return Math.max(2, cores * STARTS_PER_CORE);
}

/** Parses `--parallel <n>`: a positive integer, or the default when absent. */
export function parseParallel(value: string | undefined): number {
  if (value === undefined) return defaultParallelStarts();
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw usageError(`--parallel must be a whole number of daemons (1 or more), got "${value}"`);
  return n;
}

/**
 * Runs `start` for every item with at most `limit` running at once (the next one begins as
 * soon as one settles); resolves with the results in the items' order. `start` must not throw.
 */
export async function startInWaves<T, R>(items: readonly T[], limit: number, start: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await start(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
