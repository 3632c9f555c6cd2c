/**
 * The supervisor's evaluator on Claude: each evaluation is a one-shot `query()` with the
 * supervisor's model and system prompt, one model turn (`maxTurns: 1`) and no tools at all, so
 * the supervisor can judge but never act, and never shares a context with the agent it
 * watches. The AbortSignal of the request aborts the query (and kills the CLI).
 */
import { query } from "@anthropic-ai/claude-agent-sdk";
import { agentAuthRequired, errorMessage, type CultureError, type EvaluationRequest, type Evaluator, type EvaluatorContext } from "@culture/core";
import { CLAUDE_LOGIN_METHODS, classifyTurnFailure, isAuthRetry, type ApiErrorMessage } from "./claude-errors.js";
import { describeExecutable, resolveClaudeExecutable, type ClaudeExecutable } from "./claude-executable.js";
import { claudeOptionsSchema, type ClaudeOptions } from "./claude-options.js";
import { normalizeSdkMessage, type TurnResult } from "./sdk-message-normalizer.js";
import { evaluationOptions } from "./sdk-options.js";

/** Creates an evaluator that asks a fresh, tool-less Claude Code query for each verdict. */
export function createClaudeEvaluator(ctx: EvaluatorContext<ClaudeOptions>): Evaluator {
  const logger = ctx.logger.child("claude-evaluator");
  // The supervised agent may use another backend: then these are the Claude defaults.
  const options = claudeOptionsSchema.parse(ctx.options ?? {});
  let command = describeExecutable(options.executable);
  const live = new Set<AbortController>();
  let executable: ClaudeExecutable | null = null;

  return {
    async evaluate(request: EvaluationRequest): Promise<string> {
      request.signal.throwIfAborted();
      executable ??= await resolveClaudeExecutable(options.executable, ctx.env.PATH, ctx.directory);
      command = describeExecutable(options.executable, executable);
      const abortController = new AbortController();
      const onAbort = () => abortController.abort(request.signal.reason);
      request.signal.addEventListener("abort", onAbort, { once: true });
      live.add(abortController);
      const stderr: string[] = [];
      let text = "";
      let result: TurnResult | null = null;
      let apiError: ApiErrorMessage | null = null;
      let authFailure: CultureError | null = null;
      try {
        const q = query({
          prompt: request.prompt,
          options: evaluationOptions({
            directory: ctx.directory,
            executable,
            options,
            env: ctx.env,
            model: ctx.model,
            thinking: ctx.supervisor?.thinking ?? "medium",
            systemPrompt: request.systemPrompt,
            abortController,
            stderr: (data) => {
              for (const line of data.split("\n")) if (line.trim()) stderr.push(line);
            },
          }),
        });
        for await (const raw of q) {
          const n = normalizeSdkMessage(raw);
          if (n.kind === "message") {
            for (const block of n.message.content) if (block.type === "text") text += block.text;
          } else if (n.kind === "api-error") {
            apiError = { error: n.error, text: n.text };
          } else if (n.kind === "result") {
            result = n.result;
          } else if (n.kind === "api-retry" && isAuthRetry(n.error, n.status)) {
            // Claude Code retries a 401 for minutes: no retry fixes a bad key.
            authFailure = agentAuthRequired(command, CLAUDE_LOGIN_METHODS, new Error(`the API answered ${n.status ?? "an authentication error"}${n.error ? ` (${n.error})` : ""}`));
            abortController.abort(authFailure);
            break;
          }
        }
      } catch (err) {
        request.signal.throwIfAborted();
        if (authFailure) throw authFailure;
        logger.warn("the evaluation failed", { error: errorMessage(err), stderr: stderr.slice(-5).join(" | ") });
        throw err;
      } finally {
        request.signal.removeEventListener("abort", onAbort);
        live.delete(abortController);
      }
      request.signal.throwIfAborted();
      if (authFailure) throw authFailure;
      if (!result) throw new Error("Claude Code ended the evaluation without a result");
      if (result.isError && result.subtype !== "error_max_turns") {
        const failure = classifyTurnFailure(result, apiError, command);
        throw failure.kind === "fatal" ? failure.error : new Error(`a temporary API error: ${failure.detail}`);
      }
      return (result.subtype === "success" && result.text ? result.text : text).trim();
    },
    async close(): Promise<void> {
      for (const controller of live) controller.abort(new Error("the evaluator was closed"));
      live.clear();
    },
  };
}
