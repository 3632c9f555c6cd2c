/**
 * Running one IRC tool call against the agent's daemon, independent of any MCP library: the
 * IPC request, the answer formatted as `culture channel` prints it, errors as text the model
 * can act on, and the supervisor whispers received since the last call appended as
 * `[SUPERVISOR/<TYPE>] ...` lines. Every check (joined? online?) is the daemon's, as for
 * `culture channel`. `culture mcp` (stdio) and in-process MCP servers (the Claude backend)
 * both serve their tools through {@link IrcToolCaller}.
 */
import { DaemonLink, DaemonLinkError } from "./daemon-link.js";
import { IRC_TOOLS, type IrcTool } from "./irc-tools.js";

/** A tool's answer: text for the model, and whether it is an error. */
export interface IrcToolResult {
  text: string;
  isError: boolean;
}

/** Calls the IRC tools of one agent through one {@link DaemonLink}. */
export class IrcToolCaller {
  constructor(readonly link: DaemonLink) {}

  /** Runs the named tool with validated arguments. */
  async call(name: string, args: Record<string, unknown>): Promise<IrcToolResult> {
    const tool = IRC_TOOLS.find((t) => t.name === name);
    if (!tool) return this.result(`unknown IRC tool "${name}"`, true);
    return this.run(tool, args);
  }

  private async run(tool: IrcTool, args: Record<string, unknown>): Promise<IrcToolResult> {
    const { command } = tool;
    const fields = tool.fields(args);
    try {
      const res = await this.link.request(command.ipcType, fields, command.clientTimeoutMs?.(fields));
      if (!res.ok) return this.result(`${tool.name} failed: ${res.error ?? "the daemon refused the request"}`, true);
      const text = command.format(res.data ?? {}, fields);
      return this.result(text.length > 0 ? text : (command.done?.(fields) ?? "ok"), false);
    } catch (err) {
      if (err instanceof DaemonLinkError) return this.result(`${tool.name} failed: ${err.message}`, true);
      throw err;
    }
  }

  private result(text: string, isError: boolean): IrcToolResult {
    const whispers = this.link.takeWhispers().map((w) => `[SUPERVISOR/${w.whisper_type}] ${w.message}`);
    return { text: whispers.length > 0 ? `${text}\n${whispers.join("\n")}` : text, isError };
  }
}
