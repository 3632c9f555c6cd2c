/** The options of {@link AgentDaemon} (agent-daemon.ts). */
import type { BackendDefinition } from "../backend.js";
import type { CultureConfig } from "../config/schema.js";
import type { DaemonHooks } from "../hooks.js";
import type { Logger } from "../logger.js";
import type { AgentDaemon } from "./agent-daemon.js";
import type { DaemonTimings } from "./daemon-timings.js";

/** Options of {@link AgentDaemon}. */
export interface AgentDaemonOptions {
  config: CultureConfig;
  nick: string;
  /** The agent's backend, already loaded, with its parsed options. */
  backend: BackendDefinition;
  backendOptions: unknown;
  /** Hooks-only plugins already loaded (config `plugins:`). */
  plugins?: Array<{ name: string; apply(hooks: DaemonHooks, ctx: { nick: string; logger: Logger }): void }>;
  /** Loads a backend by name (for `supervisor.agent`). */
  loadBackend?: (name: string) => Promise<BackendDefinition>;
  logger?: Logger;
  env?: NodeJS.ProcessEnv;
  /** Write `$CULTURE_HOME/pids/agent-<nick>.pid` (default true). */
  writePidFile?: boolean;
  /** Keep the durable prompt journal and the saved approval rules in the agent's state dir (default true). */
  journal?: boolean;
  /** Tuning for tests; production uses the defaults. */
  timings?: Partial<DaemonTimings>;
}
