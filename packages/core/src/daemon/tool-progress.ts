/**
 * Progress of the turn in flight: which tool the agent is running and since when, read from
 * the agent's normalized messages (a `tool_use` opens a call, its `tool_result` closes it).
 * Every finished call is logged at INFO with its duration and a short, secret-masked summary
 * of its input, so `culture logs` shows what an agent did while it was quiet on IRC.
 *
 * Backends that report a call only when it is done (Codex sends the `tool_use` and its
 * `tool_result` together) show no running tool; their calls are logged with `duration_ms`
 * measured from the previous agent event, marked `duration_from: "previous event"`.
 */
import type { AgentMessage } from "../agent-message.js";
import { maskInput, maskSecrets } from "../approvals/secret-mask.js";
import type { Logger } from "../logger.js";

/** The longest input summary logged or shown. */
export const TOOL_SUMMARY_MAX = 120;

/** A tool call in flight. */
export interface RunningTool {
  id: string;
  name: string;
  /** Epoch milliseconds. */
  startedAt: number;
  /** The call's input, masked and shortened. */
  summary: string;
}

/** A tool call began, or ended (`done`, `failed`, or still open when the turn ended: `unfinished`). */
export type ToolCallEvent = { phase: "start"; call: RunningTool } | { phase: "end"; call: RunningTool; durationMs: number; outcome: "done" | "failed" | "unfinished" };

/** Tracks tool calls of the turn in flight. */
export class ToolProgress {
  private readonly open = new Map<string, RunningTool>();
  private readonly listeners: Array<(event: ToolCallEvent) => void> = [];
  private lastEventAt = Date.now();
  private calls = 0;

  constructor(
    private readonly logger: Logger,
    private readonly clock: { now(): number } = Date,
  ) {}

  /** The tool running now (the most recently started one still open), or null. */
  get current(): RunningTool | null {
    let latest: RunningTool | null = null;
    for (const t of this.open.values()) if (!latest || t.startedAt >= latest.startedAt) latest = t;
    return latest;
  }

  /** Tool calls finished since the daemon started. */
  get finished(): number {
    return this.calls;
  }

  /** Calls `listener` for every call that starts or ends (the activity mirror); a listener that throws is logged, not rethrown. */
  onCall(listener: (event: ToolCallEvent) => void): void {
    this.listeners.push(listener);
  }

  private emit(event: ToolCallEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (err) {
        this.logger.warn(`a tool call listener failed: ${String(err)}`);
      }
    }
  }

  /** Reads one agent message. */
  observe(msg: AgentMessage): void {
    const now = this.clock.now();
    const previous = this.lastEventAt;
    this.lastEventAt = now;
    for (const block of msg.content) {
      if (block.type === "tool_use") {
        this.open.set(block.id, { id: block.id, name: block.name, startedAt: now, summary: summarize(block.input) });
      } else if (block.type === "tool_result") {
        const call = this.open.get(block.tool_use_id);
        this.open.delete(block.tool_use_id);
        this.calls++;
        if (!call) continue;
        const sameMessage = call.startedAt === now && msg.content.some((b) => b.type === "tool_use" && b.id === block.tool_use_id);
        const duration = sameMessage ? now - previous : now - call.startedAt;
        this.logger.info(`tool ${call.name} ${block.is_error ? "failed" : "done"} in ${formatMs(duration)}`, {
          tool: call.name,
          duration_ms: duration,
          ...(sameMessage ? { duration_from: "previous event" } : {}),
          input: call.summary,
          ...(block.is_error ? { error: true } : {}),
        });
        this.emit({ phase: "end", call, durationMs: duration, outcome: block.is_error ? "failed" : "done" });
      }
    }
    for (const t of this.open.values()) {
      if (t.startedAt === now) {
        this.logger.info(`tool ${t.name} started`, { tool: t.name, input: t.summary });
        this.emit({ phase: "start", call: t });
      }
    }
  }

  /** The turn ended (or the daemon is stopping): calls left open are logged as unfinished. */
  endTurn(): void {
    const now = this.clock.now();
    for (const t of this.open.values()) {
      this.logger.info(`tool ${t.name} unfinished when the turn ended, after ${formatMs(now - t.startedAt)}`, { tool: t.name, duration_ms: now - t.startedAt, input: t.summary });
      this.emit({ phase: "end", call: t, durationMs: now - t.startedAt, outcome: "unfinished" });
    }
    this.open.clear();
  }
}

/** A tool input as one short, masked line: a command or path when it has one, else its JSON. */
export function summarize(input: unknown): string {
  const masked = maskInput(input);
  let text: string;
  if (typeof masked === "string") text = masked;
  else if (masked && typeof masked === "object") {
    const o = masked as Record<string, unknown>;
    const pick = ["command", "cmd", "file_path", "path", "url", "query", "pattern"].find((k) => typeof o[k] === "string" || Array.isArray(o[k]));
    const v = pick ? o[pick] : undefined;
    text = typeof v === "string" ? v : Array.isArray(v) ? v.join(" ") : JSON.stringify(masked);
  } else text = String(masked ?? "");
  text = maskSecrets(text).replace(/\s+/g, " ").trim();
  return text.length > TOOL_SUMMARY_MAX ? `${text.slice(0, TOOL_SUMMARY_MAX - 3)}...` : text;
}

/** A duration for people: `850ms`, `1.2s`. */
export function formatMs(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${(ms / 1000).toFixed(1)}s`;
}
