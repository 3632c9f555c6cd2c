/**
 * Secret masking: the one function every text a person or a log file sees goes through
 * (request lines on IRC, #alerts, webhooks, `culture approvals`, and every log line — the
 * logger masks its lines itself). An agent's command line often carries a credential
 * (`mysql -phunter2`, `curl -u bob:pw`, `-H 'X-Api-Key: ...'`, `PGPASSWORD=...`), and so do
 * tool inputs (`{"password": "..."}`, private key blocks).
 *
 * The rules are a table (docs/approvals.md lists them). Two principles:
 * - A mask replaces a value, never the shell syntax around it: it stops at `$`, backticks,
 *   `;`, `&`, `|`, `<`, `>`, parentheses and line ends, so `PGPASSWORD=x;touch P` shows
 *   `PGPASSWORD=***;touch P` and `-H "Authorization: Bearer $(cat f)"` keeps `$(cat f)`.
 *   What runs stays visible; only the literal secret is hidden.
 * - Program-aware where a flag means a password for one program only: `-p` is a password for
 *   `mysql`/`mysqldump`/`sshpass`/`mongosh`, a port for `ssh`; `-u user:pass` is curl's.
 */

/** What a masked value becomes. */
export const MASK = "***";

/** Words in a name (a flag, a variable, a JSON key) that say its value is a secret. */
const SECRET_WORD = /(token|secret|passw(or)?d|passphrase|key|credential|_pwd$|^pwd_)/i;

/** Characters that end an unquoted shell word (or a masked value in any text). */
const WORD_END = /[\s;&|<>()]/;

/** One row of the table: what it masks, for the docs and the tests. */
export interface MaskRule {
  name: string;
  apply(text: string): string;
}

/** The masking table, in the order the rules run. */
export const MASK_RULES: readonly MaskRule[] = [
  {
    name: "private key blocks (-----BEGIN ... PRIVATE KEY----- to END)",
    apply: (t) =>
      t.replace(
        /(-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY( BLOCK)?-----)[A-Za-z0-9+/=\s\\:,.-]*?(-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?=['"`$;&|<>()])|$)/g,
        (_m, begin: string, _kind, _block, end: string) => `${begin}${MASK}${end}`,
      ),
  },
  {
    name: "known token formats (ghp_, github_pat_, sk-, xoxb-, AKIA, AIza)",
    apply: (t) => t.replace(/\b(gh[pousr]_|github_pat_|sk-(?:ant-|proj-)?|xox[abprse]-|AKIA|AIza)[A-Za-z0-9_-]{6,}/g, (_m, prefix: string) => `${prefix}${MASK}`),
  },
  {
    name: "URL credentials (scheme://user:pass@host, scheme://token@host)",
    apply: (t) =>
      t.replace(/\b([a-z][a-z0-9+.-]*:\/\/)([^\s/@:'"`$;&|<>()]+)(:[^\s/@'"`$;&|<>()]*)?@/gi, (_m, scheme: string, user: string, pass: string | undefined) =>
        pass !== undefined ? `${scheme}${user}:${MASK}@` : `${scheme}${MASK}@`,
      ),
  },
  {
    name: "JSON fields: \"password\": \"...\", \"token\", \"secret\", \"api_key\", \"private_key\" ...",
    apply: (t) =>
      replaceScanned(t, /(\\?["'])([A-Za-z0-9_.-]*(?:passw(?:or)?d|passphrase|token|secret|api[-_]?key|apikey|private[-_]?key|access[-_]?key|credential)[A-Za-z0-9_.-]*)\1\s*:\s*(\\?["'])/gi, (m, end) => {
        const quote = m[3]!;
        return maskQuoted(t, end, quote);
      }),
  },
  {
    name: "HTTP headers and `name: value` lines: Authorization, Proxy-Authorization, Cookie, X-Api-Key, x-goog-api-key, *-Token, *-Key, *-Secret, password:, token:",
    apply: (t) =>
      replaceScanned(t, /(['"]?)\b((?:proxy-)?authorization|cookie|api[-_]?key|x-goog-api-key|private-token|x-[a-z0-9-]*(?:key|token|secret|auth)[a-z0-9-]*|passw(?:or)?d|passphrase|secret|(?:access[-_]|refresh[-_]|auth[-_])?token|client[-_]secret)\s*:[ \t]*/gi, (m, end) => {
        const quote = m[1]!;
        // Keep the scheme word (`Bearer`, `Basic` ...): it says what kind of secret it was.
        const scheme = /^(Bearer|Basic|Token|Digest|Bot|ApiKey)[ \t]+/i.exec(t.slice(end));
        const start = end + (scheme ? scheme[0].length : 0);
        const masked = quote ? maskQuoted(t, start, quote, true) : maskWord(t, start);
        return masked && { ...masked, replacement: `${scheme ? scheme[0] : ""}${masked.replacement}`, start: end };
      }),
  },
  {
    name: "bearer and basic tokens (Bearer xxx, Basic xxx, token xxx)",
    apply: (t) => t.replace(/\b(Bearer|Basic|token)\s+(?!\*\*\*)[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${MASK}`),
  },
  {
    name: "secret flags: --password x, --password=x, --api-key=x, --token x, -passin pass:x",
    apply: (t) =>
      replaceScanned(t, /(?<![\w-])(--?[A-Za-z0-9_-]*(?:token|secret|passw(?:or)?d|passphrase|key|credential)[A-Za-z0-9_-]*|-pass(?:in|out)?)(=|[ \t]+)/gi, (m, end) => {
        // `--password -u root`: a separated value starting with `-` is the next flag.
        if (m[2] !== "=" && t[end] === "-") return null;
        return maskWord(t, end);
      }),
  },
  {
    name: "--user user:pass, --proxy-user user:pass (the part after the colon)",
    apply: (t) =>
      replaceScanned(t, /(?<![\w-])(--(?:proxy-)?user)(=|[ \t]+)([^\s:'"`$;&|<>()]+):/g, (_m, end) => maskWord(t, end)),
  },
  {
    name: "secret variables: PGPASSWORD=x, GH_TOKEN=x, MYSQL_PWD=x, API_KEY=x",
    apply: (t) =>
      replaceScanned(t, /\b([A-Za-z_][A-Za-z0-9_]*)=/g, (m, end) => (SECRET_WORD.test(m[1]!) ? maskWord(t, end) : null)),
  },
  {
    name: "program flags: mysql/mysqldump/mariadb -pX, sshpass -p X, mongosh -p X, redis-cli -a X, curl -u user:pass, http -a user:pass",
    apply: maskProgramFlags,
  },
];

/** Masks every secret form of {@link MASK_RULES} in `text`. Idempotent. */
export function maskSecrets(text: string): string {
  let out = text;
  for (const rule of MASK_RULES) out = rule.apply(out);
  return out;
}

/** A structured value (tool input, log fields) with every string in it masked, and every string under a secret-looking key replaced. */
export function maskInput(input: unknown, depth = 0): unknown {
  if (typeof input === "string") return maskSecrets(input);
  if (depth > 8 || input === null || typeof input !== "object") return input;
  if (input instanceof Error) return maskSecrets(input.message);
  if (Array.isArray(input)) return input.map((v) => maskInput(v, depth + 1));
  return Object.fromEntries(
    Object.entries(input as Record<string, unknown>).map(([k, v]) => [k, SECRET_WORD.test(k) && typeof v === "string" && v !== "" ? MASK : maskInput(v, depth + 1)]),
  );
}

// ---------------------------------------------------------------------------------------------

/** A span of text to replace. */
interface Span {
  start: number;
  end: number;
  replacement: string;
}

/**
 * Runs a global regex over `text`; for each match, `scan(match, endOfMatch)` returns the span
 * to replace (or null to leave it). Spans never overlap; the text between them is kept.
 */
function replaceScanned(text: string, re: RegExp, scan: (m: RegExpExecArray, end: number) => (Span | null) | null): string {
  let out = "";
  let kept = 0;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const end = m.index + m[0].length;
    if (m.index < kept) continue;
    const span = scan(m, end);
    if (span && span.end > span.start) {
      out += text.slice(kept, span.start) + span.replacement;
      kept = span.end;
      re.lastIndex = Math.max(re.lastIndex, span.end);
    }
    if (m[0] === "") re.lastIndex++;
  }
  return out + text.slice(kept);
}

/**
 * Masks the shell word that starts at `start`: unquoted characters up to whitespace or a shell
 * operator, single-quoted parts whole, double-quoted parts up to their closing quote. It stops
 * before `$` and backticks (an expansion stays visible: it is not a literal secret). Null when
 * there is nothing to mask (or the value is already masked).
 */
function maskWord(text: string, start: number): Span | null {
  let i = start;
  let inDouble = false;
  while (i < text.length) {
    const c = text[i]!;
    if (inDouble) {
      if (c === '"') inDouble = false;
      else if (c === "$" || c === "`" || c === "\n" || c === "\r") break;
      else if (c === "\\") i++;
      i++;
      continue;
    }
    if (WORD_END.test(c) || c === "$" || c === "`") break;
    if (c === "'") {
      const close = text.indexOf("'", i + 1);
      const nl = lineEnd(text, i + 1);
      // An unclosed quote masks to the end of the line, never past it.
      i = close === -1 || nl < close ? nl : close + 1;
      continue;
    }
    if (c === '"') inDouble = true;
    else if (c === "\\") i++;
    i++;
  }
  const end = Math.min(i, text.length);
  if (end <= start || text.slice(start, end) === MASK) return null;
  // Cut inside a double-quoted part: keep an opening quote so the rest still reads as quoted.
  return { start, end, replacement: inDouble && text[start] === '"' ? `"${MASK}` : MASK };
}

/**
 * Masks a quoted value whose opening quote (`"`, `'`, or a shell-escaped `\"`) ended at
 * `start`, up to the closing quote (kept). With `inShell`, a double-quoted value stops before
 * `$` and backticks.
 */
function maskQuoted(text: string, start: number, quote: string, inShell = true): Span | null {
  const q = quote.endsWith("'") ? "'" : '"';
  const escaped = quote.length === 2;
  let i = start;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "\n" || c === "\r") break;
    if (escaped && c === "\\" && text[i + 1] === q) break;
    if (!escaped && c === q) break;
    if (q === '"' && inShell && (c === "$" || c === "`")) break;
    if (c === "\\" && !escaped) i++;
    i++;
  }
  const end = Math.min(i, text.length);
  if (end <= start || text.slice(start, end) === MASK) return null;
  return { start, end, replacement: MASK };
}

/** Programs whose short flag takes a password, and how: `attached` (-pX only) or `both` (-p X too). */
const PROGRAM_FLAGS: ReadonlyArray<{ programs: RegExp; flags: Record<string, "attached" | "both" | "userpass"> }> = [
  // mysql: -pX is the password; `-p X` prompts and X is the database.
  { programs: /^(mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mysqlpump|mysqlslap|mariadb|mariadb-dump|mariadb-admin|mariadb-import|mariadb-check)$/, flags: { p: "attached" } },
  { programs: /^sshpass$/, flags: { p: "both" } },
  { programs: /^(mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport)$/, flags: { p: "both" } },
  { programs: /^redis-cli$/, flags: { a: "both" } },
  { programs: /^curl$/, flags: { u: "userpass", U: "userpass" } },
  { programs: /^(http|https|xh)$/, flags: { a: "userpass" } },
];

/** Masks the program-specific password flags of every simple command in `text`. */
function maskProgramFlags(text: string): string {
  const spans: Span[] = [];
  // Each program word: at the start of the text or after an operator / whitespace / a path.
  const program = /(?:^|[\s;&|()`]|\$\()(?:[^\s;&|()'"`]*\/)?([A-Za-z][A-Za-z0-9-]*)(?=[ \t])/g;
  for (let m = program.exec(text); m !== null; m = program.exec(text)) {
    const row = PROGRAM_FLAGS.find((r) => r.programs.test(m![1]!));
    if (!row) continue;
    let i = m.index + m[0].length;
    // Walk the command's words until a control operator or line end.
    while (i < text.length) {
      while (i < text.length && (text[i] === " " || text[i] === "\t")) i++;
      if (i >= text.length || /[;&|\r\n()]/.test(text[i]!)) break;
      const word = Math.max(i + 1, wordEnd(text, i));
      const flag = /^-([A-Za-z])/.exec(text.slice(i, word));
      const how = flag ? row.flags[flag[1]!] : undefined;
      if (flag && how && !text.startsWith("--", i)) {
        const attachedAt = i + 2;
        if (attachedAt < word) {
          const at = how === "userpass" ? colonIn(text, attachedAt, word) : attachedAt;
          const span = at === null ? null : maskWord(text, at);
          if (span) spans.push(span);
        } else if (how !== "attached") {
          let next = word;
          while (next < text.length && (text[next] === " " || text[next] === "\t")) next++;
          const nextEnd = wordEnd(text, next);
          const at = how === "userpass" ? colonIn(text, next, nextEnd) : next;
          const span = at === null || text[next] === "-" ? null : maskWord(text, at);
          if (span) spans.push(span);
          i = nextEnd;
          continue;
        }
      }
      i = word;
    }
    // Words inside this command were walked with this program's table: go on after it (linear time).
    program.lastIndex = Math.max(program.lastIndex, i);
  }
  if (spans.length === 0) return text;
  spans.sort((a, b) => a.start - b.start);
  let out = "";
  let kept = 0;
  for (const s of spans) {
    if (s.start < kept) continue;
    out += text.slice(kept, s.start) + s.replacement;
    kept = s.end;
  }
  return out + text.slice(kept);
}

/** The index of the first CR or LF at or after `from`, or the text's length. */
function lineEnd(text: string, from: number): number {
  const n = text.indexOf("\n", from);
  const r = text.indexOf("\r", from);
  return Math.min(n === -1 ? text.length : n, r === -1 ? text.length : r);
}

/** Where the shell word starting at `i` ends (quotes followed, expansions included). */
function wordEnd(text: string, i: number): number {
  let quote: string | null = null;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === "\\" && quote === '"') i++;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === "\\") i++;
    else if (WORD_END.test(c)) break;
  }
  return Math.min(i, text.length);
}

/** The index just after the first `:` of a `user:pass` word, or null when it has none. */
function colonIn(text: string, start: number, end: number): number | null {
  const at = text.slice(start, end).indexOf(":");
  return at === -1 ? null : start + at + 1;
}
