/**
 * Turns the `session/update` notifications of one ACP prompt turn into culture's
 * {@link AgentMessage} shape. Tool activity is reported as it happens (so the supervisor sees
 * a looping agent before its turn ends); the text of the turn is joined and reported once,
 * at the end, with the thinking not yet reported and the turn's usage.
 *
 * Pure and synchronous: the runner feeds it updates in arrival order and emits what it returns.
 */
import type { SessionUpdate, ToolCallContent, ToolCallStatus } from "@agentclientprotocol/sdk";
import type { AgentMessage, ContentBlock, Usage } from "@culture/core";
import { responseUsage } from "./acp-usage.js";

interface ToolState {
  name: string;
  input: unknown;
  /** The latest status the agent sent (undefined until it sends one). */
  status: ToolCallStatus | undefined;
  useReported: boolean;
  resultReported: boolean;
}

/** Collects one turn's updates; see the module comment. */
export class TurnNormalizer {
  private text = "";
  private thinking = "";
  private readonly tools = new Map<string, ToolState>();

  /** @param model The model to stamp on messages (the agent's current model), when known. */
  constructor(private readonly model?: string) {}

  /** Feeds one update. Returns the progress messages to emit now (tool calls and results). */
  push(update: SessionUpdate): AgentMessage[] {
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
        if (update.content.type === "text") this.text += update.content.text;
        return [];
      case "agent_thought_chunk":
        if (update.content.type === "text") this.thinking += update.content.text;
        return [];
      case "tool_call": {
        const state: ToolState = {
          name: toolName(update.name, update.title, update.kind),
          input: update.rawInput,
          status: update.status ?? undefined,
          useReported: false,
          resultReported: false,
        };
        this.tools.set(update.toolCallId, state);
        return this.toolProgress(update.toolCallId, state, update.status ?? undefined, update.rawOutput, update.content);
      }
      case "tool_call_update": {
        let state = this.tools.get(update.toolCallId);
        if (!state) {
          // An update for a call this turn did not see start (e.g. it began before a resume).
          state = { name: "", input: undefined, status: undefined, useReported: false, resultReported: false };
          this.tools.set(update.toolCallId, state);
        }
        // The programmatic name wins; a later title (OpenCode puts the command there) does not
        // rename a call that already has one.
        if (!state.useReported && (update.name || (!state.name && (update.title || update.kind)))) {
          state.name = toolName(update.name, update.title, update.kind);
        }
        if (update.rawInput !== undefined) state.input = update.rawInput;
        if (update.status) state.status = update.status;
        return this.toolProgress(update.toolCallId, state, update.status ?? undefined, update.rawOutput, update.content ?? undefined);
      }
      default:
        return [];
    }
  }

  /**
   * Ends the turn. `response` is the raw `session/prompt` result, whose usage (acp-usage.ts)
   * goes on the final message, with `costUsd` when the caller knows the turn's cost. A second
   * model's usage (Gemini CLI's `model_usage`) is a content-less message of its own, so every
   * message names its model. Returns the messages to report, none when there is nothing.
   */
  finish(response?: unknown, costUsd: number | null = null): AgentMessage[] {
    const content: ContentBlock[] = [];
    // Tool calls that never got an input or a status are still worth reporting.
    for (const [id, state] of this.tools) {
      if (!state.useReported) {
        content.push(this.useBlock(id, state));
      }
    }
    if (this.thinking) content.push({ type: "thinking", thinking: this.thinking });
    if (this.text) content.push({ type: "text", text: this.text });
    const [first, ...others] = responseUsage(response);
    const usage = first ? { ...first.usage } : undefined;
    if (usage && costUsd !== null) usage.costUsd = costUsd;
    this.text = "";
    this.thinking = "";
    const out: AgentMessage[] = [];
    if (content.length > 0 || usage) out.push(this.message(content, usage, first?.model));
    for (const o of others) out.push(this.message([], o.usage, o.model));
    return out;
  }

  private toolProgress(
    id: string,
    state: ToolState,
    status: ToolCallStatus | undefined,
    rawOutput: unknown,
    toolContent: ToolCallContent[] | undefined,
  ): AgentMessage[] {
    const content: ContentBlock[] = [];
    const finished = status === "completed" || status === "failed";
    // Report the call once its input is known, or once it runs or ends (agents often send
    // `tool_call` first and fill in `rawInput` with the first update). While the agent says
    // `pending` the input may still be partial: OpenCode 1.18.33 sends `{cwd}` first and the
    // command only with `in_progress`, and reporting `{cwd}` made every bash call look the same.
    const inputKnown = state.input !== undefined && state.status !== "pending";
    if (!state.useReported && (inputKnown || status === "in_progress" || finished)) {
      if (this.thinking) {
        content.push({ type: "thinking", thinking: this.thinking });
        this.thinking = "";
      }
      content.push(this.useBlock(id, state));
    }
    if (finished && !state.resultReported) {
      state.resultReported = true;
      const result: ContentBlock = { type: "tool_result", tool_use_id: id, content: toolOutput(rawOutput, toolContent) };
      if (status === "failed") result.is_error = true;
      content.push(result);
    }
    return content.length ? [this.message(content)] : [];
  }

  private useBlock(id: string, state: ToolState): ContentBlock {
    state.useReported = true;
    return { type: "tool_use", id, name: state.name || "tool", input: state.input ?? {} };
  }

  private message(content: ContentBlock[], usage?: Usage, model?: string): AgentMessage {
    const message: AgentMessage = { type: "assistant", content };
    if (model ?? this.model) message.model = model ?? this.model;
    if (usage) message.usage = usage;
    return message;
  }
}

function toolName(name: string | null | undefined, title: string | null | undefined, kind: string | null | undefined): string {
  return name || title || kind || "tool";
}

/** A tool's result: its raw output when the agent sends one, else the text of its content. */
function toolOutput(rawOutput: unknown, content: ToolCallContent[] | undefined): unknown {
  if (rawOutput !== undefined && rawOutput !== null) return rawOutput;
  if (!content?.length) return null;
  const parts = content.map((item) => {
    if (item.type === "content") return item.content.type === "text" ? item.content.text : `[${item.content.type}]`;
    if (item.type === "diff") return `diff ${item.path}`;
    return `terminal ${item.terminalId}`;
  });
  return parts.join("\n");
}
