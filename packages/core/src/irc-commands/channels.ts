/** `channels` (IPC `irc_channels`, MCP `channels`). */
import { defineIrcCommand } from "./define.js";
import { table } from "./format.js";

export default defineIrcCommand({
  name: "channels",
  ipcType: "irc_channels",
  summary: "list the channels you are in, with member counts",
  details: "Prints one line per joined channel: the name and how many members it has.",
  examples: ["culture channel channels"],
  args: [],
  description: "List the IRC channels you are in, with member counts.",
  request: (z) => z.object({}),
  handle: async (_fields, ctx) => ({ channels: ctx.transport.channelInfo() }),
  format(data) {
    const rows = (Array.isArray(data.channels) ? data.channels : []).map((c: Record<string, unknown>) => {
      const n = typeof c.members === "number" ? c.members : Array.isArray(c.members) ? c.members.length : 0;
      return [String(c.channel ?? c.name ?? "?"), `${n} member${n === 1 ? "" : "s"}`];
    });
    return rows.length === 0 ? "(not in any channel)" : table(rows);
  },
});
