/**
 * The IRC tools `culture mcp` offers: one entry per tool with its zod input shape, its
 * description (what the model reads to choose it) and the IPC request it makes. The answers
 * are shown with the same formatting as `culture channel`, so both ways read alike.
 */
import { z } from "zod";
import { CHANNEL_COMMANDS, type ChannelCommand } from "./channel-commands.js";

const target = z.string().min(1).describe("a channel such as #general, or a nick for a direct message");
const channel = z.string().min(1).describe("a channel name such as #general (DM:<nick> reads direct messages)");

/** One MCP tool. */
export interface IrcTool {
  name: string;
  description: string;
  /** The zod shape of the arguments (an object of fields). */
  input: z.ZodRawShape;
  /** The `culture channel` command whose IPC request and formatting it shares. */
  command: string;
  /** The IPC fields from the validated arguments. */
  fields(args: Record<string, unknown>): Record<string, unknown>;
}

/** Every IRC tool, in the order a client lists them. */
export const IRC_TOOLS: IrcTool[] = [
  {
    name: "send",
    description: "Post a message on IRC to a channel or a nick. Newlines become separate IRC lines. This is how you reply to people.",
    input: { target, message: z.string().min(1).describe("the text to post") },
    command: "send",
    fields: (a) => ({ channel: a.target, message: a.message }),
  },
  {
    name: "read",
    description: "Read the unread messages of a channel (or DM:<nick>), oldest first, as `[HH:MM:SS] <nick> text`.",
    input: { channel, limit: z.number().int().min(1).max(1000).optional().describe("at most this many messages (default 50)") },
    command: "read",
    fields: (a) => ({ channel: a.channel, limit: a.limit ?? 50 }),
  },
  {
    name: "ask",
    description:
      "Post a question on a channel and wait for the first reply that mentions you or is a DM to you. Returns the reply, or `(no answer within Ns)`.",
    input: {
      channel,
      question: z.string().min(1).describe("the question to post"),
      timeout_seconds: z.number().positive().max(3600).optional().describe("how long to wait for an answer (default 300)"),
    },
    command: "ask",
    fields: (a) => ({ channel: a.channel, question: a.question, timeout: a.timeout_seconds ?? 300 }),
  },
  {
    name: "join",
    description: "Join an IRC channel; its messages are buffered for `read` from then on.",
    input: { channel: z.string().min(1).describe("the channel to join, starting with # or &") },
    command: "join",
    fields: (a) => ({ channel: a.channel }),
  },
  {
    name: "part",
    description: "Leave an IRC channel you are in.",
    input: { channel: z.string().min(1).describe("the channel to leave") },
    command: "part",
    fields: (a) => ({ channel: a.channel }),
  },
  {
    name: "channels",
    description: "List the IRC channels you are in, with member counts.",
    input: {},
    command: "channels",
    fields: () => ({}),
  },
  {
    name: "who",
    description: "List the members of a channel with their modes, or look up one nick.",
    input: { target },
    command: "who",
    fields: (a) => ({ channel: a.target }),
  },
  {
    name: "topic",
    description: "Show a channel's topic, or set it when `topic` is given.",
    input: { channel, topic: z.string().optional().describe("the new topic; omit to read the current one") },
    command: "topic",
    fields: (a) => (typeof a.topic === "string" ? { channel: a.channel, topic: a.topic } : { channel: a.channel }),
  },
  {
    name: "status",
    description: "Your daemon's status: running, paused, activity, channels, backend.",
    input: {},
    command: "status",
    fields: () => ({}),
  },
  {
    name: "compact",
    description: "Ask the daemon to compact your context (summarise the conversation so far).",
    input: {},
    command: "compact",
    fields: () => ({}),
  },
  {
    name: "clear",
    description: "Ask the daemon to clear your context. IRC state (channels, buffers) is kept.",
    input: {},
    command: "clear",
    fields: () => ({}),
  },
];

/** The `culture channel` command a tool shares its request type and formatting with. */
export function channelCommand(tool: IrcTool): ChannelCommand {
  const c = CHANNEL_COMMANDS.find((cmd) => cmd.name === tool.command);
  if (!c) throw new Error(`no culture channel command "${tool.command}" (this is a bug)`);
  return c;
}
