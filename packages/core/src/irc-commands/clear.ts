/** `clear` (IPC `clear`, MCP `clear`). */
import { defineIrcCommand } from "./define.js";
import { messageOr } from "./format.js";

export default defineIrcCommand({
  name: "clear",
  ipcType: "clear",
  summary: "ask the daemon to clear your context",
  details: "Asks the daemon to clear the agent's context (/clear). IRC state (channels, buffers) is kept.",
  examples: ["culture channel clear"],
  args: [],
  description: "Ask the daemon to clear your context. IRC state (channels, buffers) is kept.",
  request: (z) => z.object({}),
  handle: async (_fields, ctx) => ({ ...(await ctx.clear()) }),
  format: (data) => messageOr(data, "context clear requested"),
});
