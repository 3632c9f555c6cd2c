/**
 * Supervisor verdicts and their tolerant parser. Evaluators are language models: they wrap
 * answers in markdown, change case and add colons. Anything that is not recognisably one of
 * the four verdicts is OK (the supervisor is conservative), flagged as `unparsed`.
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

const VERDICT_RE = /^(OK|CORRECTION|THINK[_ -]?DEEPER|ESCALATION)\b\s*[:\-—–]?\s*([\s\S]*)$/i;

/** Parses an evaluator's reply: the first line that starts with a verdict word wins. */
export function parseVerdict(text: string): Verdict {
  for (const raw of text.split(/\r?\n/)) {
    const line = raw
      .trim()
      .replace(/^[>#*_`\s-]+/, "")
      .replace(/^verdict\s*[:\-]\s*/i, "")
      .replace(/^[*_`\s]+/, "");
    const m = VERDICT_RE.exec(line.replace(/^(\w+)[*_`]+/, "$1"));
    if (!m) continue;
    const word = m[1]!.toUpperCase().replace(/[ -]/, "_");
    const action = (word === "THINKDEEPER" ? "THINK_DEEPER" : word) as VerdictAction;
    const message = m[2]!.replace(/^[*_`:\s]+/, "").replace(/[*_`\s]+$/, "").trim();
    return { action, message: action === "OK" ? "" : message };
  }
  return { action: "OK", message: "", unparsed: true };
}
