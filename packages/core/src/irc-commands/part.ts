/** `part <channel>` (IPC `irc_part`, MCP `part`). */
import { defineIrcCommand } from "./define.js";
import { requireJoined } from "./target-checks.js";
import { wireOptionalText, wireTarget } from "./wire.js";

export default defineIrcCommand({
  name: "part",
  ipcType: "irc_part",
  summary: "leave a channel",
  details: "Leaves the channel and prints `left <channel>`. Refused for a channel you are not in.",
  examples: ["culture channel part '#release'"],
  args: [{ field: "channel", kind: "word", label: "channel", describe: "the channel to leave" }],
  description: "Leave an IRC channel you are in.",
  request: (z) => z.object({ channel: wireTarget(z, "channel"), reason: wireOptionalText(z, "reason") }),
  async check({ channel }, ctx) {
    requireJoined(String(channel), ctx, "leave");
  },
  async handle({ channel, reason }, ctx) {
    const name = String(channel);
    requireJoined(name, ctx, "leave");
    await ctx.transport.part(name, typeof reason === "string" ? reason : undefined);
    return { channel: name, parted: true };
  },
  format: (data, fields) => `left ${String(data.channel ?? fields.channel)}`,
});
