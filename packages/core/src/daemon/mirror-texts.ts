/**
 * The lines of the activity mirror (docs/presence.md "Activity mirror"). Every line is built
 * here, and every part that comes from outside (a tool's input, a tool's name, a reply, an
 * error, a nick) is masked (approvals/secret-mask.ts, the same table as approvals and the log),
 * has its control characters made visible (CR, LF, ESC, bidi overrides ... as `\n`, `\e`,
 * `\u{202e}`), and is quoted with its own quotes escaped, so a tool input can neither break the
 * line nor pass for one of our own lines. A line never exceeds one IRC line: it is cut, in
 * bytes, at a character boundary, with `…`.
 *
 *   [tool] Bash "npm test"
 *   [tool] Bash done in 1.2s "npm test"
 *   [tool] Bash failed in 0.3s "false"
 *   [tool] ... 7 more tool calls (over the mirror's rate limit)
 *   [turn] alice in #dev: done in 12.3s, 4 tool calls; reply: "All 112 tests pass."
 *   [turn] a DM from alice: done in 3.0s, 2 tool calls
 */
import { visibleText } from "../approvals/approval-text.js";
import { maskSecrets } from "../approvals/secret-mask.js";
import type { PromptOrigin } from "../events.js";
import { formatMs, type ToolCallEvent } from "./tool-progress.js";

/** The longest quoted reply or error in a turn line (characters, before the byte cut). */
export const MIRROR_REPLY_MAX = 100;
/** The longest tool name shown. */
const TOOL_NAME_MAX = 64;

/** The line for a tool call starting or ending. */
export function toolLine(event: ToolCallEvent): string {
  const name = visibleText(cut(event.call.name, TOOL_NAME_MAX), null).replace(/ /g, "_") || "tool";
  const input = quoted(event.call.summary, Infinity);
  if (event.phase === "start") return `[tool] ${name} ${input}`;
  const how = event.outcome === "unfinished" ? `unfinished after ${formatMs(event.durationMs)}` : `${event.outcome} in ${formatMs(event.durationMs)}`;
  return `[tool] ${name} ${how} ${input}`;
}

/** The line that stands for tool calls not shown (over the rate limit, or a backlog). */
export function moreToolsLine(n: number): string {
  return `[tool] ... ${n} more tool call${n === 1 ? "" : "s"} (over the mirror's rate limit)`;
}

/** The line that stands for turn summaries not shown (a long backlog). */
export function moreTurnsLine(n: number): string {
  return `[turn] ... ${n} more turn${n === 1 ? "" : "s"} (over the mirror's rate limit)`;
}

/** What a turn summary needs. */
export interface TurnSummary {
  origin: PromptOrigin;
  error: string | null;
  durationMs: number;
  tools: number;
  finalText: string;
}

/** The summary line of a finished turn. A DM's content (its reply) is never shown: only who sent it. */
export function turnLine(t: TurnSummary): string {
  const status = t.error === null ? "done" : `failed (${quoted(firstLine(t.error), 80)})`;
  const tools = `${t.tools} tool call${t.tools === 1 ? "" : "s"}`;
  const reply = t.origin.kind === "dm" || t.error !== null ? "" : firstLine(t.finalText);
  return `[turn] ${askedBy(t.origin)}: ${status} in ${formatMs(t.durationMs)}, ${tools}${reply ? `; reply: ${quoted(reply, MIRROR_REPLY_MAX)}` : ""}`;
}

/** Who asked for a turn, and where. */
export function askedBy(origin: PromptOrigin): string {
  const who = visibleText(origin.sender ?? "", null);
  switch (origin.kind) {
    case "mention":
      return `${who} in ${visibleText(origin.channel ?? "?", null)}`;
    case "dm":
      return `a DM from ${who}`;
    case "schedule":
      return `schedule ${who || "?"}${origin.channel ? ` for ${visibleText(origin.channel, null)}` : ""}`;
    case "trigger":
      return who || "a trigger";
    case "initial":
      return "the initial prompt";
    case "resume":
      return "a resume after a restart";
    default:
      return "the daemon";
  }
}

/** `line` cut to at most `maxBytes` UTF-8 bytes at a code point boundary, ending in `…` when cut. */
export function cutBytes(line: string, maxBytes: number): string {
  if (Buffer.byteLength(line) <= maxBytes) return line;
  const room = Math.max(0, maxBytes - 3); // "…" is 3 bytes
  let bytes = 0;
  let out = "";
  for (const ch of line) {
    const size = Buffer.byteLength(ch);
    if (bytes + size > room) break;
    bytes += size;
    out += ch;
  }
  return `${out}…`;
}

/** Masked, control characters visible, at most `max` characters (with `…`), in double quotes with inner quotes escaped. */
function quoted(text: string, max: number): string {
  return `"${visibleText(cut(maskSecrets(text), max))}"`;
}

function firstLine(text: string): string {
  return (text.split(/\r\n|\r|\n/).find((l) => l.trim() !== "") ?? "").trim();
}

/** At most `max` code points, with `…` when cut (never splits a surrogate pair). */
function cut(text: string, max: number): string {
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : text;
}
