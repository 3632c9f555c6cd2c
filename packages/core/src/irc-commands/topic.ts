/** `topic <channel> [text...]` (IPC `irc_topic`, MCP `topic`). */
import { defineIrcCommand, IrcCommandRefused, type IrcCommandContext } from "./define.js";
import { requireJoined } from "./target-checks.js";
import { wireOptionalText, wireTarget } from "./wire.js";

/** A channel name, joined when the topic is to be set. */
function checkTopic({ channel, topic }: Record<string, unknown>, ctx: IrcCommandContext): void {
  const name = String(channel);
  if (!ctx.transport.isChannel(name)) throw new IrcCommandRefused(`"${name}" is not a channel name`);
  if (typeof topic === "string") requireJoined(name, ctx);
}

export default defineIrcCommand({
  name: "topic",
  ipcType: "irc_topic",
  summary: "show a channel's topic, or set it",
  details:
    "Without text, prints `<channel>: <topic> (set by <nick>)`. With text, sets the topic and prints the new one.\n" +
    "Setting is refused for a channel you are not in; the server's refusals (no such channel, not an operator) are errors.",
  examples: ["culture channel topic '#general'", "culture channel topic '#general' 'release 2.0 freeze'"],
  args: [
    { field: "channel", kind: "word", label: "channel", describe: "a channel name such as #general" },
    { field: "topic", kind: "text", label: "text", mcpName: "topic", optional: true, describe: "the new topic; omit to read the current one" },
  ],
  description: "Show a channel's topic, or set it when `topic` is given.",
  request: (z) => z.object({ channel: wireTarget(z, "channel"), topic: wireOptionalText(z, "topic") }),
  async check(fields, ctx) {
    checkTopic(fields, ctx);
  },
  async handle(fields, ctx) {
    checkTopic(fields, ctx);
    const { channel, topic } = fields;
    const name = String(channel);
    return { channel: name, ...(await ctx.transport.topic(name, typeof topic === "string" ? topic : undefined)) };
  },
  // Setting a topic elsewhere than the task's origin may wait for an approval, like send.
  clientTimeoutMs: (fields) => (fields.topic === undefined ? 30_000 : 0),
  format(data, fields) {
    const channel = String(data.channel ?? fields.channel);
    const topic = typeof data.topic === "string" ? data.topic : "";
    if (topic.length === 0) return `(no topic set for ${channel})`;
    const setBy = typeof data.setBy === "string" && data.setBy.length > 0 ? ` (set by ${data.setBy})` : "";
    return `${channel}: ${topic}${setBy}`;
  },
});
