/**
 * culture's settings -> the Claude Agent SDK's `Options`, for the runner's long-lived session
 * and the supervisor's one-shot evaluations. Kept in one place so both spawn the same CLI the
 * same way (executable, environment, thinking).
 */
import type { CanUseTool, EffortLevel, HookCallbackMatcher, HookEvent, McpServerConfig, Options, SpawnOptions } from "@anthropic-ai/claude-agent-sdk";
import type { AgentSandbox, Thinking } from "@culture/core";
import { createRequire } from "node:module";
import type { ClaudeExecutable } from "./claude-executable.js";
import { spawnClaudeProcess, type ClaudeProcess } from "./claude-process.js";
import type { ClaudeOptions, PermissionMode } from "./claude-options.js";

/** What identifies culture to Claude Code (it goes into the API's User-Agent). */
export const CLIENT_APP = `culture/${(createRequire(import.meta.url)("../package.json") as { version: string }).version}`;

/**
 * culture's `thinking` -> the SDK's: `none` disables extended thinking; the other levels set
 * the effort (Claude decides how much to think, within that effort).
 */
export function thinkingOptions(thinking: Thinking): Pick<Options, "thinking" | "effort"> {
  if (thinking === "none") return { thinking: { type: "disabled" } };
  const effort: EffortLevel = thinking;
  return { effort };
}

/**
 * The environment of the Claude Code process. The SDK replaces the child's environment with
 * this object, so it is the daemon's (with CULTURE_NICK) plus the agent's `env:`.
 */
export function claudeEnvironment(base: Record<string, string | undefined>, extra: Record<string, string>): Record<string, string | undefined> {
  return { CLAUDE_AGENT_SDK_CLIENT_APP: CLIENT_APP, ...base, ...extra };
}

/** What {@link sessionOptions} needs. */
export interface SessionOptionsInput {
  directory: string;
  executable: ClaudeExecutable;
  options: ClaudeOptions;
  env: Record<string, string | undefined>;
  model: string | null;
  thinking: Thinking;
  /** Appended to Claude Code's own system prompt. */
  systemPrompt: string;
  /** The session to resume, or null for a new one. */
  resume: string | null;
  abortController: AbortController;
  /** Claude Code's stderr text, as it comes. */
  stderr: (data: string) => void;
  /** Called with the Claude Code process once it is spawned (its exit status is read there). */
  onSpawn?: (process: ClaudeProcess) => void;
  hooks: Partial<Record<HookEvent, HookCallbackMatcher[]>>;
  /** The in-process `culture` MCP server with the IRC tools (irc_tools mcp/both), or none. */
  ircMcpServer?: McpServerConfig;
  /** Claude Code's permission mode (see claudePermissionSetup). */
  permissionMode: PermissionMode;
  /** Answers Claude Code's permission prompts (culture's permissions ask); without it, nobody does. */
  canUseTool?: CanUseTool;
  /** The agent's sandbox (RunnerContext.sandbox): Claude Code is spawned inside it. */
  sandbox?: AgentSandbox | null;
}

/** The SDK options of an agent's long-lived session. */
export function sessionOptions(input: SessionOptionsInput): Options {
  const o = input.options;
  const options: Options = {
    cwd: input.directory,
    pathToClaudeCodeExecutable: input.executable.path,
    env: claudeEnvironment(input.env, o.env),
    // Without a preset the SDK sends an EMPTY system prompt: keep Claude Code's and append ours.
    systemPrompt: { type: "preset", preset: "claude_code", append: input.systemPrompt },
    permissionMode: input.permissionMode,
    abortController: input.abortController,
    spawnClaudeCodeProcess: spawner(input.stderr, input.onSpawn, input.sandbox),
    hooks: input.hooks,
    ...thinkingOptions(input.thinking),
  };
  // Only with bypass: the flag alone already trips Claude Code's refusal to run as root.
  if (input.permissionMode === "bypassPermissions") options.allowDangerouslySkipPermissions = true;
  if (input.canUseTool) options.canUseTool = input.canUseTool;
  if (input.model) options.model = input.model;
  if (input.resume) options.resume = input.resume;
  if (o.allowed_tools.length > 0) options.allowedTools = [...o.allowed_tools];
  if (o.disallowed_tools.length > 0) options.disallowedTools = [...o.disallowed_tools];
  // With canUseTool, Claude Code offers AskUserQuestion and sends it there, but nobody at culture
  // can fill in its answers (an approval only yields "The user did not answer"): remove it, as
  // Claude Code does itself without canUseTool. The agent asks on IRC instead.
  if (input.canUseTool) options.disallowedTools = [...(options.disallowedTools ?? []), "AskUserQuestion"];
  if (input.ircMcpServer) {
    options.mcpServers = { culture: input.ircMcpServer };
    // The IRC tools never ask for permission, whatever the permission mode: canUseTool allows
    // them itself; without it, an allow rule does (with canUseTool the SDK warns that a bare
    // allowedTools entry shadows the callback).
    if (!input.canUseTool) options.allowedTools = [...(options.allowedTools ?? []), "mcp__culture"];
  }
  return options;
}

/** What {@link evaluationOptions} needs. */
export interface EvaluationOptionsInput {
  directory: string;
  executable: ClaudeExecutable;
  options: ClaudeOptions;
  env: Record<string, string | undefined>;
  model: string | null;
  thinking: Thinking;
  /** Replaces Claude Code's system prompt (the supervisor's instructions). */
  systemPrompt: string;
  abortController: AbortController;
  stderr: (data: string) => void;
}

/**
 * The SDK options of one supervisor evaluation: a single model turn with no tools at all
 * (no built-in tools, no MCP servers), the supervisor's system prompt instead of Claude
 * Code's, and no saved session.
 */
export function evaluationOptions(input: EvaluationOptionsInput): Options {
  const options: Options = {
    cwd: input.directory,
    pathToClaudeCodeExecutable: input.executable.path,
    env: claudeEnvironment(input.env, input.options.env),
    systemPrompt: input.systemPrompt,
    maxTurns: 1,
    tools: [],
    allowedTools: [],
    // No MCP servers either: only the ones passed here (none) are loaded.
    strictMcpConfig: true,
    persistSession: false,
    abortController: input.abortController,
    spawnClaudeCodeProcess: spawner(input.stderr),
    ...thinkingOptions(input.thinking),
  };
  if (input.model) options.model = input.model;
  return options;
}

/**
 * culture spawns Claude Code itself (see claude-process.ts): the SDK loses the exit status of a
 * process that dies after an error result. With a custom spawn the SDK no longer reads stderr,
 * so the spawn hands it to `stderr`.
 */
function spawner(stderr: (data: string) => void, onSpawn?: (process: ClaudeProcess) => void, sandbox?: AgentSandbox | null): NonNullable<Options["spawnClaudeCodeProcess"]> {
  return (spawnOptions) => {
    const process = spawnClaudeProcess(sandboxed(spawnOptions, sandbox), stderr);
    onSpawn?.(process);
    return process.child;
  };
}

/** The SDK's spawn, run inside the agent's sandbox (the same options without one). */
function sandboxed(options: SpawnOptions, sandbox: AgentSandbox | null | undefined): SpawnOptions {
  if (!sandbox) return options;
  const boxed = sandbox.command([options.command, ...options.args], options.env, options.cwd);
  return { ...options, command: boxed.argv[0]!, args: boxed.argv.slice(1), env: boxed.env };
}
