/**
 * grapheme-splitter's API, on Node's own `Intl.Segmenter` (full ICU since Node 13). The build
 * (packages/core/tsup.config.ts) gives irc-framework this module for `require("grapheme-splitter")`,
 * so a daemon no longer loads that package's 114 KB of Unicode tables (issue 30). irc-framework
 * uses it to break long messages (`lineBreak` in its linebreak.js: `new GraphemeSplitter()`,
 * `iterateGraphemes`); the other methods are here so the API is the package's whole one.
 *
 * ICU follows a newer Unicode than grapheme-splitter 1.0.4 (Unicode 10), so emoji ZWJ
 * ZWJ sequences of newer emoji (❤️‍🔥, 🫱🏽‍🫲🏿) stay whole where the package would cut them.
 */
import { graphemeSegmenter } from "../grapheme-segmenter.js";

/** The segmenter, made on first use (irc-framework builds a splitter only for a long line). */
const segmenter = { segment: (text: string) => graphemeSegmenter()!.segment(text) };

/** Splits text into extended grapheme clusters (what a reader sees as one character). */
export default class GraphemeSplitter {
  /** Each grapheme of `text`, in order. */
  *iterateGraphemes(text: string): IterableIterator<string> {
    for (const { segment } of segmenter.segment(text)) yield segment;
  }

  /** The graphemes of `text`. */
  splitGraphemes(text: string): string[] {
    return [...this.iterateGraphemes(text)];
  }

  /** How many graphemes `text` holds. */
  countGraphemes(text: string): number {
    let n = 0;
    for (const _ of segmenter.segment(text)) n++;
    return n;
  }
}
