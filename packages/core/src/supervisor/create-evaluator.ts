/**
 * Turns the `supervisor:` section into an evaluator. `agent: command` is built in; any other
 * name is a backend (found like an agent's `agent:`), so one backend can supervise an agent
 * of another (`supervisor.agent: codex` watching a claude agent).
 */
import type { BackendDefinition } from "../backend.js";
import type { SupervisorConfig } from "../config/schema.js";
import { evaluatorUnavailable } from "../errors.js";
import type { Logger } from "../logger.js";
import type { Evaluator } from "../supervisor-base.js";
import { createCommandEvaluator } from "./command-evaluator.js";

/** What {@link createEvaluator} needs from the daemon. */
export interface CreateEvaluatorContext {
  /** The supervised agent's nick (added to the evaluator's environment as `CULTURE_NICK`). */
  nick: string;
  /** The supervised agent's directory: the working directory of an evaluator command. */
  directory: string;
  /** The daemon's environment. */
  env: Record<string, string | undefined>;
  logger: Logger;
  /** Loads a backend by name (`supervisor.agent`); required for any agent other than `command`. */
  loadBackend?: (name: string) => Promise<BackendDefinition>;
  /** The supervised agent's backend: used as is when `supervisor.agent` names it, and then gets `agentOptions`. */
  agentBackend?: BackendDefinition;
  /** The supervised agent's backend-specific fields (parsed by its configSchema). */
  agentOptions?: unknown;
}

/** The evaluator for a `supervisor:` section, and its name for status (both null: deterministic signals only). */
export interface CreatedEvaluator {
  evaluator: Evaluator | null;
  name: string | null;
}

/**
 * Creates the supervisor's evaluator. No `supervisor:` section, or no `supervisor.agent`:
 * none. `command`: the command evaluator (`supervisor.command` required). Any other name:
 * that backend's `createEvaluator`.
 */
export async function createEvaluator(config: SupervisorConfig | null, ctx: CreateEvaluatorContext): Promise<CreatedEvaluator> {
  if (!config?.agent) return { evaluator: null, name: null };
  const agent = config.agent;
  const env = { ...ctx.env, CULTURE_NICK: ctx.nick };
  if (agent === "command") {
    if (!config.command) {
      throw evaluatorUnavailable(
        "command",
        "supervisor.command is not set.",
        'Add the argv of a program that reads the prompt on stdin and prints a verdict, e.g.\n  supervisor:\n    agent: command\n    command: ["ollama", "run", "llama3.2"]\nSee docs/supervisor.md.',
      );
    }
    return { evaluator: createCommandEvaluator({ command: config.command, cwd: ctx.directory, env, logger: ctx.logger }), name: "command" };
  }
  let backend: BackendDefinition;
  if (ctx.agentBackend && ctx.agentBackend.name === agent) backend = ctx.agentBackend;
  else if (ctx.loadBackend) backend = await ctx.loadBackend(agent);
  else throw evaluatorUnavailable(agent, "no backend loader is available here.", "This is a bug in the caller of createEvaluator: pass ctx.loadBackend.");
  if (typeof backend.createEvaluator !== "function") {
    throw evaluatorUnavailable(
      agent,
      `the backend "${backend.name}" does not provide an evaluator (it has no createEvaluator).`,
      "Use a backend that does (e.g. supervisor.agent: claude), or supervisor.agent: command with supervisor.command,\n" +
        "or remove supervisor.agent to supervise with the deterministic signals alone.",
    );
  }
  const options = backend === ctx.agentBackend ? ctx.agentOptions : defaultOptions(backend);
  const evaluator = backend.createEvaluator({
    nick: ctx.nick,
    supervisor: config,
    model: config.model ?? backend.defaults?.model ?? null,
    directory: ctx.directory,
    options,
    env,
    logger: ctx.logger,
  });
  return { evaluator, name: backend.name };
}

/** A backend's option defaults (its schema applied to `{}`), or `{}` when it has required fields. */
function defaultOptions(backend: BackendDefinition): unknown {
  const parsed = backend.configSchema.safeParse({});
  return parsed.success ? parsed.data : {};
}
