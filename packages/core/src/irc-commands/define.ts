/**
 * The shape of one entry in the catalogue of the agent's IRC commands (catalogue.ts): each
 * command is defined once, in one small file, with everything every client needs — its IPC
 * request type and schema, the daemon's handler (with every check: joined? nick online?),
 * its `culture channel` form and its MCP tool — so `culture channel`, `culture mcp`, the
 * in-process MCP servers and the daemon cannot disagree.
 *
 * Why the zod schemas are functions of `z`: `culture channel` is the agent's hottest path and
 * bundles this catalogue, but must not load zod (it would double the CLI's cold start, see
 * bench/channel-cold-start.mjs). A command file therefore imports zod's types only; the
 * daemon and the MCP servers pass their `z` in.
 */
import type { z as Zod } from "zod";
import type { IpcHandlerContext } from "../daemon/ipc-handlers.js";

/** zod's namespace, as the daemon and the MCP servers hand it in. */
export type ZodNamespace = typeof Zod;

/**
 * One argument of a command: a `culture channel` positional argument and an MCP input field.
 *
 * - `word`: one word (a channel or a nick); `culture channel` quotes nothing for you.
 * - `text`: the rest of the words, joined with spaces (free text: unknown dash-words are text).
 * - `count`: a whole number >= 1.
 */
export interface IrcCommandArg {
  /** The IPC request field it fills. */
  field: string;
  kind: "word" | "text" | "count";
  /** How usage and errors name it: `channel|nick` shows as `<channel|nick>`. */
  label: string;
  /** The MCP input field's name (default: `field`). */
  mcpName?: string;
  /** What the MCP input field is, for the model. */
  describe: string;
  /** May be left out (shown as `[label]`). */
  optional?: boolean;
  /** The value sent when it is left out. */
  default?: unknown;
  /** The largest value an MCP client may pass (`count` only). */
  max?: number;
}

/** A `--name N` option of a command (a number of seconds). */
export interface IrcCommandOption {
  /** `timeout` is given as `--timeout N` or `--timeout=N`. */
  flag: string;
  field: string;
  /** The MCP input field's name (default: `field`). */
  mcpName?: string;
  describe: string;
  default: number;
  /** The largest value an MCP client may pass. */
  max: number;
}

/** Thrown by a handler when a check fails: answered `ok:false` with this text, nothing done. */
export class IrcCommandRefused extends Error {
  override name = "IrcCommandRefused";
}

/** What a handler gets from the daemon (the IPC handler context). */
export type IrcCommandContext = IpcHandlerContext;

/** One of the agent's IRC commands. */
export interface IrcCommand {
  /** The `culture channel` command and the MCP tool name. */
  name: string;
  /** The IPC request type on the wire (the reference client's names). */
  ipcType: string;
  /** One line for overviews (lower case, no full stop). */
  summary: string;
  /** Longer help: what it does and what it prints. */
  details: string;
  examples: string[];
  /** Positional arguments, in order; a `text` argument comes last. */
  args: IrcCommandArg[];
  options?: IrcCommandOption[];
  /** The MCP tool's description (what the model reads to choose it). */
  description: string;
  /**
   * The IPC request's fields as the daemon accepts them (the reference wire format, aliases
   * included); the handler gets the parsed value. Unknown fields are ignored (`whispers`, ...).
   */
  request(z: ZodNamespace): Zod.ZodType<Record<string, unknown>>;
  /**
   * The checks that need nobody's approval (joined? nick online?), made before an operator is
   * asked to let the text go elsewhere than the task's origin (daemon/irc-send-gate.ts), so
   * nobody approves a send that would then be refused. `handle` makes them again (the state may
   * have changed while the operator thought); throws {@link IrcCommandRefused}.
   */
  check?(fields: Record<string, unknown>, ctx: IrcCommandContext): Promise<void>;
  /** Answers the request in the daemon; throws {@link IrcCommandRefused} when a check fails. */
  handle(fields: Record<string, unknown>, ctx: IrcCommandContext): Promise<Record<string, unknown>>;
  /** How long a client waits for the answer, in ms (0: no deadline; default 30 s). */
  clientTimeoutMs?(fields: Record<string, unknown>): number;
  /** The answer as text ("" when there is nothing to say). */
  format(data: Record<string, unknown>, fields: Record<string, unknown>): string;
  /** What an MCP tool says when `format` has nothing to say (default `ok`). */
  done?(fields: Record<string, unknown>): string;
}

/** Identity helper that types a command definition (one per file). */
export function defineIrcCommand(command: IrcCommand): IrcCommand {
  return command;
}
