/** `ask <channel> [--timeout N] <question...>` (IPC `irc_ask`, MCP `ask`). */
import { defineIrcCommand, IrcCommandRefused, type IrcCommandContext } from "./define.js";
import { formatMessage } from "./format.js";
import { requireReachable } from "./target-checks.js";
import { wireNumber, wireOptionalText, wireTarget } from "./wire.js";

/** A non-empty question to a reachable target: its text and the target as IRC sees it. */
async function checkAsk(fields: Record<string, unknown>, ctx: IrcCommandContext): Promise<{ text: string; target: string }> {
  const { question, message, channel } = fields;
  const text = typeof question === "string" ? question : typeof message === "string" ? message : "";
  if (text.trim() === "") throw new IrcCommandRefused('missing field "question" (a non-empty string)');
  return { text, target: await requireReachable(String(channel), ctx, "nothing was asked") };
}

export default defineIrcCommand({
  name: "ask",
  ipcType: "irc_ask",
  summary: "post a question and wait for the first reply addressed to you",
  details:
    "Posts the question, then waits up to N seconds (default 300) for the first message that mentions\n" +
    "you or is a DM to you, and prints it as `[HH:MM:SS] <nick> text`. Prints `(no answer within Ns)`\n" +
    "when nobody answered in time (exit status 0: check the text, or use --json).\n" +
    "Refused, with nothing asked, for a channel you are not in and for a nick that is not online.",
  examples: [`culture channel ask '#general' "which branch should I base this on?"`, "culture channel ask '#ops' --timeout 60 'ok to deploy?'"],
  args: [
    { field: "channel", kind: "word", label: "channel", describe: "a channel name such as #general, or a nick" },
    { field: "question", kind: "text", label: "question", describe: "the question to post" },
  ],
  options: [{ flag: "timeout", field: "timeout", mcpName: "timeout_seconds", describe: "seconds to wait for an answer", default: 300, max: 3600 }],
  description:
    "Post a question on a channel and wait for the first reply that mentions you or is a DM to you. Returns the reply, or `(no answer within Ns)`.",
  // The reference client sends the question as `message`; both are accepted.
  request: (z) =>
    z.object({
      channel: wireTarget(z, "channel"),
      question: wireOptionalText(z, "question"),
      message: wireOptionalText(z, "message"),
      timeout: wireNumber(z, "timeout", { fallback: 300, min: 0, exclusive: true }),
    }),
  async check(fields, ctx) {
    await checkAsk(fields, ctx);
  },
  async handle(fields, ctx) {
    const { text, target } = await checkAsk(fields, ctx);
    const answer = await ctx.ask(target, text, Number(fields.timeout));
    if (!answer.ok) throw new IrcCommandRefused(answer.error);
    return answer.data;
  },
  // The daemon answers at the deadline (after an operator's approval when the question goes
  // elsewhere than the task's origin, which has a deadline of its own): no client deadline.
  clientTimeoutMs: () => 0,
  format(data, fields) {
    const answer = data.answer;
    if (answer && typeof answer === "object") return formatMessage(answer);
    return `(no answer within ${String(fields.timeout)}s)`;
  },
});
