/**
 * The IRC tools `culture mcp` (and the Claude backend's in-process server) offer: one per
 * command of the catalogue (irc-commands/catalogue.ts), with its name, description and zod
 * input shape derived from the command's definition. The answers are shown with the same
 * formatting as `culture channel`, so both ways read alike.
 */
import { z } from "zod";
import { IRC_COMMANDS } from "../irc-commands/catalogue.js";
import type { IrcCommand } from "../irc-commands/define.js";
import { fieldsFromMcp, mcpInputShape } from "../irc-commands/mcp-form.js";

/** One MCP tool. */
export interface IrcTool {
  name: string;
  description: string;
  /** The zod shape of the arguments (an object of fields). */
  input: z.ZodRawShape;
  /** The catalogue command it renders. */
  command: IrcCommand;
  /** The IPC fields from the validated arguments. */
  fields(args: Record<string, unknown>): Record<string, unknown>;
}

/** Every IRC tool, in the order a client lists them. */
export const IRC_TOOLS: IrcTool[] = IRC_COMMANDS.map((command) => ({
  name: command.name,
  description: command.description,
  input: mcpInputShape(command, z) as z.ZodRawShape,
  command,
  fields: (args) => fieldsFromMcp(command, args),
}));
