/**
 * The daemon's built-in IPC commands (DESIGN.md section 6): the agent's IRC commands, each
 * defined once in the catalogue (irc-commands/catalogue.ts: its request schema and handler,
 * with every check), then the owner's pause/resume/shutdown. Every error is answered as
 * `ok:false` with a message that names the field or the problem; nothing here throws past the
 * IPC server.
 */
import { z } from "zod";
import type { MessageBuffer } from "../buffer/message-buffer.js";
import { errorMessage } from "../errors.js";
import type { AgentStatus, IpcRequest, IpcResult } from "../events.js";
import { IRC_COMMANDS } from "../irc-commands/catalogue.js";
import type { IrcCommand } from "../irc-commands/define.js";
import type { IrcTransport } from "../irc/irc-transport.js";
import { TOOLS_IPC_TYPES } from "./ipc-access.js";

/** What the handlers need from the daemon. */
export interface IpcHandlerContext {
  say(target: string, text: string): { queued: boolean; lines: number };
  transport: IrcTransport;
  buffer: MessageBuffer;
  /** The buffer key of a target (conversation-key.ts, by the server's CHANTYPES). */
  conversationKey(target: string): string;
  status(): AgentStatus;
  noteChannelRead(): void;
  ask(channel: string, question: string, timeoutSeconds: number): Promise<IpcResult>;
  compact(): Promise<{ delivered: string }>;
  clear(): Promise<{ delivered: string }>;
  pause(): void;
  resume(): Promise<void>;
  shutdown(): void;
}

/** The commands answered here: the agent's IRC tools (ipc-access.ts), then the owner's commands it answers on the control socket. */
export const IPC_COMMANDS: readonly string[] = [...TOOLS_IPC_TYPES, "pause", "resume", "shutdown"];

/** Answers one request. */
export async function handleIpcRequest(req: IpcRequest, ctx: IpcHandlerContext): Promise<IpcResult> {
  try {
    return await dispatch(req, ctx);
  } catch (err) {
    return { ok: false, error: errorMessage(err) };
  }
}

/**
 * The catalogue command's checks that need nobody's approval (its `check`), for a request the
 * IrcSend gate is about to put before an operator: the `ok:false` answer when one fails, else
 * null (also for a request the handler will refuse on its schema anyway).
 */
export async function checkIpcRequest(req: IpcRequest, ctx: IpcHandlerContext): Promise<IpcResult | null> {
  const command = IRC_COMMANDS.find((c) => c.ipcType === req.type);
  if (!command?.check) return null;
  const parsed = schemaOf(command).safeParse(req);
  if (!parsed.success) return null;
  try {
    await command.check(parsed.data, ctx);
    return null;
  } catch (err) {
    return { ok: false, error: errorMessage(err) };
  }
}

async function dispatch(req: IpcRequest, ctx: IpcHandlerContext): Promise<IpcResult> {
  const command = IRC_COMMANDS.find((c) => c.ipcType === req.type);
  if (command) {
    const parsed = schemaOf(command).safeParse(req);
    if (!parsed.success) return { ok: false, error: parsed.error.issues.map((i) => i.message).join("; ") };
    return { ok: true, data: await command.handle(parsed.data, ctx) };
  }
  switch (req.type) {
    case "pause":
      ctx.pause();
      return ok({ paused: true });
    case "resume":
      await ctx.resume();
      return ok({ paused: false });
    case "shutdown":
      ctx.shutdown();
      return ok({ stopping: true });
    default:
      return { ok: false, error: `Unknown message type: '${req.type}'` };
  }
}

const schemas = new Map<IrcCommand, z.ZodType<Record<string, unknown>>>();

/** A command's request schema, built once (with this module's zod). */
function schemaOf(command: IrcCommand): z.ZodType<Record<string, unknown>> {
  let s = schemas.get(command);
  if (!s) schemas.set(command, (s = command.request(z)));
  return s;
}

function ok(data: Record<string, unknown>): IpcResult {
  return { ok: true, data };
}
