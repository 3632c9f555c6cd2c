/**
 * The `culture channel` commands: how each one's arguments become an IPC request, and how
 * its answer is shown to the agent. A table rather than one file per command (the rest of
 * the CLI's convention) because they are one-liners and this is the hot path: the whole
 * client is one small chunk with no commander and no @culture/core barrel.
 */

/** Thrown for bad arguments; the client prints it with the command's usage and exits 2. */
export class ChannelUsageError extends Error {
  override name = "ChannelUsageError";
}

/** The parsed arguments of one call. */
export interface ChannelArgs {
  /** Positional arguments after the command name. */
  args: string[];
  /** `--timeout N` (ask only). */
  timeout: number | undefined;
}

/** One `culture channel` command. */
export interface ChannelCommand {
  name: string;
  /** `send <channel> <message...>` */
  usage: string;
  summary: string;
  /** Longer help: what it does and what it prints. */
  details: string;
  examples: string[];
  /** The IPC request type. */
  ipcType: string;
  /** Index of the first free-text argument (unknown `-x` words from there on are text). */
  textFrom?: number;
  /** Accepts `--timeout N`. */
  takesTimeout?: boolean;
  /** Builds the request fields; throws ChannelUsageError. */
  request(a: ChannelArgs): Record<string, unknown>;
  /** How long to wait for the answer, in ms (default 30 s). */
  timeoutMs?(fields: Record<string, unknown>): number;
  /** The human-readable answer ("" prints nothing). */
  format(data: Record<string, unknown>, fields: Record<string, unknown>): string;
}

const CHANNEL_HINT = "quote channel names: '#general' (an unquoted # starts a shell comment)";

/** Every command, in help order. */
export const CHANNEL_COMMANDS: ChannelCommand[] = [
  {
    name: "send",
    usage: "send <channel|nick> <message...>",
    summary: "post a message to a channel or a nick",
    details:
      "Posts the message (words are joined with spaces; newlines make several IRC lines).\n" +
      "Prints nothing when it was accepted, or `queued (not connected; will be sent on reconnect)`.",
    examples: [`culture channel send '#general' "build is green"`, "culture channel send alice 'done, see PR #12'"],
    ipcType: "irc_send",
    textFrom: 1,
    // No client deadline: a send elsewhere than the task's origin may wait for an operator's
    // approval (docs/approvals.md); the daemon always answers, at the latest when it times out.
    timeoutMs: () => 0,
    request: ({ args }) => {
      const [channel, ...words] = args;
      requireTarget(channel, "<channel|nick>");
      const message = words.join(" ");
      if (message.trim().length === 0) throw new ChannelUsageError("missing <message>");
      return { channel, message };
    },
    format: (data) => (data.queued === true ? "queued (not connected; will be sent on reconnect)" : ""),
  },
  {
    name: "read",
    usage: "read <channel> [limit]",
    summary: "print unread messages (default up to 50), oldest first",
    details:
      "Prints messages received since the last read, oldest first, as `[HH:MM:SS] <nick> text`, at most\n" +
      "[limit] (default 50); a second read gets the rest. Direct messages are read with `read DM:<nick>`.\n" +
      "When messages were dropped from the buffer before you read them, it says how many.",
    examples: ["culture channel read '#general'", "culture channel read '#general' 10", "culture channel read DM:alice"],
    ipcType: "irc_read",
    request: ({ args }) => {
      const [channel, limitArg, ...extra] = args;
      requireTarget(channel, "<channel>");
      noExtra(extra);
      const limit = limitArg === undefined ? 50 : positiveInt(limitArg, "limit");
      return { channel, limit };
    },
    format: (data, fields) => {
      const lines: string[] = [];
      const skipped = typeof data.skipped === "number" ? data.skipped : 0;
      if (skipped > 0) lines.push(`(${skipped} older message${skipped === 1 ? " was" : "s were"} dropped)`);
      const messages = Array.isArray(data.messages) ? data.messages : [];
      for (const m of messages) lines.push(formatMessage(m));
      if (lines.length === 0) lines.push(`(no new messages in ${String(fields.channel)})`);
      return lines.join("\n");
    },
  },
  {
    name: "ask",
    usage: "ask <channel> [--timeout N] <question...>",
    summary: "post a question and wait for the first reply addressed to you",
    details:
      "Posts the question, then waits up to N seconds (default 300) for the first message that mentions\n" +
      "you or is a DM to you, and prints it as `[HH:MM:SS] <nick> text`. Prints `(no answer within Ns)`\n" +
      "when nobody answered in time (exit status 0: check the text, or use --json).",
    examples: [`culture channel ask '#general' "which branch should I base this on?"`, "culture channel ask '#ops' --timeout 60 'ok to deploy?'"],
    ipcType: "irc_ask",
    textFrom: 1,
    takesTimeout: true,
    request: ({ args, timeout }) => {
      const [channel, ...words] = args;
      requireTarget(channel, "<channel>");
      const question = words.join(" ");
      if (question.trim().length === 0) throw new ChannelUsageError("missing <question>");
      return { channel, question, timeout: timeout ?? 300 };
    },
    // The daemon answers at the deadline (after an operator's approval when the question goes
    // elsewhere than the task's origin, which has a deadline of its own): no client deadline.
    timeoutMs: () => 0,
    format: (data, fields) => {
      const answer = data.answer;
      if (answer && typeof answer === "object") return formatMessage(answer);
      return `(no answer within ${String(fields.timeout)}s)`;
    },
  },
  {
    name: "join",
    usage: "join <channel>",
    summary: "join a channel (its messages are buffered from then on)",
    details: "Joins the channel and prints `joined <channel>` once the server confirmed it.",
    examples: ["culture channel join '#release'"],
    ipcType: "irc_join",
    request: ({ args }) => oneTarget(args, "<channel>"),
    format: (data, fields) => `joined ${String(data.channel ?? fields.channel)}`,
  },
  {
    name: "part",
    usage: "part <channel>",
    summary: "leave a channel",
    details: "Leaves the channel and prints `left <channel>`.",
    examples: ["culture channel part '#release'"],
    ipcType: "irc_part",
    request: ({ args }) => oneTarget(args, "<channel>"),
    format: (data, fields) => `left ${String(data.channel ?? fields.channel)}`,
  },
  {
    name: "channels",
    usage: "channels",
    summary: "list the channels you are in, with member counts",
    details: "Prints one line per joined channel: the name and how many members it has.",
    examples: ["culture channel channels"],
    ipcType: "irc_channels",
    request: ({ args }) => noArgs(args),
    format: (data) => {
      const rows = (Array.isArray(data.channels) ? data.channels : []).map((c: Record<string, unknown>) => {
        const n = typeof c.members === "number" ? c.members : Array.isArray(c.members) ? c.members.length : 0;
        return [String(c.channel ?? c.name ?? "?"), `${n} member${n === 1 ? "" : "s"}`];
      });
      return rows.length === 0 ? "(not in any channel)" : table(rows);
    },
  },
  {
    name: "who",
    usage: "who <target>",
    summary: "list the members of a channel (or look up a nick), with modes",
    details: "Prints one line per member: nick, channel modes (e.g. +o), and `away` when they are away.",
    examples: ["culture channel who '#general'", "culture channel who alice"],
    ipcType: "irc_who",
    request: ({ args }) => oneTarget(args, "<target>"),
    format: (data, fields) => {
      const rows = (Array.isArray(data.members) ? data.members : []).map((m: Record<string, unknown>) => [
        String(m.nick ?? "?"),
        Array.isArray(m.modes) ? m.modes.join("") : typeof m.modes === "string" ? m.modes : "",
        m.away === true || (typeof m.away === "string" && m.away.length > 0) ? "away" : "",
      ]);
      return rows.length === 0 ? `(no one found for ${String(fields.channel)})` : table(rows);
    },
  },
  {
    name: "topic",
    usage: "topic <channel> [text...]",
    summary: "show a channel's topic, or set it",
    details: "Without text, prints `<channel>: <topic> (set by <nick>)`. With text, sets the topic and prints the new one.",
    examples: ["culture channel topic '#general'", "culture channel topic '#general' 'release 2.0 freeze'"],
    ipcType: "irc_topic",
    textFrom: 1,
    request: ({ args }) => {
      const [channel, ...words] = args;
      requireTarget(channel, "<channel>");
      return words.length > 0 ? { channel, topic: words.join(" ") } : { channel };
    },
    // Setting a topic elsewhere than the task's origin may wait for an approval, like send.
    timeoutMs: (fields) => (fields.topic === undefined ? 30_000 : 0),
    format: (data, fields) => {
      const channel = String(data.channel ?? fields.channel);
      const topic = typeof data.topic === "string" ? data.topic : "";
      if (topic.length === 0) return `(no topic set for ${channel})`;
      const setBy = typeof data.setBy === "string" && data.setBy.length > 0 ? ` (set by ${data.setBy})` : "";
      return `${channel}: ${topic}${setBy}`;
    },
  },
  {
    name: "compact",
    usage: "compact",
    summary: "ask the daemon to compact your context",
    details: "Asks the daemon to compact the agent's context (Claude Code's /compact, or the backend's equivalent).",
    examples: ["culture channel compact"],
    ipcType: "compact",
    request: ({ args }) => noArgs(args),
    format: (data) => messageOr(data, "context compaction requested"),
  },
  {
    name: "clear",
    usage: "clear",
    summary: "ask the daemon to clear your context",
    details: "Asks the daemon to clear the agent's context (/clear). IRC state (channels, buffers) is kept.",
    examples: ["culture channel clear"],
    ipcType: "clear",
    request: ({ args }) => noArgs(args),
    format: (data) => messageOr(data, "context clear requested"),
  },
  {
    name: "status",
    usage: "status",
    summary: "print the daemon's status",
    details: "Prints the daemon's status as `key: value` lines (running, paused, activity, channels, ...).",
    examples: ["culture channel status", "culture channel status --json"],
    ipcType: "status",
    request: ({ args }) => noArgs(args),
    format: (data) => keyValues(data, "").join("\n"),
  },
];

/** `[HH:MM:SS] <nick> text`, in local time. */
export function formatMessage(m: unknown): string {
  const msg = (m ?? {}) as Record<string, unknown>;
  return `[${clock(msg.timestamp)}] <${String(msg.nick ?? "?")}> ${String(msg.text ?? "")}`;
}

/** HH:MM:SS of an epoch timestamp in seconds (the reference's unit) or milliseconds. */
export function clock(ts: unknown): string {
  if (typeof ts !== "number" || !Number.isFinite(ts)) return "--:--:--";
  // Epoch seconds stay below 1e11 until the year 5138; anything larger is milliseconds.
  const d = new Date(ts < 1e11 ? ts * 1000 : ts);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

function requireTarget(value: string | undefined, name: string): asserts value is string {
  if (value === undefined || value.length === 0) {
    throw new ChannelUsageError(`missing ${name}${name.includes("channel") ? ` (${CHANNEL_HINT})` : ""}`);
  }
}

function oneTarget(args: string[], name: string): Record<string, unknown> {
  const [channel, ...extra] = args;
  requireTarget(channel, name);
  noExtra(extra);
  return { channel };
}

function noArgs(args: string[]): Record<string, unknown> {
  noExtra(args);
  return {};
}

function noExtra(extra: string[]): void {
  if (extra.length > 0) throw new ChannelUsageError(`unexpected argument${extra.length === 1 ? "" : "s"}: ${extra.join(" ")}`);
}

/** Parses a whole positive decimal integer (`10`, not `10x` or `1e3`). */
export function positiveInt(value: string, name: string): number {
  const n = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new ChannelUsageError(`${name} must be a whole number >= 1 (got '${value}')`);
  return n;
}

function messageOr(data: Record<string, unknown>, fallback: string): string {
  return typeof data.message === "string" && data.message.length > 0 ? data.message : fallback;
}

function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  ").trimEnd()).join("\n");
}

function keyValues(data: Record<string, unknown>, prefix: string): string[] {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    const name = prefix + key;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) lines.push(...keyValues(value as Record<string, unknown>, `${name}.`));
    else if (Array.isArray(value)) lines.push(`${name}: ${value.length === 0 ? "-" : value.map((v) => (typeof v === "object" ? JSON.stringify(v) : String(v))).join(", ")}`);
    else lines.push(`${name}: ${value === null || value === undefined || value === "" ? "-" : String(value)}`);
  }
  return lines;
}
