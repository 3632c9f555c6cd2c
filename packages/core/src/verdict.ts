/**
 * Supervisor verdicts and their tolerant parser. Evaluators are language models: they wrap
 * answers in markdown, change case, add colons, prefix "Verdict:", or put the message on the
 * next line. Anything that is not recognisably one of the four verdicts is OK (the supervisor
 * is conservative), flagged as `unparsed`.
 */

/** The four verdicts of the specification. */
export type VerdictAction = "OK" | "CORRECTION" | "THINK_DEEPER" | "ESCALATION";

/** A parsed verdict. `message` is empty for OK. */
export interface Verdict {
  action: VerdictAction;
  message: string;
  /** True when the text was not a recognisable verdict and was read as OK. */
  unparsed?: boolean;
}

const VERDICT_RE = /^(OK|CORRECTION|THINK[_ -]?DEEPER|ESCALATION|ESCALATE)\b\s*[:\-\u2014\u2013.]?\s*([\s\S]*)$/i;

/**
 * Parses an evaluator's reply: the first line that starts with a verdict word wins (after
 * quote marks, headings, bullets, emphasis and a "Verdict:" label are stripped). A non-OK
 * verdict whose line carries no message takes the following non-blank lines as its message.
 */
export function parseVerdict(text: string): Verdict {
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const m = VERDICT_RE.exec(normaliseLine(lines[i]!));
    if (!m) continue;
    const word = m[1]!.toUpperCase().replace(/[ -]/, "_");
    const action: VerdictAction =
      word === "THINKDEEPER" || word === "THINK_DEEPER" ? "THINK_DEEPER" : word === "ESCALATE" ? "ESCALATION" : (word as VerdictAction);
    if (action === "OK") return { action, message: "" };
    let message = cleanMessage(m[2]!);
    if (!message) {
      message = lines
        .slice(i + 1)
        .map(cleanMessage)
        .filter((l) => l !== "")
        .join(" ");
    }
    return { action, message };
  }
  return { action: "OK", message: "", unparsed: true };
}

/** Strips what models put before a verdict word: blockquotes, headings, bullets, emphasis, a "Verdict:" label. */
function normaliseLine(raw: string): string {
  return raw
    .trim()
    .replace(/^[>#*_`\s-]+/, "")
    .replace(/^verdict\b[*_`]*\s*[:\-\u2014\u2013]?\s*/i, "")
    .replace(/^[*_`\s]+/, "")
    .replace(/^([A-Za-z]+(?:_[A-Za-z]+)?)[*_`]+/, "$1");
}

/** Strips emphasis and separators around a verdict's message. */
function cleanMessage(s: string): string {
  return s.replace(/^[*_`:\s\u2014\u2013-]+/, "").replace(/[*_`\s]+$/, "").trim();
}
