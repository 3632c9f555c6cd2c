/**
 * The supervisor's deterministic signals. They are cheap, computed locally on every
 * evaluation, given to the evaluator as evidence, and they alone drive the ladder when no
 * evaluator is configured — so a supervisor without an LLM still catches the two failure
 * modes that need no judgement: the same call retried over and over, and a turn gone silent.
 */
import type { AgentMessage } from "../agent-message.js";

/** One observed agent message, numbered in the order it was observed. */
export interface ObservedMessage {
  /** 1-based sequence number (never reused while the supervisor lives). */
  seq: number;
  /** When it was observed (ms, the supervisor's clock). */
  at: number;
  /** Which turn (prompt) it belongs to: the number of turns started before it was observed. */
  turn: number;
  message: AgentMessage;
}

/** A tool call (same name, same input) made several times within one turn of the window. */
export interface RepeatedToolCall {
  name: string;
  /** The input as canonical JSON (keys sorted). */
  input: string;
  /** How many times the call appears in the window, within one turn. */
  count: number;
  /** How many of those appeared after the previous evaluation (0: the repetition is old news). */
  recent: number;
}

/** Everything the supervisor measured, for the prompt and for the evaluator-less ladder. */
export interface SupervisorEvidence {
  /** SPIRALING candidates: calls repeated at least {@link SPIRAL_REPEATS} times, most repeated first. */
  repeated: RepeatedToolCall[];
  /** STALLING: ms without agent output during the current turn, when past `stall_seconds`; else null. */
  stalledMs: number | null;
  /** ms since the agent last read its channels (or since the supervisor started). */
  sinceChannelReadMs: number;
}

/** How many identical tool calls in the window count as SPIRALING. */
export const SPIRAL_REPEATS = 3;

/**
 * Finds tool calls repeated {@link SPIRAL_REPEATS}+ times within one turn of `window`. Calls in
 * messages with `seq > sinceSeq` count as recent. The same call in different turns is not a
 * spiral: an agent that reads its channel (or runs `git status`) at the start of every task
 * is working normally, while one that retries the same call within one task makes no progress.
 */
export function findRepeatedToolCalls(window: readonly ObservedMessage[], sinceSeq: number): RepeatedToolCall[] {
  const calls = new Map<string, RepeatedToolCall>();
  for (const { seq, turn, message } of window) {
    for (const block of message.content) {
      if (block.type !== "tool_use") continue;
      const input = canonicalJson(block.input);
      const key = `${turn}\0${block.name}\0${input}`;
      const entry = calls.get(key) ?? { name: block.name, input, count: 0, recent: 0 };
      entry.count++;
      if (seq > sinceSeq) entry.recent++;
      calls.set(key, entry);
    }
  }
  return [...calls.values()].filter((c) => c.count >= SPIRAL_REPEATS).sort((a, b) => b.count - a.count);
}

/** JSON with object keys sorted at every level, so equal inputs compare equal as strings. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? "null";
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}
