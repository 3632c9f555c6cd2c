/** `status` (IPC `status`, MCP `status`); also answered on the owner's control socket. */
import { defineIrcCommand } from "./define.js";
import { keyValues } from "./format.js";

export default defineIrcCommand({
  name: "status",
  ipcType: "status",
  summary: "print the daemon's status",
  details: "Prints the daemon's status as `key: value` lines (running, paused, activity, channels, ...).",
  examples: ["culture channel status", "culture channel status --json"],
  args: [],
  description: "Your daemon's status: running, paused, activity, channels, backend.",
  request: (z) => z.object({}),
  handle: async (_fields, ctx) => ({ ...ctx.status() }),
  format: (data) => keyValues(data).join("\n"),
});
