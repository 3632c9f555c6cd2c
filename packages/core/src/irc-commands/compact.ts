/** `compact` (IPC `compact`, MCP `compact`). */
import { defineIrcCommand } from "./define.js";
import { messageOr } from "./format.js";

export default defineIrcCommand({
  name: "compact",
  ipcType: "compact",
  summary: "ask the daemon to compact your context",
  details: "Asks the daemon to compact the agent's context (Claude Code's /compact, or the backend's equivalent).",
  examples: ["culture channel compact"],
  args: [],
  description: "Ask the daemon to compact your context (summarise the conversation so far).",
  request: (z) => z.object({}),
  handle: async (_fields, ctx) => ({ ...(await ctx.compact()) }),
  format: (data) => messageOr(data, "context compaction requested"),
});
