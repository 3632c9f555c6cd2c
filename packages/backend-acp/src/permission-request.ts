/**
 * An ACP `session/request_permission` as culture's PermissionRequest, decided on the fields the
 * agent sets, never on the title (issue #24). The tool call's `kind` says what it does
 * (execute -> shell, edit/delete/move -> edit, read/search -> read, fetch -> fetch); anything
 * else, or no kind, is `other` whatever the title says. The command, paths or URL come from its
 * `rawInput` and `locations` (OpenCode sends the tool's input) or, for a shell call without
 * input, the title (Gemini CLI sends no input: its shell call's title is the command line).
 *
 * The request's tool name is the ACP kind itself (`execute`, `edit`, `read`, `other`, ...):
 * neither the title nor the call id can name a tool, because the model writes them (OpenCode's
 * title is the tool's `description` argument for many tools; Gemini CLI and OpenCode take the
 * call id from the model API). So a kind-`other` request titled `Read` is no read, and one
 * titled `culture_send` is not culture's IRC tool: ACP gives no structured field that names
 * the MCP server a call goes to, so culture's tools get no exemption here (OpenCode does not ask
 * for MCP tools at all; Gemini CLI's calls of them go through the policy like any tool).
 */
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import type { PermissionKind, PermissionRequest } from "@culture/core";

type AcpToolCall = RequestPermissionRequest["toolCall"];

/** The ACP kinds culture knows, as the request's tool name; any other kind (or none) is `other`. */
const ACP_KINDS: Readonly<Record<string, PermissionKind>> = Object.freeze({
  execute: "shell",
  edit: "edit",
  delete: "edit",
  move: "edit",
  read: "read",
  search: "read",
  fetch: "fetch",
});

/** The tool name culture matches on: the agent's ACP kind when it is one culture knows, else `other`. */
export function acpToolName(toolCall: Pick<AcpToolCall, "kind">): string {
  const kind = toolCall.kind ?? "";
  return Object.hasOwn(ACP_KINDS, kind) ? kind : "other";
}

/** The PermissionRequest for one ACP permission request (without its signal). */
export function toPermissionRequest(toolCall: AcpToolCall): Omit<PermissionRequest, "signal"> {
  const tool = acpToolName(toolCall);
  const kind: PermissionKind = ACP_KINDS[tool] ?? "other";
  const input = record(toolCall.rawInput);
  // The title is the agent's words for humans (often the model's): shown, never matched.
  const title = (toolCall.title ?? "").trim();
  const paths = [
    ...(toolCall.locations ?? []).map((l) => l.path),
    ...["filePath", "filepath", "file_path", "path"].map((k) => input?.[k]).filter((v): v is string => typeof v === "string"),
  ].filter((p, i, all) => p.length > 0 && all.indexOf(p) === i);
  // The input an exact `always` rule pins: the agent's structured input and locations; none without rawInput.
  const pinned = toolCall.rawInput === undefined || toolCall.rawInput === null ? undefined : { rawInput: toolCall.rawInput, locations: toolCall.locations ?? [] };
  const base = { tool, kind, ...(pinned ? { input: pinned } : {}) };
  switch (kind) {
    case "shell": {
      const command = str(input?.command) ?? title;
      return { ...base, command, summary: `run: ${command}` };
    }
    case "edit":
    case "read":
      // Worded as the daemon's request line reads ("wants to edit src/a.ts"), like the other backends.
      return { ...base, paths, summary: `${kind} ${paths.join(", ") || title || "(no path given)"}` };
    case "fetch": {
      const url = str(input?.url) ?? title;
      return { ...base, url, summary: `fetch ${url}` };
    }
    default: {
      const where = paths.length > 0 ? ` on ${paths.join(", ")}` : "";
      return { ...base, summary: `use a tool of kind ${toolCall.kind ?? "(none)"}${where}${title ? `, titled by the agent: ${title}` : ""}` };
    }
  }
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}
