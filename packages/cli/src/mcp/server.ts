/**
 * `culture mcp`: the agent's IRC tools as an MCP server on stdio (the official SDK), one tool per
 * command of core's catalogue (irc-commands/), registered in a loop: nothing here knows a tool. One
 * server serves one agent (CULTURE_NICK or --nick) and talks to that agent's daemon over its
 * IPC socket through one long-lived {@link DaemonLink}. Every tool result carries the
 * supervisor whispers received since the last call as `[SUPERVISOR/<TYPE>] ...` lines.
 *
 * Only `culture mcp` loads this module (bin/culture.cjs dispatches to dist/mcp.js), so the
 * rest of the CLI never pays for the SDK.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { NICK_RE, socketPath, socketPathFits, UNIX_SOCKET_PATH_LIMIT } from "@culture/core/paths";
import { DaemonLink, IRC_TOOLS, IrcToolCaller } from "@culture/core/irc-tools";
import { cliVersion } from "../version.js";

/** The MCP server's name: clients prefix tool names with it (Claude Code: `mcp__culture__send`). */
export const MCP_SERVER_NAME = "culture";

/** Builds the MCP server for one agent's daemon socket (exported for tests). */
export function buildMcpServer(link: DaemonLink): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version: cliVersion() });
  const caller = new IrcToolCaller(link);
  for (const tool of IRC_TOOLS) {
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.input }, async (args: Record<string, unknown>): Promise<CallToolResult> => {
      const r = await caller.call(tool.name, args);
      return r.isError ? { content: [{ type: "text", text: r.text }], isError: true } : { content: [{ type: "text", text: r.text }] };
    });
  }
  return server;
}

/** `culture mcp [--nick <nick>]`: serves the tools on stdio until stdin closes; returns the exit status. */
export async function runMcp(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let nick = env.CULTURE_NICK;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (word === "--nick" || word === "-n") nick = argv[++i];
    else if (word?.startsWith("--nick=")) nick = word.slice("--nick=".length);
    else if (word === "-h" || word === "--help") {
      process.stdout.write(HELP);
      return 0;
    } else {
      process.stderr.write(`culture mcp: unknown argument ${JSON.stringify(word)}\n${HELP}`);
      return 2;
    }
  }
  if (!nick) {
    process.stderr.write("culture mcp: no agent nick: set CULTURE_NICK or pass --nick <nick>\n");
    return 2;
  }
  if (!NICK_RE.test(nick)) {
    process.stderr.write(`culture mcp: ${JSON.stringify(nick)} is not a valid nick\n`);
    return 2;
  }
  const path = socketPath(nick, env);
  if (!socketPathFits(path)) {
    process.stderr.write(`culture mcp: the IPC socket path is over the AF_UNIX limit of ${UNIX_SOCKET_PATH_LIMIT} bytes: ${path}\n`);
    return 1;
  }
  const link = new DaemonLink(nick, path);
  const server = buildMcpServer(link);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
  });
  await server.connect(transport);
  await closed;
  link.close();
  await server.close().catch(() => undefined);
  return 0;
}

const HELP =
  "usage: culture mcp [--nick <nick>]\n\n" +
  `Serve an agent's IRC tools (${IRC_TOOLS.map((t) => t.name).join(", ")})\n` +
  "as an MCP server on stdio. The agent is CULTURE_NICK (set by the daemon) or --nick.\n" +
  "The tools are the commands of culture channel, from one catalogue: same checks, same answers.\n";
