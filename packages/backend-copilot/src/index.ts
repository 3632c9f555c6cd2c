/**
 * `@culture/backend-copilot`: culture's backend for the GitHub Copilot CLI, driven through
 * `@github/copilot-sdk` 1.x (the runtime runs as a child process over stdio; one session per
 * agent).
 */
import { defineBackend } from "@culture/core";
import { join } from "node:path";
import { copilotDoctor } from "./copilot-doctor.js";
import { createCopilotEvaluator } from "./copilot-evaluator.js";
import { copilotOptionsSchema, type CopilotOptions } from "./copilot-options.js";
import { CopilotRunner } from "./copilot-runner.js";

export { CopilotRunner, formatWhispers, type CopilotRunnerSettings } from "./copilot-runner.js";
export { createCopilotEvaluator, type CopilotEvaluatorSettings } from "./copilot-evaluator.js";
export { copilotOptionsSchema, copilotProviderSchema, type CopilotOptions, type CopilotProvider } from "./copilot-options.js";
export { toProviderConfig, providerAuthRefused } from "./byok-provider.js";
export { copilotDoctor, type CopilotDoctorSettings } from "./copilot-doctor.js";
export { COPILOT_LOGIN_METHODS, authError, copilotAuthRequired, isAuthError, sessionError } from "./copilot-errors.js";
export { findRuntime, bundledRuntimePath, runtimeNotFound, type RuntimeLocation } from "./find-runtime.js";
export { chooseEffort, type EffortChoice, type ReasoningEffort } from "./reasoning-effort.js";
export { TurnNormalizer, type ToolHookReport } from "./turn-normalizer.js";

/** The Copilot backend (`agent: copilot`). */
const copilotBackend = defineBackend<CopilotOptions>({
  name: "copilot",
  apiVersion: 1,
  mcpIrcTools: true,
  configSchema: copilotOptionsSchema,
  // Inside a sandbox the runtime keeps its home (config, sessions, sign-in): COPILOT_HOME, else ~/.copilot.
  sandboxPaths: (options, env, home) => ({ dirs: [options.env?.COPILOT_HOME || env.COPILOT_HOME || join(home, ".copilot")] }),
  createRunner: (ctx) => new CopilotRunner(ctx),
  createEvaluator: (ctx) => createCopilotEvaluator(ctx),
  skill: {
    path: new URL("../skill/SKILL.md", import.meta.url),
    // Copilot CLI reads personal skills from ~/.copilot/skills/<name>/SKILL.md.
    installDir: (home) => join(home, ".copilot", "skills", "irc"),
  },
  doctor: (options, env) => copilotDoctor(options, env),
});

export default copilotBackend;
