/**
 * A Claude Code turn's usage, from its `result` message. Claude Code's result restates the
 * running totals of its process: with one process serving every turn (stream-json in and
 * out, as the SDK runs it), `total_cost_usd` and `modelUsage` are the session's totals so far
 * (anthropics/claude-code#83239: "subtract the previous result's value"). So the turn's usage
 * is the difference from the previous result of the same process, per model; a new process
 * starts from zero. `modelUsage` is the per-model figure Claude Code calls authoritative for
 * billing, with Claude Code's own USD cost; its `inputTokens` are the uncached ones, so
 * culture's input (everything the model read) adds the cache reads and writes.
 */
import type { AgentMessage, Usage } from "@culture/core";

/** One model's running totals in a result's `modelUsage`. */
interface ModelTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number | null;
}

/** Turns a process's running totals into each turn's usage (see the module comment). */
export class ClaudeTurnUsage {
  private previous = new Map<string, ModelTotals>();

  /** A new Claude Code process: its totals start from zero. */
  reset(): void {
    this.previous = new Map();
  }

  /**
   * The turn's usage as content-less messages, one per model that did work since the previous
   * result (the daemon sums them into the turn's record). Empty when the result carries no
   * `modelUsage`.
   */
  messages(modelUsage: unknown): AgentMessage[] {
    if (!isRecord(modelUsage)) return [];
    const out: AgentMessage[] = [];
    const next = new Map<string, ModelTotals>();
    for (const [model, raw] of Object.entries(modelUsage)) {
      if (!isRecord(raw)) continue;
      const now: ModelTotals = {
        input: num(raw.inputTokens),
        output: num(raw.outputTokens),
        cacheRead: num(raw.cacheReadInputTokens),
        cacheWrite: num(raw.cacheCreationInputTokens),
        cost: typeof raw.costUSD === "number" && Number.isFinite(raw.costUSD) ? raw.costUSD : null,
      };
      next.set(model, now);
      let before = this.previous.get(model);
      // Totals never shrink within a process; if they did, Claude Code started counting again.
      if (before && (now.input < before.input || now.output < before.output)) before = undefined;
      const d = (k: "input" | "output" | "cacheRead" | "cacheWrite") => now[k] - (before?.[k] ?? 0);
      if (d("input") + d("output") + d("cacheRead") + d("cacheWrite") === 0) continue;
      const usage: Usage = {
        inputTokens: d("input") + d("cacheRead") + d("cacheWrite"),
        outputTokens: d("output"),
        cacheReadTokens: d("cacheRead"),
        cacheWriteTokens: d("cacheWrite"),
      };
      if (now.cost !== null) usage.costUsd = Math.max(0, now.cost - (before?.cost ?? 0));
      out.push({ type: "assistant", model, content: [], usage });
    }
    for (const [model, totals] of next) this.previous.set(model, totals);
    return out;
  }
}

function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
