/**
 * The agent's IRC tools for Copilot: the SDK's `mcpServers` session option with `culture mcp`
 * as a stdio server (one process for the whole session, not one per IRC action). The runtime
 * starts it with the agent's environment, so it finds the agent's daemon socket (CULTURE_NICK,
 * CULTURE_HOME / XDG_RUNTIME_DIR) and `culture` on the agent's PATH.
 */
import type { MCPServerConfig } from "@github/copilot-sdk";
import { IRC_MCP_SERVER_NAME, ircMcpServerCommand } from "@culture/core/irc-tools";

/** The `mcpServers` entry of an agent's session (Copilot shows the tools as `culture-send`, ...), or none when `irc_tools` is `cli`. */
export function ircMcpServers(nick: string, ircTools: string | undefined, env: Record<string, string | undefined>): Record<string, MCPServerConfig> | undefined {
  if (ircTools === "cli") return undefined;
  return { [IRC_MCP_SERVER_NAME]: { type: "stdio", ...ircMcpServerCommand(nick, env), tools: ["*"] } };
}
