/**
 * A daemon part whose code loads only when the config uses it or something first needs it
 * (issue 30: an idle daemon holds only what its config uses). The module is imported once; a
 * failure is logged and thrown as E_PART_LOAD to whoever asked (the start, an operator's
 * command), never swallowed, and the next ask tries again.
 */
import { partLoadFailed } from "../errors.js";
import type { Logger } from "../logger.js";

/** Returns a loader for `part`: the first call imports it, later calls share that import. */
export function lazyPart<T>(part: string, load: () => Promise<T>, logger: Pick<Logger, "error">): () => Promise<T> {
  let loading: Promise<T> | null = null;
  return () =>
    (loading ??= load().catch((err: unknown) => {
      loading = null;
      const error = partLoadFailed(part, err);
      logger.error(error.message, { code: error.code });
      throw error;
    }));
}

/**
 * The parts a daemon loads when it starts (the config uses them): each added as a function that
 * imports and applies one; {@link StartLoads.run} runs them all, first thing in `start()`.
 */
export class StartLoads {
  private readonly loads: Array<() => Promise<void>> = [];

  /** Adds a part to load at start. */
  add(load: () => Promise<void>): void {
    this.loads.push(load);
  }

  /** Loads and applies every part added; rejects with the first failure (E_PART_LOAD). */
  async run(): Promise<void> {
    await Promise.all(this.loads.splice(0).map((load) => load()));
  }
}
