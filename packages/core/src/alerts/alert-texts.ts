/**
 * The alert texts of the specification, one function each: short, scannable, actionable,
 * one line. Task and question strings are squeezed to one line and truncated, so an alert
 * never floods #alerts or a phone notification.
 */
import { constants } from "node:os";

/** The longest task text quoted in an alert. */
export const ALERT_TASK_MAX = 80;
/** The longest question text quoted in an alert. */
export const ALERT_QUESTION_MAX = 200;

/** `[SPIRALING] <nick> stuck on task "<task>". <reason>. Awaiting guidance.` (the webhook's escalation text). */
export function spiralingText(nick: string, task: string | null, reason: string): string {
  return words(`[SPIRALING] ${nick} stuck on task "${shorten(task ?? "its current task", ALERT_TASK_MAX)}".`, sentence(reason), "Awaiting guidance.");
}

/** `[ESCALATION] Agent <nick> appears stuck on task "<task>". <reason>. Awaiting human guidance. Reply @<nick> resume/abort` (posted in #alerts). */
export function escalationText(nick: string, task: string | null, reason: string): string {
  return words(
    `[ESCALATION] Agent ${nick} appears stuck on task "${shorten(task ?? "its current task", ALERT_TASK_MAX)}".`,
    sentence(reason),
    `Awaiting human guidance. Reply @${nick} resume/abort`,
  );
}

/** `[QUESTION] <nick> needs input: "<question>"`. */
export function questionText(nick: string, question: string): string {
  return `[QUESTION] ${nick} needs input: "${shorten(question, ALERT_QUESTION_MAX)}"`;
}

/**
 * `[ERROR] <nick> crashed: process exited with code N`; a code above 128 that stands for a
 * signal (the shell's 128 + N convention runners use for a killed process) names it:
 * `... code 137 (killed by SIGKILL)`.
 */
export function errorText(nick: string, code: number | string): string {
  const signal = typeof code === "number" ? signalOfExitCode(code) : null;
  return `[ERROR] ${nick} crashed: process exited with code ${code}${signal ? ` (killed by ${signal})` : ""}`;
}

/** The signal behind an exit code of 128 + N (`SIGKILL` for 137), or null. */
export function signalOfExitCode(code: number): string | null {
  if (!Number.isInteger(code) || code <= 128 || code > 128 + 64) return null;
  const entry = Object.entries(constants.signals).find(([, n]) => n === code - 128);
  return entry ? entry[0] : null;
}

/** `[TIMEOUT] <nick> got no answer in Ns to: "<question>"`. */
export function timeoutText(nick: string, question: string, seconds: number): string {
  return `[TIMEOUT] ${nick} got no answer in ${seconds}s to: "${shorten(question, ALERT_QUESTION_MAX)}"`;
}

/** `[COMPLETE] <nick> finished task "<task>".` plus an optional detail sentence (`Results in #benchmarks.`). */
export function completeText(nick: string, task: string | null, detail?: string): string {
  const base = task ? `[COMPLETE] ${nick} finished task "${shorten(task, ALERT_TASK_MAX)}".` : `[COMPLETE] ${nick} finished.`;
  return detail ? words(base, sentence(detail)) : base;
}

/**
 * The crash circuit opened (`max_crashes` exits within `window_seconds`): restarts stopped
 * until an operator resumes. `[ESCALATION] Agent <nick> crashed N times in M minutes
 * (last exit code C); restarts stopped. Awaiting human guidance. Reply @<nick> resume to restart`.
 */
export function circuitOpenText(nick: string, crashes: number, windowSeconds: number, lastCode?: number | string): string {
  const window = windowSeconds % 60 === 0 && windowSeconds >= 60 ? `${windowSeconds / 60} minute${windowSeconds === 60 ? "" : "s"}` : `${windowSeconds}s`;
  const last = lastCode === undefined ? "" : ` (last exit code ${lastCode})`;
  return `[ESCALATION] Agent ${nick} crashed ${crashes} times in ${window}${last}; restarts stopped. Awaiting human guidance. Reply @${nick} resume to restart`;
}

/** One line (whitespace runs collapsed), at most `max` characters (an ellipsis marks the cut). */
export function shorten(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

/** The longest reason quoted in an alert. */
const REASON_MAX = 200;

/** The text as one sentence ending in exactly one full stop (or its own ! / ?); blank stays blank. */
function sentence(text: string): string {
  const line = shorten(text, REASON_MAX).replace(/[.:;,\s]+$/, "");
  if (!line) return "";
  return /[!?]$/.test(line) ? line : `${line}.`;
}

function words(...parts: string[]): string {
  return parts.filter((p) => p !== "").join(" ");
}
