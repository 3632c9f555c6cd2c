/**
 * `culture config check`: load the config exactly as the daemon would (global `--config`, or
 * the search), and print the resolved result as YAML — defaults filled in, directories
 * absolute, secrets redacted — under a first line `# <file>: OK (<n> agents)`.
 *
 * Every mistake is reported in one run: the config's own (schema) problems, then every agent's
 * backend (not installed, broken, bad fields with their line numbers), the supervisor's
 * evaluator and the plugins — so fixing one does not reveal the next. Exits 1 when any failed.
 */
import type { Command } from "commander";
import { dirname } from "node:path";
import {
  AGENT_COMMON_KEYS,
  configToYaml,
  CultureError,
  errorMessage,
  isCultureError,
  loadBackend,
  loadConfig,
  loadPlugins,
  parseBackendOptions,
  readAgentEntries,
  resolveBackendForAgent,
  type AgentConfig,
  type CultureConfig,
} from "@culture/core";
import { configOption } from "../options.js";

/** Registers the `config` command group and its `check` subcommand. */
export function registerConfigCommand(program: Command): void {
  const config = program.command("config").description("inspect the configuration (agents.yaml)");
  config
    .command("check")
    .description("validate the config and print it resolved (defaults filled in, secrets redacted); reports every problem at once")
    .action(async (_options: unknown, command: Command) => {
      let loaded: CultureConfig;
      try {
        loaded = await loadConfig({ configPath: configOption(command) });
      } catch (err) {
        // The config itself is invalid: still check the backends the file names, then report all.
        const file = isCultureError(err, "E_CONFIG_INVALID") ? (err.details.file as string | undefined) : undefined;
        if (!file) throw err;
        const more = await checkRawBackends(file);
        throw more.length ? combined([err, ...more]) : err;
      }
      const problems = await checkBackends(loaded);
      if (problems.length) throw combined(problems);
      const n = loaded.agents.length;
      process.stdout.write(`# ${loaded.filepath}: OK (${n} agent${n === 1 ? "" : "s"})\n${configToYaml(loaded)}`);
    });
}

/** One error holding several, each message in turn (the first one's code). */
function combined(errors: readonly unknown[]): unknown {
  if (errors.length === 1) return errors[0];
  const first = errors[0];
  const code = isCultureError(first) ? first.code : "E_CONFIG_INVALID";
  return new CultureError(code, `${errors.length} problems:\n\n${errors.map((e) => errorMessage(e)).join("\n\n")}`, {
    details: { problems: errors.map((e) => (isCultureError(e) ? { code: e.code, message: e.message } : { message: errorMessage(e) })) },
  });
}

/**
 * Resolves and loads every agent's backend, the supervisor's evaluator backend and the
 * hooks-only plugins, and validates the agents' backend fields against each backend's
 * `configSchema` (DESIGN.md section 9). Returns every problem (E_BACKEND_NOT_FOUND,
 * E_BACKEND_OPTIONS, ...), in config order.
 */
async function checkBackends(config: CultureConfig): Promise<unknown[]> {
  const problems: unknown[] = [];
  const attempt = async (check: () => Promise<unknown>) => {
    try {
      await check();
    } catch (err) {
      problems.push(err);
    }
  };
  const configDir = config.filepath ? dirname(config.filepath) : process.cwd();
  for (const agent of config.agents) await attempt(() => resolveBackendForAgent(config, agent));
  const evaluator = config.supervisor?.agent;
  if (evaluator && evaluator !== "command") {
    await attempt(async () => {
      const loaded = await loadBackend(evaluator, { configDir, ...(config.filepath ? { configFile: config.filepath } : {}) });
      if (!loaded.definition.createEvaluator) {
        throw new CultureError(
          "E_BACKEND_INVALID",
          `supervisor.agent is "${evaluator}", but the backend ${loaded.packageName ?? loaded.path} has no evaluator (createEvaluator).\n` +
            `Pick a backend that has one, or use supervisor.agent: command with supervisor.command.`,
        );
      }
    });
  }
  await attempt(() => loadPlugins(config.plugins, configDir, config.filepath ? { configFile: config.filepath } : {}));
  return problems;
}

/** The backends of a config file that failed validation, checked from the entries as written. */
async function checkRawBackends(file: string): Promise<unknown[]> {
  const problems: unknown[] = [];
  for (const entry of readAgentEntries(file, AGENT_COMMON_KEYS)) {
    if (!entry.agent || !entry.nick) continue;
    try {
      const loaded = await loadBackend(entry.agent, { configDir: dirname(file), nick: entry.nick, configFile: file });
      parseBackendOptions(loaded.definition, { nick: entry.nick, options: entry.options } as AgentConfig, file);
    } catch (err) {
      problems.push(err);
    }
  }
  return problems;
}
