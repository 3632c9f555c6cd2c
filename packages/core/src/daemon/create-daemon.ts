/**
 * Builds an AgentDaemon from a config file and a nick: loads the config, resolves and loads
 * the agent's backend (validating its fields), and loads the hooks-only plugins. Everything
 * that can be wrong with the config fails here, before anything connects.
 */
import { dirname } from "node:path";
import { loadConfig } from "../config/load-config.js";
import type { CultureConfig } from "../config/schema.js";
import { loadBackend } from "../discovery/load-backend.js";
import { resolveBackendForAgent } from "../discovery/backend-options.js";
import { loadPlugins } from "../discovery/load-plugins.js";
import { agentNotFound } from "../errors.js";
import type { Logger } from "../logger.js";
import { AgentDaemon, type DaemonTimings } from "./agent-daemon.js";

/** Options of {@link createAgentDaemon}. */
export interface CreateAgentDaemonOptions {
  nick: string;
  /** A loaded config, or where to load it from. */
  config?: CultureConfig;
  configPath?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  writePidFile?: boolean;
  timings?: Partial<DaemonTimings>;
}

/** Loads everything an agent's daemon needs and returns it, not yet started. */
export async function createAgentDaemon(options: CreateAgentDaemonOptions): Promise<AgentDaemon> {
  const env = options.env ?? process.env;
  const config =
    options.config ??
    (await loadConfig({
      ...(options.configPath ? { configPath: options.configPath } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
      env,
    }));
  const agent = config.agents.find((a) => a.nick.toLowerCase() === options.nick.toLowerCase());
  if (!agent) throw agentNotFound(options.nick, config.filepath ?? "(config)", config.agents.map((a) => a.nick));
  const configDir = config.filepath ? dirname(config.filepath) : (options.cwd ?? process.cwd());
  const { loaded, options: backendOptions } = await resolveBackendForAgent(config, agent);
  const plugins = await loadPlugins(config.plugins, configDir);
  return new AgentDaemon({
    config,
    nick: agent.nick,
    backend: loaded.definition,
    backendOptions,
    plugins,
    loadBackend: async (name) => (await loadBackend(name, { configDir, ...(config.filepath ? { configFile: config.filepath } : {}) })).definition,
    env,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.writePidFile === undefined ? {} : { writePidFile: options.writePidFile }),
    ...(options.timings ? { timings: options.timings } : {}),
  });
}
