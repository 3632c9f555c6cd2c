/** `read <channel> [limit]` (IPC `irc_read`, MCP `read`). */
import { defineIrcCommand } from "./define.js";
import { formatMessage } from "./format.js";
import { requireJoined } from "./target-checks.js";
import { wireNumber, wireTarget } from "./wire.js";

export default defineIrcCommand({
  name: "read",
  ipcType: "irc_read",
  summary: "print unread messages (default up to 50), oldest first",
  details:
    "Prints messages received since the last read, oldest first, as `[HH:MM:SS] <nick> text`, at most\n" +
    "[limit] (default 50); a second read gets the rest. Direct messages are read with `read DM:<nick>`.\n" +
    "When messages were dropped from the buffer before you read them, it says how many.\n" +
    "Refused for a channel you are not in (unless lines from before you left are still unread).",
  examples: ["culture channel read '#general'", "culture channel read '#general' 10", "culture channel read DM:alice"],
  args: [
    { field: "channel", kind: "word", label: "channel", describe: "a channel name such as #general (DM:<nick> reads direct messages)" },
    { field: "limit", kind: "count", label: "limit", optional: true, default: 50, max: 1000, describe: "at most this many messages" },
  ],
  description: "Read the unread messages of a channel (or DM:<nick>), oldest first, as `[HH:MM:SS] <nick> text`.",
  request: (z) => z.object({ channel: wireTarget(z, "channel"), limit: wireNumber(z, "limit", { fallback: 50, int: true, min: 1 }) }),
  async handle({ channel, limit }, ctx) {
    const target = String(channel);
    const { messages, skipped } = ctx.buffer.read(ctx.conversationKey(target), Number(limit));
    // An empty read of a channel the agent is not in would look like a quiet channel.
    if (messages.length === 0 && skipped === 0 && ctx.transport.isChannel(target)) requireJoined(target, ctx);
    ctx.noteChannelRead();
    return { channel: target, messages, skipped };
  },
  format(data, fields) {
    const lines: string[] = [];
    const skipped = typeof data.skipped === "number" ? data.skipped : 0;
    if (skipped > 0) lines.push(`(${skipped} older message${skipped === 1 ? " was" : "s were"} dropped)`);
    const messages = Array.isArray(data.messages) ? data.messages : [];
    for (const m of messages) lines.push(formatMessage(m));
    if (lines.length === 0) lines.push(`(no new messages in ${String(fields.channel)})`);
    return lines.join("\n");
  },
});
