/**
 * `@culture/backend-codex`: culture's backend for OpenAI Codex. The agent is a long-lived
 * `codex app-server` (JSON-RPC over stdio) driven by culture's own typed client, so a
 * session has interrupts, steering (supervisor whispers mid-turn), compaction and resume.
 */
import { defineBackend } from "@culture/core";
import { join } from "node:path";
import { codexDoctor } from "./codex-doctor.js";
import { createCodexEvaluator } from "./codex-evaluator.js";
import { codexOptionsSchema, type CodexOptions } from "./codex-options.js";
import { CodexRunner } from "./codex-runner.js";
import { codexHomeOf } from "./channel-access.js";

export { CodexRunner, appServerCommand, effortFor, formatWhispers, threadConfig, type CodexRunnerSettings, type RetrySettings } from "./codex-runner.js";
export { createCodexEvaluator, type CodexEvaluatorSettings } from "./codex-evaluator.js";
export { codexOptionsSchema, codexProgram, codexSandboxMode, SANDBOX_MODES, type CodexOptions, type SandboxMode } from "./codex-options.js";
export { AppServerClient, AppServerRequestError, RpcRefusal, type AppServerClientOptions, type AppServerNotification } from "./app-server-client.js";
export { serverRequestHandler, isIrcToolApproval, type ApprovalAnswer, type ServerRequestHandler } from "./server-requests.js";
export { answerApproval, approvalQuestion, denialText, unwrapShell, type ApprovalAsker, type ApprovalQuestion } from "./codex-approvals.js";
export { IRC_TOOL_TIMEOUT_SEC, hasCliIrcTools, hasMcpIrcTools, ircMcpServerConfig } from "./irc-mcp-server.js";
export { normalizeItem, type NormalizedItem } from "./item-normalizer.js";
export { CODEX_LOGIN_METHODS, isAuthFailure, isTransientFailure, codexAuthRequired, type CodexFailure } from "./codex-errors.js";
export { codexDoctor } from "./codex-doctor.js";
export { readProviderAuth, type CodexProviderAuth } from "./codex-config.js";
export { CHANNEL_ACCESS_MODES, CHANNEL_RULE_FILE, channelRule, channelAccessConfig, codexHomeOf, ensureChannelRule, type ChannelAccess } from "./channel-access.js";

/** The Codex backend (`agent: codex`). */
const codexBackend = defineBackend<CodexOptions>({
  name: "codex",
  apiVersion: 1,
  configSchema: codexOptionsSchema,
  // culture mcp is registered through the thread's `mcp_servers` config (irc-mcp-server.ts).
  mcpIrcTools: true,
  // Inside a sandbox Codex keeps its home (config, sessions, auth) and reads its user skills.
  sandboxPaths: (options, env, home) => ({ dirs: [codexHomeOf({ HOME: home, ...env, ...options.env })], readOnly: [join(home, ".agents", "skills")] }),
  createRunner: (ctx) => new CodexRunner(ctx),
  createEvaluator: (ctx) => createCodexEvaluator(ctx),
  skill: {
    path: new URL("../skill/SKILL.md", import.meta.url),
    // Codex reads user skills from ~/.agents/skills/<name>/SKILL.md.
    installDir: (home) => join(home, ".agents", "skills", "irc"),
  },
  doctor: (options, env) => codexDoctor(options, env),
});

export default codexBackend;
