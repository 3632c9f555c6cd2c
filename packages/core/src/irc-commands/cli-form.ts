/**
 * A catalogue command's `culture channel` form, derived from its arguments and options: the
 * usage line, the help text, and the parsing of the words after the command name into the
 * IPC request's fields. No zod and no daemon code at run time: the CLI bundles this.
 */
import type { IrcCommand, IrcCommandArg } from "./define.js";

/** Thrown for bad arguments; the client prints it with the command's usage and exits 2. */
export class ChannelUsageError extends Error {
  override name = "ChannelUsageError";
}

const CHANNEL_HINT = "quote channel names: '#general' (an unquoted # starts a shell comment)";

/** `ask <channel> [--timeout N] <question...>`: options come before the free text. */
export function usageOf(c: IrcCommand): string {
  const parts = [c.name];
  const opts = (c.options ?? []).map((o) => `[--${o.flag} N]`);
  for (const a of c.args) {
    if (a.kind === "text") parts.push(...opts.splice(0));
    const label = a.kind === "text" ? `${a.label}...` : a.label;
    parts.push(a.optional ? `[${label}]` : `<${label}>`);
  }
  parts.push(...opts);
  return parts.join(" ");
}

/** Index of the first free-text argument: unknown `-x` words from there on are text. */
export function textFrom(c: IrcCommand): number | undefined {
  const i = c.args.findIndex((a) => a.kind === "text");
  return i < 0 ? undefined : i;
}

/** The help of one command (`culture channel <cmd> --help`). */
export function commandHelp(c: IrcCommand): string {
  const opts = (c.options ?? []).map((o) => [`--${o.flag} N`, `${o.describe} (default ${o.default})`] as const);
  const rows = [...opts, ["--json", "print the raw answer"] as const];
  const width = Math.max(...rows.map(([f]) => f.length));
  return (
    `usage: culture channel ${usageOf(c)} [--json]\n\n` +
    `${c.summary[0]?.toUpperCase()}${c.summary.slice(1)}.\n\n${c.details}\n\n` +
    `Options:\n${rows.map(([f, d]) => `  ${f.padEnd(width)}  ${d}`).join("\n")}\n\n` +
    `Examples:\n${c.examples.map((e) => `  ${e}`).join("\n")}\n\n` +
    `IPC request: ${c.ipcType}   MCP tool: ${c.name}\n`
  );
}

/**
 * The IPC fields from the positional words and the options given (`{timeout: 5}`); throws
 * {@link ChannelUsageError}. Defaults are filled in, so the daemon sees what the user meant.
 */
export function fieldsFromWords(c: IrcCommand, words: string[], options: Record<string, number>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  let i = 0;
  for (const a of c.args) {
    if (a.kind === "text") {
      const text = words.slice(i).join(" ");
      i = words.length;
      if (text.trim().length > 0) fields[a.field] = text;
      else if (!a.optional) throw new ChannelUsageError(`missing <${a.label}>`);
      continue;
    }
    const word = words[i++];
    if (word === undefined || word.length === 0) {
      if (!a.optional) throw new ChannelUsageError(`missing <${a.label}>${hint(a)}`);
      if (a.default !== undefined) fields[a.field] = a.default;
      continue;
    }
    fields[a.field] = a.kind === "count" ? positiveInt(word, a.label) : word;
  }
  const extra = words.slice(i);
  if (extra.length > 0) throw new ChannelUsageError(`unexpected argument${extra.length === 1 ? "" : "s"}: ${extra.join(" ")}`);
  for (const o of c.options ?? []) fields[o.field] = options[o.flag] ?? o.default;
  return fields;
}

/** Parses a whole positive decimal integer (`10`, not `10x` or `1e3`). */
export function positiveInt(value: string, name: string): number {
  const n = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new ChannelUsageError(`${name} must be a whole number >= 1 (got '${value}')`);
  return n;
}

function hint(a: IrcCommandArg): string {
  return a.label.includes("channel") ? ` (${CHANNEL_HINT})` : "";
}
