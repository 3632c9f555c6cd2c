/**
 * The one table renderer of the CLI (`culture status`, `culture backend list`, the demo):
 * columns padded to their widest cell, two spaces apart, the last column unpadded and
 * optionally cut to the terminal's width.
 */

/** Options of {@link renderTable}. */
export interface TableOptions {
  /** The terminal's width: the last column is cut (with "…") to fit. Default: no limit. */
  width?: number;
  /** The narrowest the last column is cut to. Default 12. */
  minLastWidth?: number;
  /** Lines printed under a row (e.g. its error), by row index; not part of the widths. */
  below?: ReadonlyMap<number, readonly string[]>;
}

/** Renders a header and rows as aligned text, one line each, ending with a newline. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[], options: TableOptions = {}): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const fixed = widths.slice(0, -1).reduce((a, b) => a + b + 2, 0);
  const lastWidth = options.width === undefined ? Infinity : Math.max(options.minLastWidth ?? 12, options.width - fixed);
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? truncate(c, lastWidth) : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  const out = [line(header)];
  rows.forEach((row, i) => {
    out.push(line(row));
    out.push(...(options.below?.get(i) ?? []));
  });
  return `${out.join("\n")}\n`;
}

function truncate(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, Math.max(0, n - 1))}…`;
}
