/**
 * The supervisor's evaluator (`supervisor.agent: myagent` in agents.yaml): one completion per
 * evaluation — the supervisor's prompt in, a verdict (`OK`, `CORRECTION <message>`, ...) out.
 * It runs the same agent CLI once, in its one-shot mode (`command` + `evaluate_args`), through
 * culture's command evaluator: the prompt on stdin, the verdict on stdout, cancelled on timeout.
 */
import { createCommandEvaluator, type Evaluator, type EvaluatorContext } from "@culture/core";
import { agentCommand, type Options } from "./options.js";

/** Creates the evaluator: the agent CLI with `evaluate_args`, run once per evaluation. */
export function createAgentCliEvaluator(ctx: EvaluatorContext<Options>): Evaluator {
  const command = [...agentCommand(ctx.options), ...ctx.options.evaluate_args];
  if (ctx.model) command.push("--model", ctx.model);
  return createCommandEvaluator({ command, cwd: ctx.directory, env: ctx.env, logger: ctx.logger });
}
