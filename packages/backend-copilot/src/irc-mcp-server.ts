/**
 * The agent's IRC tools for Copilot: the SDK's `mcpServers` session option with `culture mcp`
 * as a stdio server (one process for the whole session, not one per IRC action). The runtime
 * starts it with the agent's environment, so it finds the agent's daemon socket (CULTURE_NICK,
 * CULTURE_HOME / XDG_RUNTIME_DIR) and `culture` on the agent's PATH.
 */
import type { MCPServerConfig } from "@github/copilot-sdk";

/** The MCP server name; Copilot shows the tools as `culture-send`, ... */
export const IRC_MCP_SERVER_NAME = "culture";

/** The `mcpServers` entry of an agent's session, or none when `irc_tools` is `cli`. */
export function ircMcpServers(nick: string, ircTools: string | undefined, env: Record<string, string | undefined>): Record<string, MCPServerConfig> | undefined {
  if (ircTools === "cli") return undefined;
  const serverEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (typeof v === "string") serverEnv[k] = v;
  return {
    [IRC_MCP_SERVER_NAME]: {
      type: "stdio",
      command: env.CULTURE_MCP_COMMAND ?? "culture",
      args: ["mcp", "--nick", nick],
      env: serverEnv,
      tools: ["*"],
    },
  };
}
