/**
 * How a backend registers `culture mcp` as a stdio MCP server for its agent (Copilot's
 * `mcpServers`, Codex's `mcp_servers`, ACP's `mcpServers` in `session/new`): one command for
 * every backend, so they all find the same `culture` and pass the same environment.
 */

/** The MCP server name every backend registers the IRC tools under. */
export const IRC_MCP_SERVER_NAME = "culture";

/** A stdio MCP server: the command line and the environment it is started with. */
export interface McpStdioCommand {
  command: string;
  args: string[];
  /** The agent's environment (strings only), so the server finds the agent's daemon socket. */
  env: Record<string, string>;
}

/**
 * The `culture mcp --nick <nick>` command for an agent. `culture` is looked up on the agent's
 * PATH, as `culture channel` is; `CULTURE_MCP_COMMAND` in the agent's environment names
 * another executable (a checkout's wrapper, an absolute path).
 */
export function ircMcpServerCommand(nick: string, env: Record<string, string | undefined>): McpStdioCommand {
  const serverEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (typeof v === "string") serverEnv[k] = v;
  return { command: env.CULTURE_MCP_COMMAND ?? "culture", args: ["mcp", "--nick", nick], env: serverEnv };
}
