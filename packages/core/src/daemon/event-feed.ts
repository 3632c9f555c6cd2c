/**
 * The daemon's event feed: what happened in the agent's turns, as structured records kept in
 * memory (a ring of the last {@link FEED_SIZE}), read by `culture console` over the control
 * socket (`events`). It is the transcript from the daemon itself, not a scrape of its log:
 * prompts with who asked, tool calls and results (inputs masked like approval requests),
 * replies, supervisor whispers and escalations, approval requests and their outcomes.
 *
 * Every text is masked with the approval desk's {@link maskSecrets} and cut to
 * {@link MAX_TEXT} characters; the console renders it as text.
 *
 * - `events {after?: seq, before?: seq, limit?: n}` -> `{events: [...], first, last}`: with
 *   `after`, the events after that seq (oldest first, for following live); with `before`, the
 *   `limit` events before it (for paging back); neither: the last `limit`.
 */
import type { AgentMessage } from "../agent-message.js";
import { maskInput, maskSecrets } from "../approvals/secret-mask.js";
import type { IpcRequest, IpcResult, PromptOrigin, TurnResult } from "../events.js";
import type { DaemonHooks } from "../hooks.js";
import type { UsageRecord } from "../usage/usage-record.js";

/** How many events the daemon keeps. */
export const FEED_SIZE = 1000;
/** Longest text kept in one event (the rest is cut with "…"). */
const MAX_TEXT = 4000;
/** Most events one `events` request returns. */
const MAX_PAGE = 500;

/** What an event records. */
export type FeedKind = "prompt" | "tool_call" | "tool_result" | "thinking" | "reply" | "turn_failed" | "whisper" | "escalation" | "approval_requested" | "approval_resolved" | "usage";

/** One event of the feed. */
export interface FeedEvent {
  /** Increasing from 1 for the daemon's life. */
  seq: number;
  /** Epoch milliseconds. */
  at: number;
  kind: FeedKind;
  /** The text to show (masked, cut). */
  text: string;
  /** Who asked (prompts), the tool's name (tool calls), the whisper's action. */
  who?: string | null;
  /** Where (a prompt's channel). */
  where?: string | null;
  /** The prompt's kind (mention, dm, schedule...). */
  origin?: string;
  /** A tool result that is an error. */
  error?: boolean;
  /** Usage events: the turn's cost in USD when known, and its tokens. */
  cost_usd?: number | null;
  tokens?: number;
}

/** The ring of events and its hook taps. */
export class EventFeed {
  private readonly events: FeedEvent[] = [];
  private seq = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Records one event (masked and cut here). */
  note(event: Omit<FeedEvent, "seq" | "at" | "text"> & { text: string }): void {
    this.events.push({ ...event, seq: ++this.seq, at: this.now(), text: cut(maskSecrets(event.text)) });
    if (this.events.length > FEED_SIZE) this.events.splice(0, this.events.length - FEED_SIZE);
  }

  /** Taps the daemon's hooks (the prompt, agent messages, turn ends, whispers, escalations, usage). */
  apply(hooks: DaemonHooks): this {
    const NAME = "EventFeed";
    hooks.beforePrompt.tap(NAME, (prompt: string | null, origin: PromptOrigin) => {
      if (prompt !== null) this.note({ kind: "prompt", text: origin.text || prompt, who: origin.sender, where: origin.channel, origin: origin.kind });
      return prompt;
    });
    hooks.agentMessage.tap(NAME, (message: AgentMessage) => {
      for (const block of message.content) {
        if (block.type === "tool_use") this.note({ kind: "tool_call", who: block.name, text: show(maskInput(block.input)) });
        else if (block.type === "tool_result") this.note({ kind: "tool_result", text: show(maskInput(block.content)), error: block.is_error === true });
        else if (block.type === "thinking") this.note({ kind: "thinking", text: block.thinking });
      }
    });
    hooks.turnEnd.tap(NAME, (turn: TurnResult) => {
      if (turn.error) this.note({ kind: "turn_failed", text: turn.error, who: turn.origin.sender });
      else this.note({ kind: "reply", text: turn.finalText || "(no text)", who: turn.origin.sender, where: turn.origin.replyTo });
    });
    hooks.whisper.tap(NAME, (whisper) => {
      if (whisper) this.note({ kind: "whisper", text: whisper.message, who: whisper.action });
      return whisper;
    });
    hooks.escalation.tap(NAME, (message: string) => this.note({ kind: "escalation", text: message }));
    hooks.turnUsage.tap(NAME, (record: UsageRecord) => {
      if (!record.reported && record.costUsd === null) return;
      const cost = record.costUsd;
      const tokens = record.tokens.input + record.tokens.output;
      this.note({ kind: "usage", text: `${tokens} tokens${cost === null ? "" : `, $${cost.toFixed(4)}`}`, cost_usd: cost, tokens });
    });
    return this;
  }

  /** Answers `events`, or null for any other request. */
  ipc(req: IpcRequest): IpcResult | null {
    if (req.type !== "events") return null;
    const num = (v: unknown, name: string): number | null | string => {
      if (v === undefined || v === null) return null;
      return typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : `field "${name}" must be a whole number >= 0, got ${JSON.stringify(v)}`;
    };
    const after = num(req.after, "after");
    const before = num(req.before, "before");
    const limit = num(req.limit, "limit");
    for (const v of [after, before, limit]) if (typeof v === "string") return { ok: false, error: v };
    const n = Math.min(MAX_PAGE, (limit as number | null) ?? 200);
    let page: FeedEvent[];
    if (after !== null) page = this.events.filter((e) => e.seq > (after as number)).slice(0, n);
    else {
      const upTo = before === null ? this.events : this.events.filter((e) => e.seq < (before as number));
      page = upTo.slice(Math.max(0, upTo.length - n));
    }
    return { ok: true, data: { events: page, first: this.events[0]?.seq ?? null, last: this.seq } };
  }
}

function show(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return String(value);
  }
}

function cut(text: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT - 1)}…`;
}
