/**
 * `culture mcp`: the agent's IRC tools as an MCP server on stdio (the official SDK). One
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
import { DaemonLink, DaemonLinkError } from "./daemon-link.js";
import { channelCommand, IRC_TOOLS, type IrcTool } from "./tools.js";
import { cliVersion } from "../version.js";

/** The MCP server's name: clients prefix tool names with it (Claude Code: `mcp__culture__send`). */
export const MCP_SERVER_NAME = "culture";

/** Builds the MCP server for one agent's daemon socket (exported for in-process use and tests). */
export function buildMcpServer(link: DaemonLink): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version: cliVersion() });
  const joined = new JoinedChannels(link);
  for (const tool of IRC_TOOLS) {
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.input }, async (args: Record<string, unknown>) =>
      callTool(link, joined, tool, args),
    );
  }
  return server;
}

/** Runs one tool call: the IPC request, its formatted answer, and any pending whispers. */
export async function callTool(link: DaemonLink, joined: JoinedChannels, tool: IrcTool, args: Record<string, unknown>): Promise<CallToolResult> {
  const command = channelCommand(tool);
  const fields = tool.fields(args);
  try {
    if (NEEDS_JOINED.has(tool.name)) await joined.require(String(fields.channel));
    const res = await link.request(command.ipcType, fields, command.timeoutMs?.(fields));
    if (!res.ok) return result(link, `${tool.name} failed: ${res.error ?? "the daemon refused the request"}`, true);
    if (tool.name === "join" || tool.name === "part") joined.forget();
    const text = command.format(res.data ?? {}, fields);
    return result(link, text.length > 0 ? text : tool.name === "send" ? `sent to ${String(fields.channel)}` : "ok", false);
  } catch (err) {
    if (err instanceof DaemonLinkError || err instanceof NotJoinedError) return result(link, `${tool.name} failed: ${err.message}`, true);
    throw err;
  }
}

/** Tools whose channel argument must be a channel the agent is in (nicks and DM:<nick> pass). */
const NEEDS_JOINED = new Set(["send", "read", "ask", "part"]);

class NotJoinedError extends Error {}

/**
 * The channels the agent is in, cached so a `send` costs one IPC round trip: asked again
 * only when a channel is missing from the cache (it may have been joined since) and after
 * this server's own join/part.
 */
export class JoinedChannels {
  private known: Set<string> | null = null;
  constructor(private readonly link: DaemonLink) {}

  async require(target: string): Promise<void> {
    if (!/^[#&]/.test(target)) return;
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

  forget(): void {
    this.known = null;
  }
}

function result(link: DaemonLink, text: string, isError: boolean): CallToolResult {
  const whispers = link.takeWhispers().map((w) => `[SUPERVISOR/${w.whisper_type}] ${w.message}`);
  const body = whispers.length > 0 ? `${text}\n${whispers.join("\n")}` : text;
  return isError ? { content: [{ type: "text", text: body }], isError: true } : { content: [{ type: "text", text: body }] };
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
  "Serve an agent's IRC tools (send, read, ask, join, part, channels, who, topic, status, compact, clear)\n" +
  "as an MCP server on stdio. The agent is CULTURE_NICK (set by the daemon) or --nick.\n";
