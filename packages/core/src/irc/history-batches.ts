/**
 * The IRCv3 batches open on the connection, so a PRIVMSG can be told to be a history replay
 * (a `chathistory` batch: the answer to CHATHISTORY, or InspIRCd's replay on JOIN) rather than
 * a live line, and catch-up can learn when a channel's replay has ended. Batches are scoped
 * to one connection: they are forgotten on a disconnect.
 */

/** Batch types that carry history (the ratified name and the draft one). */
const HISTORY_BATCHES = new Set(["chathistory", "draft/chathistory"]);

/** Open batches by reference, from the `BATCH` lines of one connection. */
export class HistoryBatches {
  /** reference -> type (lower-cased) and first parameter (the target of a history batch). */
  private readonly open = new Map<string, { type: string; target: string }>();

  /**
   * Takes the parameters of a `BATCH` line (`+ref type target...` or `-ref`). Returns the
   * target of a history batch that just ended (as the server spelled it), otherwise null.
   */
  onBatch(params: readonly string[]): string | null {
    const ref = params[0] ?? "";
    if (ref.startsWith("+")) {
      this.open.set(ref.slice(1), { type: (params[1] ?? "").toLowerCase(), target: params[2] ?? "" });
    } else if (ref.startsWith("-")) {
      const batch = this.open.get(ref.slice(1));
      this.open.delete(ref.slice(1));
      if (batch && HISTORY_BATCHES.has(batch.type)) return batch.target;
    }
    return null;
  }

  /** True when `ref` (a line's `batch` tag) names an open history batch. */
  isHistory(ref: string | undefined): boolean {
    return Boolean(ref && HISTORY_BATCHES.has(this.open.get(ref)?.type ?? ""));
  }

  /** Forgets every open batch (the connection is gone). */
  clear(): void {
    this.open.clear();
  }
}
