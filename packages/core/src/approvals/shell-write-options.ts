/**
 * Options that make an otherwise read-only command write a file (or run one), which a pattern's
 * wildcard never covers: `Bash(git diff*)` allows `git diff --stat` but not
 * `git diff --output=/tmp/x`. Such a word is still allowed when the pattern names it literally
 * (`Bash(git diff --output=x.patch)`): the operator wrote it.
 *
 * The table is what culture knows, not a proof about every program; docs/approvals.md lists it.
 */

/** Long options (and their `=value` forms) that write, for every program. */
export const WRITING_LONG_OPTIONS: readonly string[] = [
  "--output", "--output-file", "--output-dir", "--output-directory", "--output-document", "--out", "--out-file", "--outfile", "--out-dir", "--outdir",
  "--prefix", "--log-file", "--logfile", "--append-output", "--write", "--in-place", "--exec", "--exec-path", "--dump-header", "--cookie-jar",
  "--trace", "--trace-ascii", "--stderr", "--directory-prefix", "--config", "--upload-file",
];

/** Short options that write, for every program (also inside a cluster: `-uo`). */
export const WRITING_SHORT_OPTIONS: readonly string[] = ["o", "O"];

/** Words that write or run something for one program. */
export const WRITING_WORDS_BY_PROGRAM: Readonly<Record<string, readonly string[]>> = {
  find: ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"],
  sed: ["-i", "--in-place"],
  perl: ["-i"],
  curl: ["-D", "-c", "-T"],
  wget: ["-a", "-P"],
  git: ["-c", "--git-dir", "--work-tree", "--ext-diff", "--textconv"],
};

/**
 * True when `word` (an argument of `program`) may write a file or run code: a long option in
 * the table or an abbreviation of one (`--out=x`: GNU getopt and git accept unique prefixes),
 * a short option or cluster holding one (`-o`, `-uo`), or a word in the program's own list
 * (`find … -delete`, `sed -i.bak`).
 */
export function writesFile(program: string, word: string): boolean {
  const own = WRITING_WORDS_BY_PROGRAM[program] ?? [];
  if (word.startsWith("--") && word.length > 2) {
    const name = word.split("=")[0]!;
    const known = [...WRITING_LONG_OPTIONS, ...own.filter((o) => o.startsWith("--"))];
    return known.some((o) => o === name || (name.length >= 3 && o.startsWith(name)));
  }
  if (own.some((o) => word === o || (o.length === 2 && !o.startsWith("--") && word.startsWith(o) && /^-[A-Za-z]/.test(o)))) return true;
  if (/^-[A-Za-z0-9]+$/.test(word)) {
    if ([...word.slice(1)].some((c) => WRITING_SHORT_OPTIONS.includes(c))) return true;
    // A short option of the program's own list inside a cluster (`sed -ni`).
    return own.some((o) => /^-[A-Za-z]$/.test(o) && word.slice(1).includes(o[1]!));
  }
  return false;
}
