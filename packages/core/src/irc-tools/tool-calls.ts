/**
 * Running one IRC tool call against the agent's daemon, independent of any MCP library: the
 * IPC request, the answer formatted as `culture channel` prints it, errors as text the model
 * can act on, and the supervisor whispers received since the last call appended as
 * `[SUPERVISOR/<TYPE>] ...` lines. `culture mcp` (stdio) and in-process MCP servers (the
 * Claude backend) both serve their tools through {@link IrcToolCaller}.
 */
import { isChannelName } from "../irc/sanitize.js";
import { DaemonLink, DaemonLinkError } from "./daemon-link.js";
import { channelCommand, IRC_TOOLS, type IrcTool } from "./irc-tools.js";

/** A tool's answer: text for the model, and whether it is an error. */
export interface IrcToolResult {
  text: string;
  isError: boolean;
}

/** Tools whose channel argument must be a channel the agent is in (nicks and DM:<nick> pass). */
const NEEDS_JOINED = new Set(["send", "read", "ask", "part"]);

class NotJoinedError extends Error {}

/** Calls the IRC tools of one agent through one {@link DaemonLink}. */
export class IrcToolCaller {
  private known: Set<string> | null = null;

  constructor(readonly link: DaemonLink) {}

  /** Runs the named tool with validated arguments. */
  async call(name: string, args: Record<string, unknown>): Promise<IrcToolResult> {
    const tool = IRC_TOOLS.find((t) => t.name === name);
    if (!tool) return this.result(`unknown IRC tool "${name}"`, true);
    return this.run(tool, args);
  }

  private async run(tool: IrcTool, args: Record<string, unknown>): Promise<IrcToolResult> {
    const command = channelCommand(tool);
    const fields = tool.fields(args);
    try {
      if (NEEDS_JOINED.has(tool.name)) await this.requireJoined(String(fields.channel));
      const res = await this.link.request(command.ipcType, fields, command.timeoutMs?.(fields));
      if (!res.ok) return this.result(`${tool.name} failed: ${res.error ?? "the daemon refused the request"}`, true);
      if (tool.name === "join" || tool.name === "part") this.known = null;
      const text = command.format(res.data ?? {}, fields);
      return this.result(text.length > 0 ? text : tool.name === "send" ? `sent to ${String(fields.channel)}` : "ok", false);
    } catch (err) {
      if (err instanceof DaemonLinkError || err instanceof NotJoinedError) return this.result(`${tool.name} failed: ${err.message}`, true);
      throw err;
    }
  }

  /**
   * The channels the agent is in are cached so a `send` costs one IPC round trip: asked again
   * only when a channel is missing from the cache (it may have been joined since) and after
   * a join/part through these tools.
   */
  private async requireJoined(target: string): Promise<void> {
    if (!isChannelName(target)) return;
    const key = target.toLowerCase();
    if (this.known?.has(key)) return;
    const res = await this.link.request("irc_channels", {});
    const list = res.ok && Array.isArray(res.data?.channels) ? (res.data.channels as Array<Record<string, unknown>>) : [];
    this.known = new Set(list.map((c) => String(c.channel ?? c.name ?? "").toLowerCase()));
    if (!this.known.has(key)) {
      const names = [...this.known].join(", ") || "none";
      throw new NotJoinedError(`not in channel ${target} (you are in: ${names}); join it first with the join tool`);
    }
  }

  private result(text: string, isError: boolean): IrcToolResult {
    const whispers = this.link.takeWhispers().map((w) => `[SUPERVISOR/${w.whisper_type}] ${w.message}`);
    return { text: whispers.length > 0 ? `${text}\n${whispers.join("\n")}` : text, isError };
  }
}
