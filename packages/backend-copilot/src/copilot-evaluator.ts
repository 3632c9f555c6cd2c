/**
 * The supervisor's evaluator on Copilot: every evaluation is a short session of its own (a
 * fresh runtime, one session with the supervisor's model and its prompt as the whole system
 * message, one prompt, then the session is deleted and the runtime stopped), so the
 * supervisor never shares a context with the agent it watches. The session has no tools and
 * every permission request is refused: an evaluator only reads and answers.
 */
import { agentExited, errorMessage, isCultureError, type EvaluationRequest, type Evaluator, type EvaluatorContext } from "@culture/core";
import { CopilotClient, RuntimeConnection, type ErrorData, type SessionConfig } from "@github/copilot-sdk";
import { byokClientOptions, byokSessionOptions } from "./byok-provider.js";
import { authError, looksLikeAuthFailure, sessionError, startError } from "./copilot-errors.js";
import { copilotOptionsSchema, type CopilotOptions } from "./copilot-options.js";
import { findRuntime } from "./find-runtime.js";
import { chooseEffort } from "./reasoning-effort.js";
import { runtimeEnv } from "./runtime-env.js";
import { exitCodeOf, runtimeProcessOf } from "./runtime-process.js";

/** Tunables of {@link createCopilotEvaluator}. */
export interface CopilotEvaluatorSettings {
  /** How long the runtime may take to shut down after an evaluation. Default 2000 ms. */
  stopGraceMs?: number;
}

/** Creates an evaluator that asks a fresh Copilot session for each verdict. */
export function createCopilotEvaluator(ctx: EvaluatorContext<CopilotOptions>, settings: CopilotEvaluatorSettings = {}): Evaluator {
  const logger = ctx.logger.child("copilot-evaluator");
  const graceMs = settings.stopGraceMs ?? 2_000;
  const live = new Set<CopilotClient>();

  const stop = async (client: CopilotClient): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    const ok = await Promise.race([
      client.stop().then(
        () => true,
        () => false,
      ),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (!ok) await client.forceStop().catch(() => undefined);
  };

  return {
    async evaluate(request: EvaluationRequest): Promise<string> {
      request.signal.throwIfAborted();
      const options = copilotOptionsSchema.parse(ctx.options ?? {});
      const env = runtimeEnv(ctx.env, options.env);
      const runtime = await findRuntime(options, env, ctx.directory);
      const command = [runtime.path];
      const client = new CopilotClient({
        connection: RuntimeConnection.forStdio({ path: runtime.path, env }),
        workingDirectory: ctx.directory,
        clientInfo: { applicationName: "culture", integrationName: "supervisor" },
        ...byokClientOptions(options),
      });
      live.add(client);
      const onAbort = () => void client.forceStop().catch(() => undefined);
      request.signal.addEventListener("abort", onAbort, { once: true });
      try {
        await client.start().catch((err: unknown) => {
          throw startError(command, err);
        });
        const child = runtimeProcessOf(client);
        const died = child ? exitCodeOf(child) : new Promise<number>(() => undefined);
        const untilExit = <T>(promise: Promise<T>, during: string): Promise<T> =>
          new Promise<T>((resolve, reject) => {
            promise.then(resolve, reject);
            void died.then((code) => reject(agentExited(command, code, during)));
          });
        request.signal.throwIfAborted();

        const outcome: { reply: string; failure: ErrorData | null } = { reply: "", failure: null };
        let ended!: () => void;
        const idle = new Promise<void>((resolve) => (ended = resolve));
        const config: SessionConfig = {
          clientName: "culture-supervisor",
          ...(ctx.model ? { model: ctx.model } : {}),
          reasoningEffort: ctx.model ? await effortFor(client, ctx.model) : undefined,
          systemMessage: { mode: "replace", content: request.systemPrompt },
          availableTools: [],
          ...byokSessionOptions(options),
          workingDirectory: ctx.directory,
          onPermissionRequest: () => ({ kind: "reject" }),
          onEvent: (event) => {
            if (event.agentId) return;
            if (event.type === "assistant.message" && event.data.content) outcome.reply = event.data.content;
            else if (event.type === "session.error") {
              outcome.failure = event.data;
              ended();
            } else if (event.type === "session.idle") ended();
          },
        };
        const session = await untilExit(client.createSession(config), "session.create").catch(async (err: unknown) => {
          if (config.reasoningEffort === undefined || isCultureError(err) || !/reasoning effort/i.test(errorMessage(err))) throw err;
          config.reasoningEffort = undefined;
          return untilExit(client.createSession(config), "session.create");
        });
        await untilExit(session.send({ prompt: request.prompt }), "session.send");
        await untilExit(idle, "the evaluation");
        request.signal.throwIfAborted();
        if (outcome.failure) throw sessionError(command, outcome.failure, options.provider);
        // Evaluations are not conversations anyone resumes: do not leave them in the session list.
        await client.deleteSession(session.sessionId).catch((err: unknown) => logger.debug("could not delete the evaluation session", { error: errorMessage(err) }));
        return outcome.reply.trim();
      } catch (err) {
        request.signal.throwIfAborted();
        if (!isCultureError(err) && looksLikeAuthFailure(err)) throw authError(command, options.provider, errorMessage(err), err);
        throw err;
      } finally {
        request.signal.removeEventListener("abort", onAbort);
        await stop(client);
        live.delete(client);
      }
    },
    async close(): Promise<void> {
      await Promise.all([...live].map((client) => client.forceStop().catch(() => undefined)));
    },
  };

  async function effortFor(client: CopilotClient, model: string) {
    if (ctx.supervisor.thinking === "none") return undefined;
    const models = await client.listModels().catch(() => []);
    return chooseEffort(ctx.supervisor.thinking, models.find((m) => m.id === model)).effort;
  }
}

