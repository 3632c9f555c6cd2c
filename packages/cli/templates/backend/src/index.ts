/**
 * culture-backend-myagent: a culture backend. culture finds it by name — `agent: myagent` in
 * agents.yaml loads the package `culture-backend-myagent` and uses its default export. There
 * is no registry to edit: installing the package is registering it.
 */
import { join } from "node:path";
import { defineBackend } from "@culture/core";
import { createAgentCliEvaluator } from "./agent-cli-evaluator.js";
import { AgentCliRunner } from "./agent-cli-runner.js";
import { optionsSchema, type Options } from "./options.js";

export { AgentCliRunner } from "./agent-cli-runner.js";
export { createAgentCliEvaluator } from "./agent-cli-evaluator.js";
export { agentCommand, optionsSchema, STAND_IN_AGENT, type Options } from "./options.js";

/** The backend. Its `name` must be the package's suffix (culture checks it when it loads the package). */
const backend = defineBackend<Options>({
  name: "myagent",
  // The backend API this code was written against, as a literal: when a culture with another
  // API loads it, culture refuses it with E_BACKEND_API_MISMATCH instead of failing later.
  // (Not BACKEND_API_VERSION: that is the host's number and would always match.)
  apiVersion: 1,
  configSchema: optionsSchema,
  createRunner: (ctx) => new AgentCliRunner(ctx),
  createEvaluator: (ctx) => createAgentCliEvaluator(ctx),
  skill: {
    // Teaches the agent the `culture channel` commands; `culture skills install` copies it.
    path: new URL("../skill/SKILL.md", import.meta.url),
    // Where your agent CLI looks for skills. ~/.agents/skills is the cross-agent convention.
    installDir: (home) => join(home, ".agents", "skills", "irc"),
  },
});

export default backend;
