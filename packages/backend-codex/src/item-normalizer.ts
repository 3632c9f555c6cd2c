/**
 * Turns a completed Codex `ThreadItem` into culture's content blocks (DESIGN.md section 2):
 * `agentMessage` -> text, `reasoning` -> thinking, `commandExecution` / `fileChange` /
 * `mcpToolCall` / `webSearch` -> a `tool_use` and its `tool_result`. Other item types (the
 * user's own message, plans, compaction markers, review mode) are not the agent's output and
 * are skipped. Field names follow openai/codex `v2/item.rs`.
 */
import type { ContentBlock } from "@culture/core";
import { z } from "zod";
import type { ThreadItem } from "./app-server-protocol.js";

const agentMessageItem = z.looseObject({ text: z.string() });
const reasoningItem = z.looseObject({
  summary: z.array(z.string()).optional(),
  content: z.array(z.string()).optional(),
});
const commandExecutionItem = z.looseObject({
  command: z.string(),
  cwd: z.string().nullish(),
  status: z.string(),
  aggregatedOutput: z.string().nullish(),
  exitCode: z.number().nullish(),
});
const fileChangeItem = z.looseObject({
  changes: z.array(z.looseObject({ path: z.string(), kind: z.unknown().optional(), diff: z.string().optional() })),
  status: z.string(),
});
const mcpToolCallItem = z.looseObject({
  server: z.string(),
  tool: z.string(),
  status: z.string(),
  arguments: z.unknown().optional(),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
});
const webSearchItem = z.looseObject({ query: z.string(), action: z.unknown().optional() });

/** What {@link normalizeItem} made of an item. */
export type NormalizedItem =
  | { kind: "blocks"; blocks: ContentBlock[] }
  /** Not agent output (or empty): nothing to report. */
  | { kind: "skip" }
  /** A known item type whose fields are not what culture expects. */
  | { kind: "invalid"; problem: string };

/**
 * Normalizes a completed item. `streamedText` is the text of the item's
 * `item/agentMessage/delta`s, used when the completed agent message carries no text.
 */
export function normalizeItem(item: ThreadItem, streamedText = ""): NormalizedItem {
  const parse = <T extends z.ZodType>(schema: T): z.infer<T> | string => {
    const r = schema.safeParse(item);
    return r.success ? r.data : `${item.type}: ${z.prettifyError(r.error).replace(/\n/g, "; ")}`;
  };
  const blocks = (b: ContentBlock[]): NormalizedItem => ({ kind: "blocks", blocks: b });
  const invalid = (problem: string): NormalizedItem => ({ kind: "invalid", problem });

  switch (item.type) {
    case "agentMessage": {
      const m = parse(agentMessageItem);
      if (typeof m === "string") return invalid(m);
      const text = m.text || streamedText;
      return text ? blocks([{ type: "text", text }]) : { kind: "skip" };
    }
    case "reasoning": {
      const m = parse(reasoningItem);
      if (typeof m === "string") return invalid(m);
      const summary = (m.summary ?? []).filter((s) => s.trim());
      const content = (m.content ?? []).filter((s) => s.trim());
      const thinking = (summary.length ? summary : content).join("\n\n");
      return thinking ? blocks([{ type: "thinking", thinking }]) : { kind: "skip" };
    }
    case "commandExecution": {
      const m = parse(commandExecutionItem);
      if (typeof m === "string") return invalid(m);
      const failed = m.status !== "completed" || (typeof m.exitCode === "number" && m.exitCode !== 0);
      return blocks([
        { type: "tool_use", id: item.id, name: "shell", input: { command: m.command, ...(m.cwd ? { cwd: m.cwd } : {}) } },
        {
          type: "tool_result",
          tool_use_id: item.id,
          content: { output: m.aggregatedOutput ?? "", exitCode: m.exitCode ?? null, status: m.status },
          ...(failed ? { is_error: true } : {}),
        },
      ]);
    }
    case "fileChange": {
      const m = parse(fileChangeItem);
      if (typeof m === "string") return invalid(m);
      const changes = m.changes.map((c) => ({ path: c.path, kind: kindName(c.kind), ...(c.diff === undefined ? {} : { diff: c.diff }) }));
      return blocks([
        { type: "tool_use", id: item.id, name: "apply_patch", input: { changes } },
        {
          type: "tool_result",
          tool_use_id: item.id,
          content: { status: m.status, files: changes.map((c) => c.path) },
          ...(m.status !== "completed" ? { is_error: true } : {}),
        },
      ]);
    }
    case "mcpToolCall": {
      const m = parse(mcpToolCallItem);
      if (typeof m === "string") return invalid(m);
      const failed = m.status === "failed";
      return blocks([
        { type: "tool_use", id: item.id, name: `mcp__${m.server}__${m.tool}`, input: m.arguments ?? {} },
        {
          type: "tool_result",
          tool_use_id: item.id,
          content: failed ? (m.error ?? { status: m.status }) : (m.result ?? null),
          ...(failed ? { is_error: true } : {}),
        },
      ]);
    }
    case "webSearch": {
      const m = parse(webSearchItem);
      if (typeof m === "string") return invalid(m);
      return blocks([
        { type: "tool_use", id: item.id, name: "web_search", input: { query: m.query } },
        { type: "tool_result", tool_use_id: item.id, content: m.action ?? null },
      ]);
    }
    default:
      return { kind: "skip" };
  }
}

/** `PatchChangeKind` is `{ type: "add" | "delete" | "update", ... }`; older servers sent a string. */
function kindName(kind: unknown): string {
  if (typeof kind === "string") return kind;
  if (kind && typeof kind === "object" && typeof (kind as { type?: unknown }).type === "string") return (kind as { type: string }).type;
  return "update";
}
