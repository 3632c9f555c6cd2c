/**
 * The daemon's built-in IPC commands (DESIGN.md section 6). Every error is answered as
 * `ok:false` with a message that names the field or the problem; nothing here throws past
 * the IPC server.
 */
import type { MessageBuffer } from "../buffer/message-buffer.js";
import { errorMessage } from "../errors.js";
import type { AgentStatus, IpcRequest, IpcResult } from "../events.js";
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
export const IPC_COMMANDS = [...TOOLS_IPC_TYPES, "pause", "resume", "shutdown"] as const;

class FieldError extends Error {}

/** Answers one request. */
export async function handleIpcRequest(req: IpcRequest, ctx: IpcHandlerContext): Promise<IpcResult> {
  try {
    return await dispatch(req, ctx);
  } catch (err) {
    return { ok: false, error: errorMessage(err) };
  }
}

async function dispatch(req: IpcRequest, ctx: IpcHandlerContext): Promise<IpcResult> {
  switch (req.type) {
    case "irc_send": {
      const channel = target(req, "channel");
      const message = str(req, "message");
      const sent = ctx.say(channel, message);
      return ok({ channel, queued: sent.queued, lines: sent.lines });
    }
    case "irc_read": {
      const channel = target(req, "channel");
      const limit = optionalInt(req, "limit", 50);
      if (limit < 1) throw new FieldError(`field "limit" must be at least 1, got ${limit}`);
      const key = ctx.conversationKey(channel);
      const { messages, skipped } = ctx.buffer.read(key, limit);
      ctx.noteChannelRead();
      return ok({ channel, messages, skipped });
    }
    case "irc_ask": {
      const channel = target(req, "channel");
      const question = typeof req.question === "string" ? req.question : typeof req.message === "string" ? req.message : null;
      if (question === null || question.trim() === "") throw new FieldError('missing field "question" (a non-empty string)');
      const timeout = optionalNumber(req, "timeout", 300);
      if (timeout <= 0) throw new FieldError(`field "timeout" must be positive, got ${timeout}`);
      return ctx.ask(channel, question, timeout);
    }
    case "irc_join": {
      const channel = target(req, "channel");
      if (!ctx.transport.isChannel(channel)) throw new FieldError(`"${channel}" is not a channel name (it must start with # or &)`);
      await ctx.transport.join(channel);
      return ok({ channel, joined: true });
    }
    case "irc_part": {
      const channel = target(req, "channel");
      if (!ctx.transport.isJoined(channel)) throw new FieldError(`not in channel ${channel}`);
      await ctx.transport.part(channel, typeof req.reason === "string" ? req.reason : undefined);
      return ok({ channel, parted: true });
    }
    case "irc_who": {
      const who = typeof req.channel === "string" ? req.channel : typeof req.target === "string" ? req.target : null;
      if (who === null || who.trim() === "") throw new FieldError('missing field "channel" (or "target")');
      const members = await ctx.transport.who(clean(who));
      return ok({ target: clean(who), members });
    }
    case "irc_channels":
      return ok({ channels: ctx.transport.channelInfo() });
    case "irc_topic": {
      const channel = target(req, "channel");
      if (req.topic !== undefined && req.topic !== null && typeof req.topic !== "string") {
        throw new FieldError('field "topic" must be a string');
      }
      const topic = typeof req.topic === "string" ? req.topic : undefined;
      const result = await ctx.transport.topic(channel, topic);
      return ok({ channel, ...result });
    }
    case "compact":
      return ok(await ctx.compact());
    case "clear":
      return ok(await ctx.clear());
    case "status":
      return ok({ ...ctx.status() });
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

function ok(data: Record<string, unknown>): IpcResult {
  return { ok: true, data };
}

function str(req: IpcRequest, field: string): string {
  const v = req[field];
  if (typeof v !== "string") throw new FieldError(`missing field "${field}" (a string)`);
  return v;
}

/** A target (channel or nick) with CR, LF and NUL removed; must not be blank. */
function target(req: IpcRequest, field: string): string {
  const v = clean(str(req, field));
  if (!v) throw new FieldError(`field "${field}" is empty`);
  if (/\s/.test(v)) throw new FieldError(`field "${field}" must not contain spaces: "${v}"`);
  return v;
}

function clean(s: string): string {
  return s.replace(/[\r\n\0]/g, "").trim();
}

function optionalNumber(req: IpcRequest, field: string, fallback: number): number {
  const v = req[field];
  if (v === undefined || v === null) return fallback;
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isFinite(n)) throw new FieldError(`field "${field}" must be a number`);
  return n;
}

function optionalInt(req: IpcRequest, field: string, fallback: number): number {
  const n = optionalNumber(req, field, fallback);
  if (!Number.isInteger(n)) throw new FieldError(`field "${field}" must be an integer`);
  return n;
}
