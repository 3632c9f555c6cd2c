/**
 * The agent's IRC tools for ACP agents: `culture mcp` as a stdio MCP server in the `mcpServers`
 * of `session/new` and `session/load`. Every ACP agent must accept stdio servers (the
 * `mcpCapabilities` of `initialize` only announce http and sse), and the agent starts the
 * server itself: OpenCode offers its tools to the model as `culture_send`, ..., Gemini CLI as
 * `mcp_culture_send`, ....
 */
import type { McpServer } from "@agentclientprotocol/sdk";
import { findExecutable } from "@culture/core";
import { IRC_MCP_SERVER_NAME, ircMcpServerCommand } from "@culture/core/irc-tools";

/**
 * The `mcpServers` of the agent's session: `culture mcp --nick <nick>` started with the
 * agent's environment (so it finds the agent's daemon socket), or none when `irc_tools` is
 * `cli`. ACP wants an absolute command, so `culture` is looked up on the agent's PATH (relative
 * PATH entries against `directory`); when it is not there the bare name is sent and the agent
 * reports the failed start in its log.
 */
export async function ircMcpServers(
  nick: string,
  ircTools: string | undefined,
  env: Record<string, string | undefined>,
  directory: string,
): Promise<McpServer[]> {
  if (ircTools === "cli") return [];
  const server = ircMcpServerCommand(nick, env);
  const command = (await findExecutable(server.command, env.PATH, directory)) ?? server.command;
  return [
    {
      name: IRC_MCP_SERVER_NAME,
      command,
      args: server.args,
      env: Object.entries(server.env).map(([name, value]) => ({ name, value })),
    },
  ];
}
