/**
 * "Did you mean ...?" suggestions for misspelt config keys, enum values and backend options.
 * A plain Levenshtein distance is enough for typos of short identifiers (`agnets`, `chanels`,
 * `acp_comand`); the threshold keeps it from suggesting something unrelated.
 */

/**
 * The candidate closest to `word`, or null when none is close enough to be a likely typo.
 *
 * Close enough: an edit distance of at most a third of the longer word (at least 1, at most 3),
 * and not every letter changed, compared case-insensitively. Ties go to the earliest candidate. An exact match is returned as is.
 */
export function didYouMean(word: string, candidates: readonly string[]): string | null {
  const needle = word.toLowerCase();
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = levenshtein(needle, candidate.toLowerCase());
    const longer = Math.max(needle.length, candidate.length);
    const limit = Math.min(3, Math.max(1, Math.floor(longer / 3)));
    // `distance < longer`: replacing every letter is not a typo ("x" is not a near miss of "y").
    if (distance <= limit && distance < longer && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** The edit distance (insertions, deletions, substitutions; a swap of neighbours counts as one). */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  // Optimal string alignment: three rows are enough to count an adjacent transposition as one edit.
  let prevPrev: number[] = [];
  let prev: number[] = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (prevPrev[j - 2] as number) + 1);
      }
      row.push(value);
    }
    prevPrev = prev;
    prev = row;
  }
  return prev[b.length] as number;
}
