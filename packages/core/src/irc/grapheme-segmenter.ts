/**
 * One grapheme `Intl.Segmenter` for the process, made on first use. Making it pulls ICU's
 * break-iterator data into memory (about 4 MiB of RSS, measured with bench/daemon-idle.mjs);
 * only a line long enough to be split needs it, so an idle daemon never pays (issue 30).
 */
let segmenter: Intl.Segmenter | null | undefined;

/** The process's grapheme segmenter, or null on a Node without `Intl.Segmenter`. */
export function graphemeSegmenter(): Intl.Segmenter | null {
  if (segmenter === undefined) {
    segmenter = typeof Intl.Segmenter === "function" ? new Intl.Segmenter(undefined, { granularity: "grapheme" }) : null;
  }
  return segmenter;
}
