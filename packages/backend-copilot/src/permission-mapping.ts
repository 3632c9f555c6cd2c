/**
 * Copilot's permission requests and results in culture's terms (SDK 1.0.14, its runtime
 * 1.0.85). The runtime asks its host before a tool acts: `shell` (the `bash` tool, with the
 * whole command line), `write` (`create`, `edit`), `read` (`view`, `grep`; inside the agent's
 * directory too), `url` (`web_fetch`), `mcp` (a tool of an MCP server), and rarer kinds (custom
 * tools, hooks, memory, extensions).
 *
 * The runtime accepts only `approve-once`, `approve-for-session`, `approve-for-location`,
 * `reject`, `user-not-available` and `approved` from a host: it refuses
 * `denied-interactively-by-user` ("unknown variant", and the model sees that error instead of
 * the reason). `reject` with `feedback` is what carries a reason to the model: its tool result
 * reads `The user rejected this tool call. User feedback: <feedback>`.
 */
import type { PermissionDecision, PermissionKind, PermissionRequest } from "@culture/core";
import { IRC_MCP_SERVER_NAME } from "@culture/core/irc-tools";
import type { PermissionRequest as CopilotPermissionRequest, PermissionRequestResult } from "@github/copilot-sdk";

/** A Copilot permission request as culture's {@link PermissionRequest} (without `signal`); `toolName` is the tool's name when the runner saw the call start. */
export function toPermissionRequest(request: CopilotPermissionRequest, toolName?: string): PermissionRequest {
  // The call id is the only part that differs between two identical calls: left out, so an
  // `always` rule (kind, tool, exact input; issue #24) pins the call and matches it again.
  const { toolCallId: _callId, ...input } = request as CopilotPermissionRequest & { toolCallId?: string };
  const base = { input };
  switch (request.kind) {
    case "shell":
      return {
        ...base,
        tool: toolName ?? "bash",
        kind: "shell",
        command: request.fullCommandText,
        ...(request.possiblePaths.length > 0 ? { paths: [...request.possiblePaths] } : {}),
        summary: `run: ${request.fullCommandText}`,
      };
    case "write":
      return { ...base, tool: toolName ?? "edit", kind: "edit", paths: [request.fileName], summary: `${/^create/i.test(request.intention) ? "create" : "edit"} ${request.fileName}` };
    case "read":
      return { ...base, tool: toolName ?? "view", kind: "read", paths: [request.path], summary: `read ${request.path}` };
    case "url":
      return { ...base, tool: toolName ?? "web_fetch", kind: "fetch", url: request.url, summary: `fetch ${request.url}` };
    case "mcp":
      return {
        ...base,
        tool: toolName ?? `${request.serverName}-${request.toolName}`,
        kind: "mcp",
        summary: `use ${request.toolName} of the MCP server ${request.serverName}`,
      };
    case "custom-tool":
    case "hook":
      return { ...base, tool: toolName ?? request.toolName, kind: "other", summary: `use ${request.toolName}` };
    default:
      return { ...base, tool: toolName ?? request.kind, kind: "other" satisfies PermissionKind, summary: otherSummary(request) };
  }
}

/** Whether the request is for a tool of culture's own `culture` MCP server (the IRC tools): always allowed, never asked. */
export function isCultureIrcTool(request: CopilotPermissionRequest): boolean {
  return request.kind === "mcp" && request.serverName === IRC_MCP_SERVER_NAME;
}

/** The answer to the runtime: allow -> approve once (the daemon keeps any "always"); deny -> reject with the reason as feedback, which the model reads. */
export function toPermissionResult(decision: PermissionDecision): PermissionRequestResult {
  return decision.behavior === "allow" ? { kind: "approve-once" } : { kind: "reject", feedback: decision.reason };
}

/** A one-line summary for the kinds culture has no field for. */
function otherSummary(request: CopilotPermissionRequest): string {
  switch (request.kind) {
    case "memory":
      return `remember: ${request.fact}`;
    case "extension-management":
      return `${request.operation} the extension ${request.extensionName ?? ""}`.trimEnd();
    case "extension-permission-access":
      return `give the extension ${request.extensionName}: ${request.capabilities.join(", ")}`;
    case "extension-env-access":
      return `give the extension ${request.extensionName} the variables ${request.environmentVariables.join(", ")}`;
    case "factory":
      return `${request.operation} the factory ${request.name}`;
    default:
      return `use ${(request as { kind: string }).kind}`;
  }
}
