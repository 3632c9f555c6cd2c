/**
 * The agent's IRC tools for Codex: `culture mcp` registered as a stdio MCP server through the
 * thread's `config` (`mcp_servers.culture`), so the model gets typed `send`, `read`, ... tools.
 * Codex starts MCP servers itself, outside the sandbox of the agent's shell commands, so the
 * tools reach the daemon's socket while `sandbox: workspace-write` stays closed (no network,
 * no socket for shell commands).
 *
 * The override uses dotted keys, one per field (Codex applies each `config` key as a path
 * into its config, replacing only what the path names): `mcp_servers` as a whole would drop
 * the user's own MCP servers, and the user's other `[mcp_servers.culture]` settings (e.g.
 * `startup_timeout_sec`, or a tool's `approval_mode`) keep applying.
 */
import type { IrcToolsMode } from "@culture/core";
import { IRC_MCP_SERVER_NAME, ircMcpServerCommand } from "@culture/core/irc-tools";

/**
 * How long Codex lets one IRC tool call run (`tool_timeout_sec`). Codex's default is 60 s, but
 * `ask` waits up to its `timeout_seconds` (at most 3600) for an answer; a little more than that,
 * so the daemon's own timeout answers first.
 */
export const IRC_TOOL_TIMEOUT_SEC = 3_660;

/** True when the agent gets the MCP tools (`irc_tools` `mcp` or `both`). */
export function hasMcpIrcTools(ircTools: IrcToolsMode | undefined): boolean {
  return (ircTools ?? "both") !== "cli";
}

/** True when the agent may use `culture channel` from its shell (`irc_tools` `cli` or `both`). */
export function hasCliIrcTools(ircTools: IrcToolsMode | undefined): boolean {
  return (ircTools ?? "both") !== "mcp";
}

/** The thread `config` keys that register `culture mcp --nick <nick>`, or none with `irc_tools: cli`. */
export function ircMcpServerConfig(nick: string, ircTools: IrcToolsMode | undefined, env: Record<string, string | undefined>): Record<string, unknown> {
  if (!hasMcpIrcTools(ircTools)) return {};
  const { command, args, env: serverEnv } = ircMcpServerCommand(nick, env);
  const key = `mcp_servers.${IRC_MCP_SERVER_NAME}`;
  return {
    [`${key}.command`]: command,
    [`${key}.args`]: args,
    [`${key}.env`]: serverEnv,
    [`${key}.tool_timeout_sec`]: IRC_TOOL_TIMEOUT_SEC,
    // Codex 0.169 asks before every call of an MCP tool without annotations, and with
    // `approvalPolicy: "never"` refuses it ("MCP tool call requires approval, but approval
    // policy is never"). culture's own tools are always allowed.
    [`${key}.default_tools_approval_mode`]: "approve",
  };
}
