/**
 * Approvals for Claude Code (issue #20): which permission mode Claude Code runs in, and how its
 * `canUseTool` requests become culture {@link PermissionRequest}s and the daemon's
 * {@link PermissionDecision}s become the SDK's answers.
 *
 * With culture's `permissions.mode: bypass` (the default) Claude Code runs in the agent's
 * `permission_mode` (bypassPermissions unless set) and nobody is asked; when `deny` patterns
 * exist, every tool call still goes to the daemon first through a PreToolUse hook (hooks fire
 * in bypassPermissions mode too), which refuses what a `deny` pattern matches, with the reason
 * the model reads ({@link policyDenyHook}, issue #24). With `ask` or `allowlist`, culture's
 * policy wins: Claude Code runs in `default` mode, every tool call it would prompt for goes to
 * `RunnerContext.requestPermission` (`canUseTool`), and so does every shell, file, web and MCP
 * call it would run unasked ({@link askCultureHook}).
 *
 * culture's own IRC tools are known by the MCP server that serves them: the in-process SDK
 * server culture registered as `culture` (Claude Code reports it as `mcpServer` /
 * `mcp_server` with `source: "sdk"`), never by the `mcp__culture__` prefix of a name, which a
 * project's own `.mcp.json` server called `culture` would share.
 */
import type { CanUseTool, HookCallback, PermissionResult } from "@anthropic-ai/claude-agent-sdk";
import { errorMessage, policyRouting, searchRoots, type Logger, type PermissionDecision, type PermissionRequest, type PermissionsConfig } from "@culture/core";
import { IRC_MCP_SERVER_NAME } from "@culture/core/irc-tools";
import type { ClaudeOptions, PermissionMode } from "./claude-options.js";

/** The permission mode Claude Code runs in, and whether culture answers its prompts. */
export interface ClaudePermissionSetup {
  /** The SDK's `permissionMode`. */
  mode: PermissionMode;
  /** True when Claude Code's prompts go to culture (`canUseTool`). */
  asksCulture: boolean;
  /** True when Claude Code runs unattended but each tool call is checked against culture's `deny` patterns first ({@link policyDenyHook}). */
  checksDeny: boolean;
  /** Claude settings of the agent that culture's `permissions` override: what to tell the user (empty: none). */
  conflicts: string[];
}

/**
 * Decides Claude Code's permission mode from the agent's Claude fields and culture's effective
 * `permissions`. An explicit culture policy (`ask`/`allowlist`) wins: over any `permission_mode`
 * other than `default`, and over `allowed_tools` for the tools culture's patterns describe
 * (see {@link askCultureHook}); `conflicts` says so, one sentence each.
 */
export function claudePermissionSetup(
  options: Pick<ClaudeOptions, "permission_mode" | "allowed_tools">,
  permissions: Pick<PermissionsConfig, "mode" | "deny">,
): ClaudePermissionSetup {
  const own = options.permission_mode;
  const routing = policyRouting(permissions);
  if (routing !== "ask") return { mode: own ?? "bypassPermissions", asksCulture: false, checksDeny: routing === "deny", conflicts: [] };
  const conflicts: string[] = [];
  const policy = `the agent's permissions (mode ${permissions.mode}) decide`;
  if (own !== null && own !== "default") {
    conflicts.push(`permission_mode ${own} is ignored: ${policy}, so Claude Code runs in default mode and asks culture for each tool. Remove permission_mode, or set permissions mode bypass to use it.`);
  }
  if (options.allowed_tools.length > 0) {
    conflicts.push(
      `allowed_tools (${options.allowed_tools.join(", ")}) no longer skip the asking for Bash, file, web and MCP tools: ${policy}. Put such rules in permissions.allow (e.g. Bash(npm test*)).`,
    );
  }
  return { mode: "default", asksCulture: true, checksDeny: false, conflicts };
}

/** Claude Code's file-editing tools and the input field that holds the file. */
const EDIT_TOOLS: Record<string, { field: string; verb: string }> = {
  Edit: { field: "file_path", verb: "edit" },
  MultiEdit: { field: "file_path", verb: "edit" },
  Write: { field: "file_path", verb: "write" },
  NotebookEdit: { field: "notebook_path", verb: "edit notebook" },
};

/**
 * One Claude Code `canUseTool` call as a culture {@link PermissionRequest} (without the
 * signal): Bash is `shell` with its command, the edit tools `edit` with their file, Read/Glob/
 * Grep/LS/NotebookRead `read` (a search's paths are the folders it reaches, default `.`), WebFetch/WebSearch `fetch`, `mcp__*` tools `mcp`, the rest `other`; each with a
 * one-line summary.
 */
export function claudePermissionRequest(toolName: string, input: Record<string, unknown>): Omit<PermissionRequest, "signal"> {
  const str = (key: string): string | undefined => (typeof input[key] === "string" ? (input[key] as string) : undefined);
  const base = { tool: toolName, input };
  if (toolName === "Bash" || toolName === "PowerShell") {
    const command = str("command") ?? "";
    return { ...base, kind: "shell", command, summary: oneLine(`run: ${command}`) };
  }
  const edit = EDIT_TOOLS[toolName];
  if (edit) {
    const path = str(edit.field);
    return { ...base, kind: "edit", ...(path ? { paths: [path] } : {}), summary: oneLine(`${edit.verb} ${path ?? "a file"}`) };
  }
  if (toolName === "Read") {
    const path = str("file_path");
    return { ...base, kind: "read", ...(path ? { paths: [path] } : {}), summary: oneLine(`read ${path ?? "a file"}`) };
  }
  if (toolName === "NotebookRead") {
    const path = str("notebook_path");
    return { ...base, kind: "read", ...(path ? { paths: [path] } : {}), summary: oneLine(`read ${path ?? "a notebook"}`) };
  }
  if (toolName === "Glob" || toolName === "Grep" || toolName === "LS") {
    // A search without `path` searches the agent's directory: say so in `paths`, so patterns
    // (`Grep(**)`) and protected paths bound every search; Glob's pattern may leave it too.
    const path = str("path");
    const what = toolName === "Glob" ? `list files matching ${str("pattern") ?? "?"}` : toolName === "LS" ? "list the files" : `search files for ${str("pattern") ?? "?"}`;
    const paths = searchRoots(path, toolName === "Glob" ? str("pattern") : undefined);
    return { ...base, kind: "read", paths, summary: oneLine(`${what} in ${path ?? "the project"}`) };
  }
  if (toolName === "WebFetch") {
    const url = str("url");
    return { ...base, kind: "fetch", ...(url ? { url } : {}), summary: oneLine(`fetch ${url ?? "a URL"}`) };
  }
  if (toolName === "WebSearch") return { ...base, kind: "fetch", summary: oneLine(`search the web for ${str("query") ?? "?"}`) };
  const mcp = /^mcp__(.+?)__(.+)$/.exec(toolName);
  if (mcp) return { ...base, kind: "mcp", summary: oneLine(`use ${mcp[2]} of the MCP server ${mcp[1]}`) };
  const about = str("description") ?? str("prompt");
  return { ...base, kind: "other", summary: oneLine(about ? `use ${toolName}: ${about}` : `use ${toolName}`) };
}

/** The daemon's decision as the SDK's answer: the tool runs unchanged, or is refused with the reason the model then sees. */
export function claudePermissionResult(decision: PermissionDecision, input: Record<string, unknown>): PermissionResult {
  return decision.behavior === "allow" ? { behavior: "allow", updatedInput: input } : { behavior: "deny", message: decision.reason };
}

/**
 * The SDK's `canUseTool` for an agent whose permissions ask: culture's own IRC tools (the
 * in-process `culture` server) are allowed without asking; every other request goes to
 * `requestPermission` with the SDK's signal (aborted when Claude Code withdraws the request:
 * an interrupted turn, the process gone).
 */
export function claudeCanUseTool(requestPermission: (request: PermissionRequest) => Promise<PermissionDecision>, logger: Logger): CanUseTool {
  return async (toolName, input, options) => {
    if (isCultureIrcTool(toolName, options.mcpServer)) return { behavior: "allow", updatedInput: input };
    const request: PermissionRequest = { ...claudePermissionRequest(toolName, input), signal: options.signal };
    let decision: PermissionDecision;
    try {
      decision = await requestPermission(request);
    } catch (err) {
      // The contract says it never rejects; if it does, fail closed and tell the model why.
      logger.warn("asking for a permission failed; the tool is refused", { tool: toolName, error: errorMessage(err) });
      decision = { behavior: "deny", reason: `culture could not ask for permission: ${errorMessage(err)}`, by: "policy" };
    }
    logger.info("permission decision", { tool: toolName, kind: request.kind, behavior: decision.behavior, by: decision.by, withdrawn: options.signal.aborted });
    return claudePermissionResult(decision, input);
  };
}

/**
 * The PreToolUse hook of an agent whose permissions ask: Claude Code allows some calls without
 * prompting (reading files inside the project, commands it judges read-only such as `ls`), so
 * culture's `permissions.deny` would never see them. For every tool culture's patterns describe
 * (shell, edit, read, fetch, other MCP servers) the hook answers `ask`, which sends the call to
 * `canUseTool` and so to culture's policy. Other tools (ToolSearch, Agent, Skill, ...) keep
 * Claude Code's own judgment, which asks culture through `canUseTool` where it would prompt.
 */
export const askCultureHook: HookCallback = async (input) => {
  if (input.hook_event_name !== "PreToolUse") return { continue: true };
  if (isCultureIrcTool(input.tool_name, input.mcp_server)) return { continue: true };
  if (claudePermissionRequest(input.tool_name, {}).kind === "other") return { continue: true };
  return { continue: true, hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "culture's permissions decide" } };
};

/**
 * The PreToolUse hook of an agent in bypass mode with `deny` patterns (issue #24): Claude Code
 * asks nobody, but every tool call (culture's own IRC tools aside) goes to `requestPermission`
 * first; the daemon denies what a `deny` pattern matches and allows the rest at once. A denial
 * refuses the call with the reason as the text the model reads; anything else leaves the call
 * to Claude Code's own mode. Should asking fail (it never should), the call is refused.
 */
export function policyDenyHook(requestPermission: (request: PermissionRequest) => Promise<PermissionDecision>, logger: Logger): HookCallback {
  return async (input, _toolUseId, { signal }) => {
    if (input.hook_event_name !== "PreToolUse") return { continue: true };
    if (isCultureIrcTool(input.tool_name, input.mcp_server)) return { continue: true };
    const toolInput = input.tool_input !== null && typeof input.tool_input === "object" ? (input.tool_input as Record<string, unknown>) : {};
    const request: PermissionRequest = { ...claudePermissionRequest(input.tool_name, toolInput), signal };
    let decision: PermissionDecision;
    try {
      decision = await requestPermission(request);
    } catch (err) {
      logger.warn("checking a tool call against the deny patterns failed; the tool is refused", { tool: input.tool_name, error: errorMessage(err) });
      decision = { behavior: "deny", reason: `culture could not check its deny patterns: ${errorMessage(err)}`, by: "policy" };
    }
    if (decision.behavior === "allow") return { continue: true };
    logger.info("permission decision", { tool: input.tool_name, kind: request.kind, behavior: decision.behavior, by: decision.by });
    return { continue: true, hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: decision.reason } };
  };
}

/**
 * Whether a tool is one of culture's IRC tools: served by the in-process SDK server culture
 * registered as `culture` (trust is keyed on the source, as the SDK advises). Without that
 * provenance (a CLI older than the field) no tool is culture's: a name is not proof.
 */
export function isCultureIrcTool(_toolName: string, server: { name: string; source: string } | undefined): boolean {
  return server !== undefined && server.source === "sdk" && server.name === IRC_MCP_SERVER_NAME;
}

/** Collapses line breaks and runs of blanks, so a multi-line command reads as one line. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
