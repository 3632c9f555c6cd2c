/**
 * The supervisor's evaluator on Codex (`supervisor.agent: codex`): every evaluation is its own
 * short-lived app-server with an ephemeral thread (kept in memory, never written to the
 * user's session history), the supervisor's model, the supervisor's system prompt as
 * developer instructions, a read-only sandbox and approvals declined — it judges, it does not
 * act. One turn; the verdict is the turn's last agent message. An abort interrupts the turn
 * and kills the process.
 */
import { agentProtocolError, type EvaluationRequest, type Evaluator, type EvaluatorContext } from "@culture/core";
import { AppServerClient, type AppServerNotification } from "./app-server-client.js";
import { textInput, type TurnError } from "./app-server-protocol.js";
import { codexAuthRequired, failureOf, isAuthFailure, type CodexFailure } from "./codex-errors.js";
import { codexOptionsSchema, type CodexOptions } from "./codex-options.js";
import { appServerCommand } from "./codex-runner.js";
import { normalizeItem } from "./item-normalizer.js";
import { serverRequestHandler } from "./server-requests.js";

/** Tunables of {@link createCodexEvaluator}. */
export interface CodexEvaluatorSettings {
  /** How long to wait for the app-server to exit at the end of an evaluation. Default 2000 ms. */
  stopGraceMs?: number;
  /** How long a request (not the turn) may wait for its answer. Default 60000 ms. */
  requestTimeoutMs?: number;
}

/** Creates an evaluator that asks a fresh, ephemeral Codex thread for each verdict. */
export function createCodexEvaluator(ctx: EvaluatorContext<CodexOptions>, settings: CodexEvaluatorSettings = {}): Evaluator {
  const logger = ctx.logger.child("codex-evaluator");
  const graceMs = settings.stopGraceMs ?? 2_000;
  const live = new Set<AppServerClient>();

  return {
    async evaluate(request: EvaluationRequest): Promise<string> {
      const { signal } = request;
      signal.throwIfAborted();
      const options = codexOptionsSchema.parse(ctx.options ?? {});
      const command = appServerCommand(options);
      let threadId: string | null = null;
      let turnId: string | null = null;
      const deltas = new Map<string, string>();
      const texts: string[] = [];
      const failures: CodexFailure[] = [];
      let finish!: (end: { status: string; error: TurnError | null }) => void;
      const done = new Promise<{ status: string; error: TurnError | null }>((resolve) => {
        finish = resolve;
      });
      const onNotification = (n: AppServerNotification) => {
        if (n.method === "error") {
          if (!n.params.willRetry) failures.push({ message: n.params.error.message, codexErrorInfo: n.params.error.codexErrorInfo });
          return;
        }
        if (n.params.threadId !== threadId) return;
        if (n.method === "item/agentMessage/delta") deltas.set(n.params.itemId, (deltas.get(n.params.itemId) ?? "") + n.params.delta);
        else if (n.method === "item/completed" && n.params.item.type === "agentMessage") {
          const normalized = normalizeItem(n.params.item, deltas.get(n.params.item.id));
          if (normalized.kind === "blocks") for (const b of normalized.blocks) if (b.type === "text") texts.push(b.text);
        } else if (n.method === "turn/completed") finish({ status: n.params.turn.status, error: n.params.turn.error ?? null });
      };
      const client = await AppServerClient.spawn({
        command,
        cwd: ctx.directory,
        // Without CULTURE_NICK the evaluator cannot speak on IRC as the agent through
        // `culture channel` (which the agent's exec rule lets out of the sandbox): it judges only.
        env: { ...ctx.env, ...options.env, CULTURE_NICK: undefined },
        logger,
        ...(settings.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: settings.requestTimeoutMs }),
        onNotification,
        onServerRequest: serverRequestHandler("decline", logger),
      });
      live.add(client);
      let rejectAborted!: (reason: unknown) => void;
      const aborted = new Promise<never>((_, reject) => {
        rejectAborted = reject;
      });
      aborted.catch(() => undefined);
      // The turn is interrupted and the process killed in `finally`; the caller hears at once.
      const onAbort = () => rejectAborted(signal.reason ?? new Error("the evaluation was aborted"));
      signal.addEventListener("abort", onAbort, { once: true });
      if (signal.aborted) onAbort();
      const step = <T>(promise: Promise<T>): Promise<T> => Promise.race([promise, aborted]);
      try {
        await step(client.initialize({ name: "culture-supervisor", title: "culture supervisor", version: "1" }));
        const thread = await step(
          client.request("thread/start", {
            ...(ctx.model ? { model: ctx.model } : {}),
            cwd: ctx.directory,
            ...(request.systemPrompt.trim() ? { developerInstructions: request.systemPrompt } : {}),
            approvalPolicy: "never",
            sandbox: "read-only",
            // As the agent's threads: commands get the daemon's environment (no login shell).
            config: { allow_login_shell: false },
            ephemeral: true,
          }),
        );
        threadId = thread.thread.id;
        const turn = await step(client.request("turn/start", { threadId, input: [textInput(request.prompt)] }));
        turnId = turn.turn.id;
        const end = await step(Promise.race([done, client.exited.then((code) => ({ exit: code }))]));
        if ("exit" in end) throw client.exitError("an evaluation");
        if (end.status === "failed") {
          const failure = end.error ?? failures.at(-1) ?? { message: "the turn failed (no reason given)" };
          if (isAuthFailure(failure) || failures.some(isAuthFailure)) throw codexAuthRequired(command, new Error(failure.message));
          throw agentProtocolError(command, "the evaluation turn", new Error(failure.message));
        }
        return (texts.at(-1) ?? "").trim();
      } catch (err) {
        signal.throwIfAborted();
        const failure = failureOf(err);
        if (failure && isAuthFailure(failure)) throw codexAuthRequired(command, err);
        if (failure) throw agentProtocolError(command, "an evaluation request", err);
        throw err;
      } finally {
        signal.removeEventListener("abort", onAbort);
        if (signal.aborted) {
          if (threadId && turnId && client.exitCode === null) {
            await Promise.race([client.request("turn/interrupt", { threadId, turnId }, { timeoutMs: graceMs }).catch(() => undefined), client.exited]);
          }
          await client.kill();
        } else {
          await client.shutdown(graceMs);
        }
        live.delete(client);
      }
    },
    async close(): Promise<void> {
      await Promise.all([...live].map((client) => client.kill()));
    },
  };
}
