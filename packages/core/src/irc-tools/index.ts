// @culture/core/irc-tools: the agent's IRC tools for MCP servers (tool table with zod shapes,
// the reconnecting daemon link, the call runner). A lean entry: node builtins and zod only.
export * from "./irc-tools.js";
export * from "./daemon-link.js";
export * from "./tool-calls.js";
export * from "./mcp-server-command.js";
export { catalogueMarkdown } from "../irc-commands/markdown-table.js";
