/**
 * An ACP `session/request_permission` as culture's PermissionRequest: the tool call's `kind`
 * says what it does (execute -> shell, edit/delete/move -> edit, read/search -> read, fetch ->
 * fetch), and the command, paths or URL come from its `rawInput` (OpenCode sends the tool's
 * input) or, failing that, its title and `locations` (Gemini CLI sends no input: the title of
 * a shell call is the command line).
 */
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import type { PermissionKind, PermissionRequest } from "@culture/core";
import { IRC_MCP_SERVER_NAME } from "@culture/core/irc-tools";

type AcpToolCall = RequestPermissionRequest["toolCall"];

/**
 * The tool's name as the agent calls it. OpenCode sends the permission's name (`bash`,
 * `edit`, `webfetch`) as the title, or a description (then the ACP kind stands in); Gemini
 * CLI's call ids are `<tool>_<ms>_<n>` (or `<tool>-<ms>-<n>`) and its titles are
 * descriptions, so the name comes from the id there.
 */
export function acpToolName(toolCall: AcpToolCall): string {
  const fromId = /^([A-Za-z][\w.-]*?)[_-]\d{10,}(?:[_-]\d+)*$/.exec(toolCall.toolCallId)?.[1];
  // Gemini CLI 0.61.0 doubles built-in names: run_shell_command__run_shell_command_<ms>_0.
  if (fromId) return /^(.+)__\1$/.exec(fromId)?.[1] ?? fromId;
  const title = toolCall.title?.trim() ?? "";
  return /^[\w.-]+$/.test(title) ? title : toolCall.kind ?? "tool";
}

/** Whether a tool is one of culture's own IRC tools (OpenCode `culture_send`, Gemini CLI `mcp_culture_send`): never asked for. */
export function isCultureTool(name: string): boolean {
  return new RegExp(`^(mcp_)?${IRC_MCP_SERVER_NAME}[_-]`).test(name);
}

/** The PermissionRequest for one ACP permission request (without its signal). */
export function toPermissionRequest(toolCall: AcpToolCall): Omit<PermissionRequest, "signal"> {
  const tool = acpToolName(toolCall);
  const input = record(toolCall.rawInput);
  const title = toolCall.title?.trim() ?? "";
  const paths = [
    ...(toolCall.locations ?? []).map((l) => l.path),
    ...["filePath", "filepath", "file_path", "path"].map((k) => input?.[k]).filter((v): v is string => typeof v === "string"),
  ].filter((p, i, all) => p.length > 0 && all.indexOf(p) === i);
  const kind = permissionKind(toolCall.kind, tool);
  const base = { tool, kind, input: toolCall.rawInput ?? { toolCallId: toolCall.toolCallId, title } };
  switch (kind) {
    case "shell": {
      const command = str(input?.command) ?? (title || tool);
      return { ...base, command, summary: `run: ${command}` };
    }
    case "edit":
    case "read":
      // Worded as the daemon's request line reads ("wants to edit src/a.ts"), like the other backends.
      return { ...base, paths, summary: `${kind} ${paths.join(", ") || title || tool}` };
    case "fetch": {
      const url = str(input?.url) ?? title;
      return { ...base, url, summary: `fetch ${url}` };
    }
    default:
      return { ...base, summary: `use ${tool}${title && title !== tool ? `: ${title}` : ""}` };
  }
}

function permissionKind(kind: AcpToolCall["kind"], tool: string): PermissionKind {
  switch (kind) {
    case "execute":
      return "shell";
    case "edit":
    case "delete":
    case "move":
      return "edit";
    case "read":
    case "search":
      return "read";
    case "fetch":
      return "fetch";
    default:
      // Gemini CLI names MCP tools mcp_<server>_<tool>; OpenCode's <server>_<tool> looks like its own tools.
      return tool.startsWith("mcp_") ? "mcp" : "other";
  }
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}
