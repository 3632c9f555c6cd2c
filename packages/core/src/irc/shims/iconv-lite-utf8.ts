/**
 * What irc-framework needs of iconv-lite, for UTF-8 only: the build puts this module in
 * iconv-lite's place (packages/core/tsup.config.ts). culture never changes a connection's
 * encoding, so iconv-lite's 500 KB of code tables were dead weight in every daemon's memory
 * (issue 30). Same results as iconv-lite for UTF-8: invalid bytes decode to U+FFFD and a
 * leading byte-order mark is dropped. Any other encoding throws, which irc-framework's
 * `setEncoding` reports as unsupported (it returns false).
 */

/** True for the names iconv-lite gives UTF-8 (its lookup ignores case and punctuation). */
function isUtf8(encoding: string): boolean {
  return /^utf-?8$/i.test(String(encoding).trim());
}

function unsupported(encoding: string): Error {
  return new Error(`Encoding not recognized: '${encoding}' (culture's IRC connections speak UTF-8 only)`);
}

/** Decodes bytes as UTF-8, dropping a leading byte-order mark. */
export function decode(buf: Buffer, encoding: string): string {
  if (!isUtf8(encoding)) throw unsupported(encoding);
  const text = Buffer.isBuffer(buf) ? buf.toString("utf8") : String(buf);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Encodes text as UTF-8 bytes. */
export function encode(text: string, encoding: string): Buffer {
  if (!isUtf8(encoding)) throw unsupported(encoding);
  return Buffer.from(String(text), "utf8");
}

/** True for UTF-8, the one encoding this module speaks. */
export function encodingExists(encoding: string): boolean {
  return isUtf8(encoding);
}

export default { decode, encode, encodingExists };
