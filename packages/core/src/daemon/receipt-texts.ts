/**
 * The words of receipts: what a person who addressed the agent reads about their line. Short,
 * one line each, naming the place (`[#general]`) and the start of the line, so several
 * receipts in a NOTICE window stay readable.
 */
import { failureReasonText, type AgentFailureReason } from "../agent-failure.js";

/** The state a line addressed to the agent is in (the final ones end its life). */
export type ReceiptState =
  | { state: "queued"; position: number }
  | { state: "working" }
  | { state: "paused"; by: string }
  | { state: "over_budget"; why: string; until: string }
  | { state: "held"; why: string; next: string }
  | { state: "merged" }
  | { state: "refused"; who: string }
  | { state: "over_limit"; why: string }
  | { state: "failed"; why: string; next: string }
  /** Still working, but the model API keeps failing for now and the agent retries (agent-failure.ts). */
  | { state: "delayed"; why: string }
  | { state: "dropped"; why: string }
  | { state: "done" };

/** The name of a receipt state. */
export type ReceiptStateName = ReceiptState["state"];

/** States that end a line's life. */
export const FINAL_STATES: readonly ReceiptStateName[] = ["merged", "refused", "over_limit", "failed", "dropped", "done"];

/** The IRCv3 reaction of a state that needs no words (`+draft/react`), or null. */
export function reactionOf(r: ReceiptState): string | null {
  if (r.state === "working") return "👀";
  if (r.state === "queued" && r.position <= 1) return "⏳";
  if (r.state === "done") return "✅";
  return null;
}

/** 1st, 2nd, 3rd, 4th, 11th, 21st... */
function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ["th", "st", "nd", "rd"][n % 10] ?? "th";
  return `${n}${suffix}`;
}

/** The first words of a line, quoted. */
export function quote(text: string, max = 40): string {
  const t = text.replace(/\s+/g, " ").trim();
  return `"${t.length > max ? `${t.slice(0, max - 1)}…` : t}"`;
}

/** The words of a state, without the place and quote. */
export function stateWords(r: ReceiptState): string {
  switch (r.state) {
    case "queued":
      return r.position <= 1 ? "queued, next in line" : `queued, ${ordinal(r.position)} in line`;
    case "working":
      return "working on it";
    case "paused":
      return `queued; I am paused (${r.by}) and start once resumed`;
    case "over_budget":
      return `queued; I am over budget (${r.why}) and start after ${r.until} or when an operator raises the budget`;
    case "held":
      return `kept: ${r.why}; ${r.next}`;
    case "merged":
      return "the same request of yours is already waiting; merged with it";
    case "refused":
      return `not taken: I only take prompts from ${r.who}`;
    case "over_limit":
      return `not queued: ${r.why}`;
    case "failed":
      return `failed: ${r.why}; ${r.next}`;
    case "delayed":
      return `delayed: ${r.why}; I keep trying`;
    case "dropped":
      return `dropped: ${r.why}`;
    case "done":
      return "done";
  }
}

/** The NOTICE a sender gets for one line: `[#general] queued, 3rd in line: "fix the…"`. */
export function receiptNotice(place: string, r: ReceiptState, text: string): string {
  return `[${place}] ${stateWords(r)}: ${quote(text)}`;
}

/** The one line a failure posts where the line was asked: `alice: that failed (...)`. */
export function failureLine(sender: string, r: Extract<ReceiptState, { state: "failed" }>, text: string): string {
  return `${sender}: sorry, ${quote(text, 30)} failed: ${r.why}; ${r.next}.`;
}

/**
 * The one line a request kept while the agent cannot run gets where it was asked: not a
 * failure (it runs later), but a person must learn it waits on someone.
 */
export function heldLine(sender: string, r: Extract<ReceiptState, { state: "held" }>, text: string): string {
  return `${sender}: ${quote(text, 30)} is queued until I can run: ${r.why}; ${r.next}.`;
}

/** The summary of receipts held back from one sender in a window: `... and 7 more of your lines: 5 queued, 2 merged`. */
export function summaryNotice(counts: ReadonlyMap<ReceiptStateName, number>): string {
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const parts = [...counts].map(([state, n]) => `${n} ${state.replace("_", " ")}`);
  return `[receipts] ${total} more of your lines: ${parts.join(", ")}`;
}

/** The agent's standing, as the failure words need it. */
export interface RunnerStanding {
  nick: string;
  fatal: string | null;
  /** The classified reason of the fatal error (agent-failure.ts), when it had one. */
  fatalReason?: AgentFailureReason | null;
  circuitOpen: boolean;
  restarting: boolean;
}

/** Why the agent cannot run until a person acts (not signed in, circuit open), or null. */
export function cannotRunText(s: RunnerStanding): string | null {
  if (s.fatal && s.fatalReason && s.fatalReason !== "auth") return failureReasonText(s.fatalReason);
  if (s.fatal) return s.fatal.split("\n")[0]!.slice(0, 160);
  if (s.circuitOpen) return "it crashed too often and automatic restarts stopped";
  return null;
}

/** The receipt of a line kept while the agent cannot run (`why`: {@link cannotRunText}'s words or the keeper's error). */
export function heldState(why: string): Extract<ReceiptState, { state: "held" }> {
  return { state: "held", why: `I cannot run right now (${why.split("\n")[0]!.slice(0, 160)})`, next: "it runs once an operator fixes that and resumes me" };
}

/** What happens after a failed turn, in the asker's words. */
export function nextAfterFailureText(s: RunnerStanding): string {
  if (s.fatal) return `an operator must fix that (see #alerts) and then say "@${s.nick} resume"`;
  if (s.circuitOpen) return `automatic restarts stopped until an operator says "@${s.nick} resume"`;
  if (s.restarting) return "the agent is restarting and picks the work up again";
  return "I am ready for the next request, ask again when you like";
}

/** The #alerts / webhook text of a failed turn. */
export function turnFailedText(nick: string, origin: { sender: string | null; replyTo: string | null }, error: string): string {
  const who = origin.sender ? ` (asked by ${origin.sender}${origin.replyTo && origin.replyTo !== origin.sender ? ` in ${origin.replyTo}` : ""})` : "";
  return `[ERROR] ${nick}: a turn failed${who}: ${error.split("\n")[0]!.slice(0, 300)}`;
}
