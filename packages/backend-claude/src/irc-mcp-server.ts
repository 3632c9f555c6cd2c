/**
 * The agent's IRC tools as an in-process MCP server of the Agent SDK (`createSdkMcpServer`):
 * Claude Code sees them as `mcp__culture__send`, `mcp__culture__read`, ... and calls them over
 * the SDK's control channel, so no process is started per IRC action nor for the server. The
 * tools reach the daemon through one long-lived IPC connection from this process (core's
 * {@link DaemonLink}), the same path `culture mcp` takes; whispers ride on the tool results.
 */
import { createSdkMcpServer, tool, type McpSdkServerConfigWithInstance } from "@anthropic-ai/claude-agent-sdk";
import { DaemonLink, IRC_MCP_SERVER_NAME, IRC_TOOLS, IrcToolCaller } from "@culture/core/irc-tools";
import { socketPath } from "@culture/core/paths";

/** The link to an agent's daemon that the IRC tools use (one per runner; close it on stop). */
export function ircDaemonLink(nick: string, env: Record<string, string | undefined>): DaemonLink {
  return new DaemonLink(nick, socketPath(nick, env as NodeJS.ProcessEnv));
}

/** A fresh in-process IRC tools server (one per Claude Code session) over the runner's link. */
export function ircMcpServer(link: DaemonLink): McpSdkServerConfigWithInstance {
  const caller = new IrcToolCaller(link);
  return createSdkMcpServer({
    name: IRC_MCP_SERVER_NAME,
    version: "1.0.0",
    tools: IRC_TOOLS.map((t) =>
      tool(t.name, t.description, t.input, async (args) => {
        const r = await caller.call(t.name, args as Record<string, unknown>);
        return r.isError ? { content: [{ type: "text" as const, text: r.text }], isError: true } : { content: [{ type: "text" as const, text: r.text }] };
      }),
    ),
  });
}
