/**
 * Frames a client's byte stream into lines and enforces the line-length limits on bytes,
 * before any decoding: 512 bytes for the message itself (CR LF included, RFC 1459) plus up
 * to 8191 bytes of tags (IRCv3). Lines end at LF or CR (clients that send a bare CR or a
 * bare LF are common); empty lines are skipped. Decoding is lossy: invalid UTF-8 becomes
 * U+FFFD instead of an error, so hostile bytes cannot crash the server, and NUL characters
 * are removed because they terminate strings in other clients.
 */
import { MAX_LINE_BYTES, MAX_TAGS_BYTES } from "./message.js";

/** What {@link LineReader.push} found in a chunk, in order. */
export type LineEvent = { kind: "line"; line: string } | { kind: "too-long" };

/** The most bytes a line may have with its tags (8191 + 512). */
export const MAX_FRAMED_BYTES = MAX_TAGS_BYTES + MAX_LINE_BYTES;

/** Splits bytes into decoded lines; one per connection. */
export class LineReader {
  private pending: Buffer | null = null;
  /** True while discarding the rest of an over-long line up to its line end. */
  private discarding = false;

  /** Feeds a chunk and returns the complete lines (and limit violations) it finished. */
  push(chunk: Buffer): LineEvent[] {
    const events: LineEvent[] = [];
    let data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = null;
    let start = 0;
    for (let i = 0; i < data.length; i++) {
      const b = data[i]!;
      if (b !== 0x0a && b !== 0x0d) continue;
      if (this.discarding) this.discarding = false;
      else if (i > start) this.emit(data.subarray(start, i), events);
      start = i + 1;
    }
    if (start < data.length) {
      if (this.discarding) return events;
      data = data.subarray(start);
      if (data.length > MAX_FRAMED_BYTES) {
        // No line end in sight and already over every limit: refuse it now instead of
        // buffering an unbounded amount, and drop the rest of it as it arrives.
        events.push({ kind: "too-long" });
        this.discarding = true;
      } else {
        // Copy: the chunk's buffer may be a slice of a large pooled allocation.
        this.pending = Buffer.from(data);
      }
    }
    return events;
  }

  private emit(raw: Buffer, events: LineEvent[]): void {
    let body = raw;
    if (raw[0] === 0x40 /* @ */) {
      const space = raw.indexOf(0x20);
      const tagsLen = space === -1 ? raw.length : space + 1;
      if (tagsLen > MAX_TAGS_BYTES) {
        events.push({ kind: "too-long" });
        return;
      }
      body = raw.subarray(tagsLen);
    }
    if (body.length + 2 > MAX_LINE_BYTES) {
      events.push({ kind: "too-long" });
      return;
    }
    let line = raw.toString("utf8");
    if (line.includes("\0")) line = line.replace(/\0/g, "");
    if (line.length > 0) events.push({ kind: "line", line });
  }
}
