/**
 * The backend plugin contract. A backend is a plain object made with `defineBackend` and
 * default-exported from a package (`@culture/backend-<name>`, `culture-backend-<name>`, or a
 * folder). Only `name`, `apiVersion`, `configSchema` and `createRunner` are required.
 */
import type { ZodType } from "zod";
import type { AgentRunnerBase } from "./agent-runner.js";
import type { PermissionDecision, PermissionRequest } from "./approvals/permission-request.js";
import type { AgentConfig, PermissionsConfig, SupervisorConfig, Thinking } from "./config/schema.js";
import type { CultureError } from "./errors.js";
import type { DaemonHooks } from "./hooks.js";
import type { RetryAnnouncement } from "./daemon/retry-notice.js";
import type { Logger } from "./logger.js";
import type { AgentSandbox } from "./sandbox/agent-sandbox.js";
import type { SandboxAgentPaths } from "./sandbox/sandbox-command.js";
import type { Evaluator, WhisperAction } from "./supervisor-base.js";

/** The backend API version this core implements. A backend declaring another is refused. */
export const BACKEND_API_VERSION = 1;

/** A whisper waiting to be delivered to the agent. */
export interface Whisper {
  action: WhisperAction;
  message: string;
}

/** What a runner gets from the daemon. */
export interface RunnerContext<Options = Record<string, unknown>> {
  nick: string;
  /** The agent's config entry (common fields). */
  agent: AgentConfig;
  /** The agent's working directory (absolute). */
  directory: string;
  channels: string[];
  /** The configured model, or the backend's default, or null (the agent's own default). */
  model: string | null;
  thinking: Thinking;
  /** culture's agent prompt (who you are on IRC, the `culture channel` commands) plus the user's `system_prompt`. */
  systemPrompt: string;
  /** The backend-specific fields, parsed by the backend's `configSchema`. */
  options: Options;
  /** The environment for the agent process: the daemon's, plus `CULTURE_NICK`. */
  env: Record<string, string | undefined>;
  logger: Logger;
  hooks: DaemonHooks;
  /**
   * The agent's effective permission policy (its own `permissions`, else the config's). With
   * mode `bypass` a backend lets its agent use every tool as before; otherwise it makes its
   * agent ask and routes each request through {@link RunnerContext.requestPermission}.
   */
  permissions: PermissionsConfig;
  /** The session id of the previous runner, when this one replaces a crashed one. */
  previousSessionId: string | null;
  /**
   * Takes the whispers waiting for delivery. A backend that can inject context at a tool
   * boundary (a PostToolUse hook, a steer) calls this; what it takes is not delivered again.
   */
  takeWhispers(): Whisper[];
  /**
   * Asks whether the agent may use a tool: the daemon applies the agent's `permissions:`
   * policy and, when it says ask, waits for an operator on IRC (or `culture approvals`).
   * Never rejects; a backend answers its agent with the decision (a denial's `reason` should
   * reach the model). Backends whose agent has no permission requests never call it.
   */
  requestPermission(request: PermissionRequest): Promise<PermissionDecision>;
  /**
   * A backend (or its agent) is retrying a model call that failed for now (rate limited,
   * overloaded, a 5xx, a dropped connection; `classifyAgentFailure` says which): the daemon
   * tells the asker once the waits get long (daemon/retry-notice.ts). Optional: absent in
   * contexts without a daemon. Never throws.
   */
  retrying?(retry: RetryAnnouncement): void;
  /**
   * The agent's sandbox (`sandbox:`), or null/absent for `none`. A backend spawns its agent
   * with `sandbox.command(argv, env)` (core's AgentProcess does it given `sandbox`).
   */
  sandbox?: AgentSandbox | null;
}

/** What an evaluator gets: the supervisor section and the supervised agent's context. */
export interface EvaluatorContext<Options = Record<string, unknown>> {
  nick: string;
  supervisor: SupervisorConfig;
  /** The supervisor's model, or the backend's default. */
  model: string | null;
  directory: string;
  /** The backend-specific fields of the supervised agent when it uses the same backend, else defaults. */
  options: Options;
  env: Record<string, string | undefined>;
  logger: Logger;
}

/** One line of `culture doctor`. */
export interface DoctorCheck {
  ok: boolean;
  /** What was checked, e.g. "claude executable". */
  name: string;
  /** What was found. */
  detail: string;
  /** How to fix it, when not ok (or when it is a warning). */
  fix?: string;
  /** Passes, but deserves attention (e.g. a less safe setting chosen on purpose). */
  warning?: boolean;
}

/** A backend plugin. */
export interface BackendDefinition<Options = any> {
  /** Short name; for packages found by name, the package suffix (`claude` for `@culture/backend-claude`). */
  name: string;
  /** The backend API version the backend was written for: {@link BACKEND_API_VERSION}. */
  apiVersion: number;
  /** Validates the agent entry's backend-specific fields (use `.strict()` so typos are caught). */
  configSchema: ZodType<Options>;
  /** Defaults the daemon applies when the agent entry leaves them out. */
  defaults?: { model?: string };
  /**
   * True when the backend gives its agent culture's IRC tools as MCP tools (honouring the
   * agent's `irc_tools`). Otherwise the agent prompt names only `culture channel`.
   */
  mcpIrcTools?: boolean;
  /**
   * The agent CLI's own config and session folders and files (absolute), which a sandbox binds
   * read-write, e.g. `{ dirs: [home + "/.codex"] }`. `home` is the agent's HOME. Without it a
   * sandboxed agent sees only its directory.
   */
  sandboxPaths?(options: Options, env: Record<string, string | undefined>, home: string): SandboxAgentPaths;
  /** Creates one runner per agent session. */
  createRunner(ctx: RunnerContext<Options>): AgentRunnerBase;
  /** Creates an evaluator for the supervisor (`supervisor.agent: <name>`). */
  createEvaluator?(ctx: EvaluatorContext<Options>): Evaluator;
  /** The SKILL.md that teaches the agent the `culture channel` commands, and where it is installed. */
  skill?: {
    path: URL;
    /** The directory the skill is copied to, given the user's home (e.g. `~/.claude/skills/irc`). */
    installDir?: (home: string) => string;
  };
  /**
   * A quick check, before the daemon starts the runner, that the agent can run at all (signed
   * in): no agent process, no network, a file or a variable at most. Returns the error a
   * restart cannot fix (E_AGENT_AUTH), or null. On an error the daemon stays up with the agent
   * "cannot run" (askers are told, `culture status` shows it, `culture start` exits 1) until an
   * operator fixes it and resumes.
   */
  preflight?(options: Options, env: Record<string, string | undefined>): Promise<CultureError | null> | CultureError | null;
  /** Checks for `culture doctor` (agent CLI present, signed in, ...). */
  doctor?(options: Options, env: Record<string, string | undefined>): Promise<DoctorCheck[]>;
  /** Taps daemon hooks. */
  apply?(hooks: DaemonHooks): void;
}

/** Identity helper that types a backend definition. */
export function defineBackend<Options>(definition: BackendDefinition<Options>): BackendDefinition<Options> {
  return definition;
}

/** A hooks-only plugin (config `plugins:`). */
export interface PluginDefinition {
  name: string;
  apply(hooks: DaemonHooks, context: { nick: string; logger: Logger }): void;
}

/** Identity helper that types a hooks-only plugin. */
export function definePlugin(definition: PluginDefinition): PluginDefinition {
  return definition;
}
