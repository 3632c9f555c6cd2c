/**
 * The text of approval requests as people see it: one line, secrets masked, short enough for
 * an IRC line and a phone notification. An agent's command line often carries a token
 * (`curl -H "Authorization: Bearer ..."`, `GH_TOKEN=... gh release`, `https://user:pass@host`),
 * and the request line goes to a channel, #alerts and a webhook: mask first, then shorten,
 * so a cut never reveals the start of a secret the mask would have hidden.
 */

/** The longest summary on a request line. */
export const APPROVAL_SUMMARY_MAX = 120;

/** What a masked value becomes. */
export const MASK = "***";

const SECRET_WORD = /(token|secret|passw(or)?d|key|credential)/i;

/** Masks secrets in `text`: known token prefixes, secret flags and assignments, URL credentials, bearer tokens. */
export function maskSecrets(text: string): string {
  let out = text;
  // Known token formats: GitHub, OpenAI/Anthropic (sk-...), Slack (xoxb-...), AWS access keys, Google API keys.
  out = out.replace(/\b(gh[pousr]_|github_pat_|sk-(?:ant-|proj-)?|xox[abprse]-|AKIA|AIza)[A-Za-z0-9_\-]{6,}/g, (_m, prefix: string) => `${prefix}${MASK}`);
  // URL credentials: scheme://user:password@host and scheme://token@host.
  out = out.replace(/\b([a-z][a-z0-9+.-]*:\/\/)([^\s/@:]+)(:[^\s/@]*)?@/gi, (_m, scheme: string, user: string, pass: string | undefined) =>
    pass !== undefined ? `${scheme}${user}:${MASK}@` : `${scheme}${MASK}@`,
  );
  // Authorization headers.
  out = out.replace(/\b(Bearer|Basic|token)\s+[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${MASK}`);
  // --password x, --api-key=x, -p is too ambiguous to mask.
  out = out.replace(/(--?[A-Za-z0-9_-]*(?:token|secret|passw(?:or)?d|key|credential)[A-Za-z0-9_-]*)(=|\s+)("[^"]*"|'[^']*'|\S+)/gi, `$1$2${MASK}`);
  // NAME=value where NAME contains TOKEN, SECRET, PASSWORD, KEY ...
  out = out.replace(/\b([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|'[^']*'|\S+)/g, (m, name: string) => (SECRET_WORD.test(name) ? `${name}=${MASK}` : m));
  return out;
}

/** One line (whitespace and control characters squeezed), at most `max` characters with an ellipsis. */
export function shortenLine(text: string, max = APPROVAL_SUMMARY_MAX): string {
  const line = text.replace(/[\s\x00-\x1f\x7f]+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
}

/** A request's summary as it is posted: masked, then shortened to one line. */
export function approvalSummary(summary: string): string {
  return shortenLine(maskSecrets(summary)) || "use a tool";
}

/** The tool input for logs and webhooks: every string in it masked. */
export function maskInput(input: unknown, depth = 0): unknown {
  if (typeof input === "string") return maskSecrets(input);
  if (depth > 8 || input === null || typeof input !== "object") return input;
  if (Array.isArray(input)) return input.map((v) => maskInput(v, depth + 1));
  return Object.fromEntries(
    Object.entries(input as Record<string, unknown>).map(([k, v]) => [k, SECRET_WORD.test(k) && typeof v === "string" ? MASK : maskInput(v, depth + 1)]),
  );
}
