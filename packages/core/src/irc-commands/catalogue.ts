/**
 * The catalogue of the agent's IRC commands: one file per command, listed here in help order.
 * `culture channel`, `culture mcp`, the in-process MCP servers and the daemon's IPC handlers
 * are renderings of this list. Adding a command is one file (see define.ts) and one line here;
 * the IPC access rules (daemon/ipc-access.ts) answer its type on the agent's tools socket.
 */
import ask from "./ask.js";
import channels from "./channels.js";
import clear from "./clear.js";
import compact from "./compact.js";
import type { IrcCommand } from "./define.js";
import join from "./join.js";
import part from "./part.js";
import read from "./read.js";
import send from "./send.js";
import status from "./status.js";
import topic from "./topic.js";
import who from "./who.js";

/** Every command, in help order. */
export const IRC_COMMANDS: readonly IrcCommand[] = [send, read, ask, join, part, channels, who, topic, compact, clear, status];

/** The command named `name` (`culture channel <name>`, MCP tool `<name>`). */
export function ircCommand(name: string): IrcCommand | undefined {
  return IRC_COMMANDS.find((c) => c.name === name);
}

/** The command answering IPC requests of `type`. */
export function ircCommandByIpcType(type: string): IrcCommand | undefined {
  return IRC_COMMANDS.find((c) => c.ipcType === type);
}
