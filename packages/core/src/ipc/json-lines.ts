/**
 * JSON Lines, the framing of the IPC socket: one JSON value per line, `\n` terminated.
 *
 * The decoder works on bytes, not strings, so a line's size is known without decoding it and
 * an oversized line (a runaway or hostile client) is reported as soon as it crosses the limit
 * and then skipped up to its newline without being kept in memory. `\n` never occurs inside a
 * multi-byte UTF-8 sequence, so splitting bytes on it is safe; the pieces of one line are fed
 * to a streaming TextDecoder as they arrive.
 *
 * The encoder writes what the reference implementation's `json.dumps(msg, separators=(",", ":"))`
 * writes: compact JSON with everything outside printable ASCII escaped as `\uXXXX`.
 *
 * Node builtins only (here: none): `culture channel`, the agent's hot path, loads this file.
 */

/** The default maximum size of one line, in bytes, without its newline: 1 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;

/** Why a line could not be decoded. */
export type JsonLinesErrorKind = "invalid_json" | "invalid_utf8" | "line_too_long";

/** A line that was not a JSON value. The stream goes on after it. */
export class JsonLinesError extends Error {
  override name = "JsonLinesError";
  /** What was wrong. */
  readonly kind: JsonLinesErrorKind;
  /** The 1-based number of the line in the stream (blank lines count). */
  readonly line: number;

  constructor(kind: JsonLinesErrorKind, line: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
    this.line = line;
  }
}

/** One decoded line: a JSON value, or the reason it is not one. */
export type JsonLine = { ok: true; value: unknown; line: number } | { ok: false; error: JsonLinesError; line: number };

/** Options of {@link JsonLinesDecoder}. */
export interface JsonLinesDecoderOptions {
  /** The largest line accepted, in bytes without the newline. Default {@link DEFAULT_MAX_LINE_BYTES}. */
  maxLineBytes?: number;
}

/**
 * A streaming JSON Lines decoder. Feed it chunks as they arrive with {@link write}; it returns
 * the lines completed by that chunk. Blank (whitespace-only) lines are skipped; a trailing
 * `\r` is tolerated. Call {@link end} at end of stream for a last line without a newline.
 */
export class JsonLinesDecoder {
  /** The largest line accepted, in bytes. */
  readonly maxLineBytes: number;
  private decoder = new TextDecoder("utf-8", { fatal: true });
  private parts: string[] = [];
  private bytes = 0;
  /** Number of the line being read. */
  private lineNo = 1;
  /** True while skipping the rest of a line already reported as bad. */
  private discarding = false;

  constructor(options: JsonLinesDecoderOptions = {}) {
    const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    if (!Number.isSafeInteger(max) || max < 1) throw new RangeError(`maxLineBytes must be an integer >= 1 (got ${max})`);
    this.maxLineBytes = max;
  }

  /** Decodes a chunk; returns the lines it completed (values and errors, in stream order). */
  write(chunk: Uint8Array): JsonLine[] {
    const out: JsonLine[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) {
        if (start < chunk.length) this.segment(chunk.subarray(start), false, out);
        return out;
      }
      this.segment(chunk.subarray(start, nl), true, out);
      start = nl + 1;
    }
  }

  /** Ends the stream: decodes a last line that had no newline, and resets the decoder. */
  end(): JsonLine[] {
    const out: JsonLine[] = [];
    if (this.discarding) this.discarding = false;
    else if (this.bytes > 0) this.segment(new Uint8Array(0), true, out);
    this.reset();
    this.lineNo = 1;
    return out;
  }

  private segment(bytes: Uint8Array, complete: boolean, out: JsonLine[]): void {
    if (this.discarding) {
      if (complete) {
        this.discarding = false;
        this.lineNo++;
      }
      return;
    }
    const total = this.bytes + bytes.length;
    if (total > this.maxLineBytes) {
      this.fail(new JsonLinesError("line_too_long", this.lineNo, `line exceeds ${this.maxLineBytes} bytes; discarded`), complete, out);
      return;
    }
    let text: string;
    try {
      text = this.decoder.decode(bytes, { stream: !complete });
    } catch (err) {
      this.fail(new JsonLinesError("invalid_utf8", this.lineNo, `invalid UTF-8 at line ${this.lineNo}`, { cause: err }), complete, out);
      return;
    }
    if (!complete) {
      if (text.length > 0) this.parts.push(text);
      this.bytes = total;
      return;
    }
    const line = this.parts.length > 0 ? this.parts.join("") + text : text;
    const n = this.lineNo++;
    this.parts = [];
    this.bytes = 0;
    if (isBlank(line)) return;
    try {
      out.push({ ok: true, value: JSON.parse(line) as unknown, line: n });
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      out.push({ ok: false, error: new JsonLinesError("invalid_json", n, `invalid JSON at line ${n}: ${why}`, { cause: err }), line: n });
    }
  }

  private fail(error: JsonLinesError, complete: boolean, out: JsonLine[]): void {
    out.push({ ok: false, error, line: error.line });
    this.reset();
    if (complete) this.lineNo++;
    else this.discarding = true;
  }

  private reset(): void {
    this.parts = [];
    this.bytes = 0;
    // A fatal decoder that threw, or one holding half a character, starts over clean.
    this.decoder = new TextDecoder("utf-8", { fatal: true });
  }
}

/**
 * One JSON Lines record: compact JSON, non-ASCII escaped as `\uXXXX` (byte-identical to the
 * reference implementation's Python encoder), then `\n`.
 */
export function encodeJsonLine(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError("encodeJsonLine: the value has no JSON form");
  return (NON_ASCII.test(json) ? json.replace(NON_ASCII_G, escapeChar) : json) + "\n";
}

const NON_ASCII = /[\u007f-\uffff]/;
const NON_ASCII_G = /[\u007f-\uffff]/g;

function escapeChar(c: string): string {
  return "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");
}

function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13 && c !== 11 && c !== 12) return false;
  }
  return true;
}
