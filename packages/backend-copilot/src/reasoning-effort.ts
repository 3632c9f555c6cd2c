/**
 * culture's `thinking` level as a Copilot `reasoningEffort`. The runtime refuses to create a
 * session with an effort its model does not support ("Model 'x' does not support reasoning
 * effort configuration"), so the effort is chosen from the model's entry in `models.list`.
 */
import type { Thinking } from "@culture/core";
import type { ModelInfo, SessionConfig } from "@github/copilot-sdk";

/** A Copilot reasoning effort (`low` ... `max`). The SDK does not export its own name for it. */
export type ReasoningEffort = NonNullable<SessionConfig["reasoningEffort"]>;

const ORDER: readonly ReasoningEffort[] = ["low", "medium", "high", "xhigh", "max"];
const WANTED: Record<Thinking, ReasoningEffort | null> = { none: null, low: "low", medium: "medium", high: "high", max: "max" };

/** The effort to send, and why (for the log). `effort` undefined: send none (the model's default). */
export interface EffortChoice {
  effort: ReasoningEffort | undefined;
  reason: string;
}

/**
 * Picks the effort for `thinking` on `model`: the wanted level when the model supports it,
 * else the nearest supported level below it (else the lowest one); none when the model does
 * not take an effort, is not known, or `thinking` is `none`.
 */
export function chooseEffort(thinking: Thinking, model: ModelInfo | undefined): EffortChoice {
  const wanted = WANTED[thinking];
  if (!wanted) return { effort: undefined, reason: "thinking is none" };
  if (!model) return { effort: undefined, reason: "the model is not in models.list" };
  if (!model.capabilities?.supports?.reasoningEffort) return { effort: undefined, reason: `${model.id} takes no reasoning effort` };
  const supported = model.supportedReasoningEfforts;
  if (!supported?.length) return { effort: wanted === "max" ? "xhigh" : wanted, reason: `thinking ${thinking}` };
  if (supported.includes(wanted)) return { effort: wanted, reason: `thinking ${thinking}` };
  const rank = (e: ReasoningEffort) => ORDER.indexOf(e);
  const below = supported.filter((e) => rank(e) >= 0 && rank(e) < rank(wanted)).sort((a, b) => rank(b) - rank(a));
  const fallback = below[0] ?? [...supported].sort((a, b) => rank(a) - rank(b))[0];
  return { effort: fallback, reason: `${model.id} does not support ${wanted} (supports ${supported.join(", ")})` };
}
