/**
 * `culture config check`: load the config exactly as the daemon would (global `--config`, or
 * the search), and print the resolved result as YAML — defaults filled in, directories
 * absolute, secrets redacted — under a first line `# <file>: OK (<n> agents)`. Any problem is
 * a CultureError: the program prints its message and exits 1.
 */
import type { Command } from "commander";
import { dirname } from "node:path";
import { configToYaml, CultureError, loadBackend, loadConfig, loadPlugins, resolveBackendForAgent, type CultureConfig } from "@culture/core";
import { configOption } from "../options.js";

/** Registers the `config` command group and its `check` subcommand. */
export function registerConfigCommand(program: Command): void {
  const config = program.command("config").description("inspect the configuration (agents.yaml)");
  config
    .command("check")
    .description("validate the config and print it resolved (defaults filled in, secrets redacted)")
    .action(async (_options: unknown, command: Command) => {
      const loaded = await loadConfig({ configPath: configOption(command) });
      await checkBackends(loaded);
      const n = loaded.agents.length;
      process.stdout.write(`# ${loaded.filepath}: OK (${n} agent${n === 1 ? "" : "s"})\n${configToYaml(loaded)}`);
    });
}

/**
 * Resolves and loads every agent's backend, the supervisor's evaluator backend and the
 * hooks-only plugins, and validates the agents' backend fields against each backend's
 * `configSchema` (DESIGN.md section 9). The first problem is thrown as its CultureError
 * (E_BACKEND_NOT_FOUND, E_BACKEND_OPTIONS, ...).
 */
async function checkBackends(config: CultureConfig): Promise<void> {
  const configDir = config.filepath ? dirname(config.filepath) : process.cwd();
  for (const agent of config.agents) await resolveBackendForAgent(config, agent);
  const evaluator = config.supervisor?.agent;
  if (evaluator && evaluator !== "command") {
    const loaded = await loadBackend(evaluator, { configDir, ...(config.filepath ? { configFile: config.filepath } : {}) });
    if (!loaded.definition.createEvaluator) {
      throw new CultureError(
        "E_BACKEND_INVALID",
        `supervisor.agent is "${evaluator}", but the backend ${loaded.packageName ?? loaded.path} has no evaluator (createEvaluator).\n` +
          `Pick a backend that has one, or use supervisor.agent: command with supervisor.command.`,
      );
    }
  }
  await loadPlugins(config.plugins, configDir, config.filepath ? { configFile: config.filepath } : {});
}
