/**
 * `@culture/backend-acp`: culture's backend for any Agent Client Protocol agent (OpenCode,
 * Gemini CLI, Cline, Copilot, Kiro, Claude Code through claude-code-acp, ...). The agent is
 * started with the agent entry's `acp_command` and driven through `@agentclientprotocol/sdk`.
 */
import { defineBackend, type DoctorCheck } from "@culture/core";
import { join } from "node:path";
import { createAcpEvaluator } from "./acp-evaluator.js";
import { acpOptionsSchema, type AcpOptions } from "./acp-options.js";
import { AcpRunner } from "./acp-runner.js";
import { acpSandboxPaths } from "./acp-sandbox-paths.js";
import { findExecutable } from "@culture/core";

export { AcpRunner, type AcpRunnerSettings } from "./acp-runner.js";
export { createAcpEvaluator, type AcpEvaluatorSettings } from "./acp-evaluator.js";
export { acpOptionsSchema, PERMISSION_POLICIES, type AcpOptions, type PermissionPolicy } from "./acp-options.js";
export { ACP_PROTOCOL_VERSION, confinePath } from "./acp-client.js";

/** The ACP backend (`agent: acp`). */
const acpBackend = defineBackend<AcpOptions>({
  name: "acp",
  apiVersion: 1,
  mcpIrcTools: true,
  configSchema: acpOptionsSchema,
  sandboxPaths: (options, env, home) => acpSandboxPaths(acpOptionsSchema.parse(options ?? {}).acp_command, { ...env, ...options?.env }, home),
  createRunner: (ctx) => new AcpRunner(ctx),
  createEvaluator: (ctx) => createAcpEvaluator(ctx),
  skill: {
    path: new URL("../skill/SKILL.md", import.meta.url),
    // ACP agents have no common skills folder; ~/.agents/skills is the cross-agent convention.
    installDir: (home) => join(home, ".agents", "skills", "irc"),
  },
  doctor: async (options, env) => [await checkCommand(options, env)],
});

export default acpBackend;

async function checkCommand(options: AcpOptions, env: Record<string, string | undefined>): Promise<DoctorCheck> {
  const command = acpOptionsSchema.parse(options ?? {}).acp_command;
  const program = command[0] ?? "";
  const found = await findExecutable(program, env.PATH, process.cwd());
  const name = `ACP agent command (${command.join(" ")})`;
  if (found) return { ok: true, name, detail: `found ${found}` };
  return {
    ok: false,
    name,
    detail: program.includes("/") ? `${program} is not an executable file` : `${program} is not on PATH`,
    fix: `Install the agent (see docs/backends/acp.md), or set acp_command in agents.yaml to the command that starts it in ACP mode.`,
  };
}
