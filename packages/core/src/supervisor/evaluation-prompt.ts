/**
 * The user prompt of one evaluation: who is being watched, the current task, a transcript
 * of the window (text, abbreviated thinking, every tool call with its name and JSON input,
 * abbreviated tool results with their error flag), and the deterministic evidence.
 * Transcripts are bounded: long fields keep their head and say how much was cut.
 */
import type { ContentBlock } from "../agent-message.js";
import { canonicalJson, type ObservedMessage, type SupervisorEvidence } from "./evidence.js";

/** What {@link buildEvaluationPrompt} needs. */
export interface EvaluationPromptInput {
  nick: string;
  /** The current (or last) task text, or null when the agent has had none. */
  task: string | null;
  /** True while a turn is in flight. */
  turnInFlight: boolean;
  window: readonly ObservedMessage[];
  evidence: SupervisorEvidence;
  /** The thresholds, so the evidence says what "long" means. */
  stallSeconds: number;
}

const LIMITS = { text: 1500, thinking: 400, toolInput: 1000, toolResult: 400 };

/** Builds the user prompt of one evaluation (the system prompt is separate). */
export function buildEvaluationPrompt(input: EvaluationPromptInput): string {
  const out: string[] = [];
  out.push(`Agent: ${input.nick}`);
  if (input.task === null) out.push("Current task: (none yet)");
  else out.push(`Current task: ${JSON.stringify(input.task)}${input.turnInFlight ? " (in progress)" : " (finished; the agent is idle)"}`);
  out.push("");
  out.push(
    input.window.length === 0
      ? "Recent activity: (no agent messages observed yet)"
      : `Recent activity (the last ${input.window.length} agent messages, oldest first):`,
  );
  for (const { seq, message } of input.window) {
    out.push("", `--- message ${seq} ---`);
    for (const block of message.content) out.push(renderBlock(block));
    if (message.content.length === 0) out.push("(empty)");
  }
  out.push("", "Evidence (deterministic signals measured by culture):");
  out.push(...renderEvidence(input.evidence, input.stallSeconds));
  out.push(
    "",
    "Reply with exactly one verdict on the first line: OK, CORRECTION <message>, THINK_DEEPER <message> or ESCALATION <message>.",
    "The message of a CORRECTION or THINK_DEEPER is whispered to the agent as written.",
  );
  return out.join("\n");
}

/** The evidence lines of the prompt (also used in logs). */
export function renderEvidence(evidence: SupervisorEvidence, stallSeconds: number): string[] {
  const lines: string[] = [];
  for (const r of evidence.repeated) {
    lines.push(
      `- SPIRALING: the same tool call was made ${r.count} times in one task in this window` +
        `${r.recent > 0 ? ` (${r.recent} since the previous evaluation)` : " (none since the previous evaluation)"}: ` +
        `${r.name} ${abbreviate(r.input, 300)}`,
    );
  }
  if (evidence.stalledMs !== null) {
    lines.push(
      `- STALLING: no agent output for ${formatDuration(evidence.stalledMs)} during the current turn (threshold ${formatDuration(stallSeconds * 1000)}).`,
    );
  }
  if (lines.length === 0) lines.push("- none");
  lines.push(`- Channels last read ${formatDuration(evidence.sinceChannelReadMs)} ago.`);
  return lines;
}

/** "45 seconds", "12 minutes", "2 hours 5 minutes". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s} seconds`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m} minutes`;
  const h = Math.floor(m / 60);
  return `${h} hours${m % 60 ? ` ${m % 60} minutes` : ""}`;
}

/** Keeps the head of a long string and says how much was cut. */
export function abbreviate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}… [${s.length - max} more characters]`;
}

function renderBlock(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return `text: ${abbreviate(block.text, LIMITS.text)}`;
    case "thinking":
      return `thinking (abbreviated): ${abbreviate(block.thinking, LIMITS.thinking)}`;
    case "tool_use":
      return `tool call: ${block.name} ${abbreviate(canonicalJson(block.input), LIMITS.toolInput)}`;
    case "tool_result":
      return `tool result${block.is_error ? " (is_error: true)" : ""}: ${abbreviate(resultText(block.content), LIMITS.toolResult)}`;
    default:
      return `(${(block as { type?: string }).type ?? "unknown"} block)`;
  }
}

/** A tool result's content as text: strings as is, text blocks joined, anything else as JSON. */
function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content) && content.every((c) => c && typeof c === "object" && typeof (c as { text?: unknown }).text === "string")) {
    return content.map((c) => (c as { text: string }).text).join("\n");
  }
  return JSON.stringify(content) ?? String(content);
}
