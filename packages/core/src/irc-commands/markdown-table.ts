/**
 * The catalogue as a Markdown table (docs/irc-tools.md holds it; a test keeps the two equal):
 * each command's `culture channel` form, its MCP tool input and its IPC request type.
 */
import { IRC_COMMANDS } from "./catalogue.js";
import { usageOf } from "./cli-form.js";

/** One row per command: CLI usage, MCP tool and input fields, IPC type, summary. */
export function catalogueMarkdown(): string {
  const rows = IRC_COMMANDS.map((c) => {
    const fields = [
      ...c.args.map((a) => `${a.mcpName ?? a.field}${a.optional ? "?" : ""}`),
      ...(c.options ?? []).map((o) => `${o.mcpName ?? o.field}?`),
    ];
    // A `|` inside a table cell must be escaped, even in a code span (GFM).
    return `| \`culture channel ${usageOf(c).replace(/\|/g, "\\|")}\` | \`${c.name} {${fields.join(", ")}}\` | \`${c.ipcType}\` | ${c.summary} |`;
  });
  return ["| `culture channel` | MCP tool `{input}` | IPC request | what it does |", "| --- | --- | --- | --- |", ...rows].join("\n");
}
