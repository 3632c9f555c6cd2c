/** `who <target>` (IPC `irc_who`, MCP `who`). */
import { defineIrcCommand } from "./define.js";
import { table } from "./format.js";
import { dmNick } from "./target-checks.js";
import { wireOptionalText } from "./wire.js";

export default defineIrcCommand({
  name: "who",
  ipcType: "irc_who",
  summary: "list the members of a channel (or look up a nick), with modes",
  details:
    "Prints one line per member: nick, channel modes (e.g. +o), and `away` when they are away.\n" +
    "Prints `(no one found for <target>)` for an empty or missing channel and for a nick that is not online.",
  examples: ["culture channel who '#general'", "culture channel who alice"],
  args: [{ field: "channel", kind: "word", label: "target", mcpName: "target", describe: "a channel such as #general, or a nick" }],
  description: "List the members of a channel with their modes, or look up one nick.",
  // The reference client names the field `channel` or `target`.
  request: (z) =>
    z
      .object({ channel: wireOptionalText(z, "channel"), target: wireOptionalText(z, "target") })
      .transform((r) => ({ channel: (r.channel ?? r.target ?? "").replace(/[\r\n\0]/g, "").trim() }))
      .refine((r) => r.channel !== "", 'missing field "channel" (or "target")')
      .refine((r) => !/\s/.test(r.channel), 'field "channel" must not contain spaces'),
  async handle({ channel }, ctx) {
    const target = dmNick(String(channel));
    return { target, members: await ctx.transport.who(target) };
  },
  format(data, fields) {
    const rows = (Array.isArray(data.members) ? data.members : []).map((m: Record<string, unknown>) => [
      String(m.nick ?? "?"),
      Array.isArray(m.modes) ? m.modes.join("") : typeof m.modes === "string" ? m.modes : "",
      m.away === true || (typeof m.away === "string" && m.away.length > 0) ? "away" : "",
    ]);
    return rows.length === 0 ? `(no one found for ${String(fields.channel)})` : table(rows);
  },
});
