/** How answers are shown, the same way by `culture channel` and the MCP tools. */

/** `[HH:MM:SS] <nick> text`, in local time. */
export function formatMessage(m: unknown): string {
  const msg = (m ?? {}) as Record<string, unknown>;
  return `[${clock(msg.timestamp)}] <${String(msg.nick ?? "?")}> ${String(msg.text ?? "")}`;
}

/** HH:MM:SS of an epoch timestamp in seconds (the reference's unit) or milliseconds. */
export function clock(ts: unknown): string {
  if (typeof ts !== "number" || !Number.isFinite(ts)) return "--:--:--";
  // Epoch seconds stay below 1e11 until the year 5138; anything larger is milliseconds.
  const d = new Date(ts < 1e11 ? ts * 1000 : ts);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** Rows as aligned columns (two spaces apart, no trailing blanks). */
export function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  ").trimEnd()).join("\n");
}

/** `key: value` lines of an object, nested keys as `a.b`. */
export function keyValues(data: Record<string, unknown>, prefix = ""): string[] {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    const name = prefix + key;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) lines.push(...keyValues(value as Record<string, unknown>, `${name}.`));
    else if (Array.isArray(value)) lines.push(`${name}: ${value.length === 0 ? "-" : value.map((v) => (typeof v === "object" ? JSON.stringify(v) : String(v))).join(", ")}`);
    else lines.push(`${name}: ${value === null || value === undefined || value === "" ? "-" : String(value)}`);
  }
  return lines;
}

/** The answer's `message`, or `fallback`. */
export function messageOr(data: Record<string, unknown>, fallback: string): string {
  return typeof data.message === "string" && data.message.length > 0 ? data.message : fallback;
}
