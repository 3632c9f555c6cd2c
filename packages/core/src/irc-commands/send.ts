/** `send <channel|nick> <message...>` (IPC `irc_send`, MCP `send`). */
import { defineIrcCommand } from "./define.js";
import { requireReachable } from "./target-checks.js";
import { wireTarget, wireText } from "./wire.js";

export default defineIrcCommand({
  name: "send",
  ipcType: "irc_send",
  summary: "post a message to a channel or a nick",
  details:
    "Posts the message (words are joined with spaces; newlines make several IRC lines).\n" +
    "Prints nothing when it was accepted, or `queued (not connected; will be sent on reconnect)`.\n" +
    "Refused, with nothing sent, for a channel you are not in and for a nick that is not online.",
  examples: [`culture channel send '#general' "build is green"`, "culture channel send alice 'done, see PR #12'"],
  args: [
    { field: "channel", kind: "word", label: "channel|nick", mcpName: "target", describe: "a channel such as #general, or a nick for a direct message" },
    { field: "message", kind: "text", label: "message", describe: "the text to post" },
  ],
  description: "Post a message on IRC to a channel or a nick. Newlines become separate IRC lines. This is how you reply to people.",
  request: (z) => z.object({ channel: wireTarget(z, "channel"), message: wireText(z, "message") }),
  async check({ channel }, ctx) {
    await requireReachable(String(channel), ctx, "nothing was sent");
  },
  async handle({ channel, message }, ctx) {
    const target = await requireReachable(String(channel), ctx, "nothing was sent");
    const sent = ctx.say(target, String(message));
    return { channel: target, queued: sent.queued, lines: sent.lines };
  },
  // No client deadline: a send elsewhere than the task's origin may wait for an operator's
  // approval (docs/approvals.md); the daemon always answers, at the latest when it times out.
  clientTimeoutMs: () => 0,
  format: (data) => (data.queued === true ? "queued (not connected; will be sent on reconnect)" : ""),
  done: (fields) => `sent to ${String(fields.channel)}`,
});
