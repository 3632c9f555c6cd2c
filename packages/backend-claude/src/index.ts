/**
 * `@culture/backend-claude`: culture's backend for Claude Code, driven through the Claude
 * Agent SDK (`@anthropic-ai/claude-agent-sdk`): one long-lived Claude Code session per agent,
 * supervisor whispers at tool boundaries, resume after a crash, and a tool-less evaluator for
 * `supervisor.agent: claude`.
 */
import { defineBackend } from "@culture/core";
import { join } from "node:path";
import { claudeDoctor } from "./claude-doctor.js";
import { createClaudeEvaluator } from "./claude-evaluator.js";
import { claudeOptionsSchema, type ClaudeOptions } from "./claude-options.js";
import { ClaudeRunner } from "./claude-runner.js";

export { ClaudeRunner, formatWhispers, type ClaudeRunnerSettings } from "./claude-runner.js";
export { createClaudeEvaluator } from "./claude-evaluator.js";
export { claudeOptionsSchema, PERMISSION_MODES, type ClaudeOptions, type PermissionMode } from "./claude-options.js";
export { claudeDoctor, checkCredentials, checkExecutable } from "./claude-doctor.js";
export {
  bundledClaudeExecutable,
  bundledExecutableMissing,
  describeExecutable,
  resolveClaudeExecutable,
  SDK_PACKAGE,
  type ClaudeExecutable,
} from "./claude-executable.js";
export {
  CLAUDE_LOGIN_METHODS,
  classifyTurnFailure,
  isAuthRetry,
  isMissingSession,
  retriesExhausted,
  startupFailure,
  type ApiErrorMessage,
  type TurnFailure,
} from "./claude-errors.js";
export { spawnClaudeProcess, exitStatus, type ClaudeProcess, type ClaudeProcessExit } from "./claude-process.js";
export { normalizeSdkMessage, type NormalizedSdkMessage, type TurnResult } from "./sdk-message-normalizer.js";
export { sessionOptions, evaluationOptions, thinkingOptions, claudeEnvironment, CLIENT_APP, type SessionOptionsInput, type EvaluationOptionsInput } from "./sdk-options.js";
export { PromptQueue } from "./prompt-queue.js";

/** The Claude Code backend (`agent: claude`, culture's default). */
const claudeBackend = defineBackend<ClaudeOptions>({
  name: "claude",
  apiVersion: 1,
  mcpIrcTools: true,
  configSchema: claudeOptionsSchema,
  // Inside a sandbox Claude Code keeps its config, sessions and sign-in (CLAUDE_CONFIG_DIR, else ~/.claude and ~/.claude.json).
  sandboxPaths: (options, env, home) => {
    const dir = options.env?.CLAUDE_CONFIG_DIR ?? env.CLAUDE_CONFIG_DIR;
    return dir ? { dirs: [dir] } : { dirs: [join(home, ".claude")], files: [join(home, ".claude.json")] };
  },
  createRunner: (ctx) => new ClaudeRunner(ctx),
  createEvaluator: (ctx) => createClaudeEvaluator(ctx),
  skill: {
    path: new URL("../skill/SKILL.md", import.meta.url),
    installDir: (home) => join(home, ".claude", "skills", "irc"),
  },
  doctor: (options, env) => claudeDoctor(options, env),
});

export default claudeBackend;
