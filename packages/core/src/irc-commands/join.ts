/** `join <channel>` (IPC `irc_join`, MCP `join`). */
import { defineIrcCommand, IrcCommandRefused } from "./define.js";
import { wireTarget } from "./wire.js";

export default defineIrcCommand({
  name: "join",
  ipcType: "irc_join",
  summary: "join a channel (its messages are buffered from then on)",
  details: "Joins the channel and prints `joined <channel>` once the server confirmed it; a refusal (invite only, banned, ...) is an error.",
  examples: ["culture channel join '#release'"],
  args: [{ field: "channel", kind: "word", label: "channel", describe: "the channel to join, such as #release" }],
  description: "Join an IRC channel; its messages are buffered for `read` from then on.",
  request: (z) => z.object({ channel: wireTarget(z, "channel") }),
  async handle({ channel }, ctx) {
    const name = String(channel);
    if (!ctx.transport.isChannel(name)) {
      throw new IrcCommandRefused(`"${name}" is not a channel name on this server (by its CHANTYPES; like #general)`);
    }
    await ctx.transport.join(name);
    return { channel: name, joined: true };
  },
  format: (data, fields) => `joined ${String(data.channel ?? fields.channel)}`,
});
