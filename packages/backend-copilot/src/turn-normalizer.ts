/**
 * Turns the Copilot runtime's session events of one turn into culture's AgentMessages.
 *
 * - `assistant.message` is a complete message (not a delta). Each one is held until the next
 *   event that is not part of it (a tool call, another message, the end of the turn), so the
 *   last one can carry the turn's token usage and the reasoning that preceded it.
 * - `assistant.reasoning` becomes a `thinking` block of the message that follows it (or the
 *   message's own `reasoningText` when the runtime sent no reasoning event).
 * - `tool.execution_start` becomes a `tool_use` as it happens; the result comes from the
 *   postToolUse(/Failure) hook when the session has hooks (it runs first), else from
 *   `tool.execution_complete`. Each call is reported once either way.
 * - Messages of sub-agents (events with an `agentId`) are not the agent's reply: their text
 *   is dropped (their tool calls are kept: they are real work the supervisor should see).
 * - `assistant.usage` events (one per model call) are summed onto the turn's last message.
 * - `session.error` is kept as the turn's error until later activity shows the agent carried
 *   on; what is left at the end decides whether the turn failed.
 */
import type { AgentMessage, ContentBlock, Usage } from "@culture/core";
import type { ErrorData, SessionEvent } from "@github/copilot-sdk";

/** What a postToolUse / postToolUseFailure hook reported. */
export interface ToolHookReport {
  toolName: string;
  toolArgs: unknown;
  /** The tool's result text, or the failure message. */
  result: string;
  isError: boolean;
}

interface PendingMessage {
  model: string | undefined;
  content: ContentBlock[];
}

interface ToolCall {
  id: string;
  name: string;
  argsKey: string;
  resultReported: boolean;
}

/** One turn's events in, AgentMessages out. */
export class TurnNormalizer {
  private pending: PendingMessage | null = null;
  private thinking: string[] = [];
  private readonly tools = new Map<string, ToolCall>();
  private hookOnly = 0;
  private usage: Usage | null = null;
  private errorData: ErrorData | null = null;

  /** @param model The model to report when an event names none. */
  constructor(private readonly model: string | undefined) {}

  /** The `session.error` still standing (no activity after it), or null. */
  get error(): ErrorData | null {
    return this.errorData;
  }

  /** Feeds one session event; returns the messages to report now, in order. */
  push(event: SessionEvent): AgentMessage[] {
    const subAgent = typeof event.agentId === "string" && event.agentId !== "";
    switch (event.type) {
      case "assistant.reasoning": {
        if (subAgent || !event.data.content) return [];
        const out = this.flush();
        this.thinking.push(event.data.content);
        this.errorData = null;
        return out;
      }
      case "assistant.message": {
        if (subAgent || event.data.parentToolCallId) return [];
        const out = this.flush();
        const content: ContentBlock[] = [];
        const thoughts = this.thinking.length ? this.thinking : event.data.reasoningText ? [event.data.reasoningText] : [];
        this.thinking = [];
        for (const t of thoughts) content.push({ type: "thinking", thinking: t });
        if (event.data.content) content.push({ type: "text", text: event.data.content });
        if (content.length) this.pending = { model: event.data.model ?? this.model, content };
        this.errorData = null;
        return out;
      }
      case "tool.execution_start": {
        const out = this.flush();
        const input = event.data.arguments ?? {};
        this.tools.set(event.data.toolCallId, {
          id: event.data.toolCallId,
          name: event.data.toolName,
          argsKey: stableKey(input),
          resultReported: false,
        });
        out.push(this.message([{ type: "tool_use", id: event.data.toolCallId, name: event.data.toolName, input }]));
        this.errorData = null;
        return out;
      }
      case "tool.execution_complete": {
        const call = this.tools.get(event.data.toolCallId);
        if (call?.resultReported) return [];
        if (call) call.resultReported = true;
        const out = this.flush();
        const failed = !event.data.success;
        const content = event.data.result?.content ?? event.data.error?.message ?? "";
        out.push(this.message([resultBlock(event.data.toolCallId, content, failed)]));
        this.errorData = null;
        return out;
      }
      case "assistant.usage": {
        // Tokens only: `cost` is Copilot's premium-request multiplier, not money (the prices
        // table prices the tokens). `inputTokens` counts the cached ones (OpenAI's counting).
        const d = event.data;
        const usage = this.usage ?? { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
        usage.inputTokens += d.inputTokens ?? 0;
        usage.outputTokens += d.outputTokens ?? 0;
        usage.cacheReadTokens = (usage.cacheReadTokens ?? 0) + (d.cacheReadTokens ?? 0);
        usage.cacheWriteTokens = (usage.cacheWriteTokens ?? 0) + (d.cacheWriteTokens ?? 0);
        usage.reasoningTokens = (usage.reasoningTokens ?? 0) + (d.reasoningTokens ?? 0);
        this.usage = usage;
        return [];
      }
      case "session.error":
        if (!subAgent) this.errorData = event.data;
        return [];
      default:
        return [];
    }
  }

  /**
   * Feeds a postToolUse(/Failure) hook. The result is matched to the reported call with the
   * same tool and arguments (else the oldest open call of that tool); a call the runtime
   * never announced is reported whole, with an id of its own.
   */
  pushToolHook(report: ToolHookReport): AgentMessage[] {
    const key = stableKey(report.toolArgs ?? {});
    const open = [...this.tools.values()].filter((c) => !c.resultReported && c.name === report.toolName);
    const call = open.find((c) => c.argsKey === key) ?? open[0];
    const out = this.flush();
    this.errorData = null;
    if (call) {
      call.resultReported = true;
      out.push(this.message([resultBlock(call.id, report.result, report.isError)]));
      return out;
    }
    const id = `hook-${++this.hookOnly}`;
    this.tools.set(id, { id, name: report.toolName, argsKey: key, resultReported: true });
    out.push(
      this.message([
        { type: "tool_use", id, name: report.toolName, input: report.toolArgs ?? {} },
        resultBlock(id, report.result, report.isError),
      ]),
    );
    return out;
  }

  /**
   * Ends the turn: the held message (with the turn's usage); a message with only the usage when
   * nothing is held (the turn ended on a tool call); null when there is neither.
   */
  finish(): AgentMessage | null {
    const [last] = this.flush(true);
    if (last) return last;
    return this.usage ? this.withUsage(this.message([])) : null;
  }

  private flush(final = false): AgentMessage[] {
    const pending = this.pending;
    this.pending = null;
    if (!pending) {
      if (!final || this.thinking.length === 0) return [];
      const thoughts = this.thinking.map((t): ContentBlock => ({ type: "thinking", thinking: t }));
      this.thinking = [];
      return [this.withUsage(this.message(thoughts))];
    }
    const message: AgentMessage = { type: "assistant", content: pending.content };
    if (pending.model) message.model = pending.model;
    return [final ? this.withUsage(message) : message];
  }

  /** Puts the turn's usage on `message` (once: the usage is counted once). */
  private withUsage(message: AgentMessage): AgentMessage {
    if (this.usage) message.usage = this.usage;
    this.usage = null;
    return message;
  }

  private message(content: ContentBlock[]): AgentMessage {
    const message: AgentMessage = { type: "assistant", content };
    if (this.model) message.model = this.model;
    return message;
  }
}

function resultBlock(toolUseId: string, content: unknown, isError: boolean): ContentBlock {
  return isError ? { type: "tool_result", tool_use_id: toolUseId, content, is_error: true } : { type: "tool_result", tool_use_id: toolUseId, content };
}

/** JSON with sorted keys, so equal arguments compare equal whatever their key order. */
function stableKey(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
