/**
 * The AgentRunner of the Copilot backend: one Copilot runtime process (started by
 * `@github/copilot-sdk` over stdio), one session.
 *
 * The session is created with the model, the reasoning effort for `thinking`, culture's agent
 * prompt appended to Copilot's own system message, the agent's directory, a permission
 * handler (CopilotPermissions: approves everything with `permissions.mode: bypass`, else asks
 * the daemon) and two hooks: after every tool call the runtime asks the postToolUse(/Failure)
 * hook, which reports the call to the supervisor and hands the agent the supervisor's queued
 * whispers as additional context. Each prompt is one
 * `session.send`; the turn ends at `session.idle`. After a crash the daemon passes the old
 * session id, and the conversation is resumed with `resumeSession`.
 */
import { ircMcpServers } from "./irc-mcp-server.js";
import {
  ManagedRunner,
  agentExited,
  agentProtocolError,
  announceRetry,
  errorMessage,
  isCultureError,
  type CultureError,
  type RunnerContext,
  type Whisper,
} from "@culture/core";
import {
  CopilotClient,
  type CopilotSession,
  type SessionConfig,
  type SessionEvent,
} from "@github/copilot-sdk";
import { createRequire } from "node:module";
import { byokClientOptions, byokSessionOptions } from "./byok-provider.js";
import { authError, callFailureRetry, copilotAuthRequired, isAuthError, looksLikeAuthFailure, sessionError, startError } from "./copilot-errors.js";
import type { CopilotOptions } from "./copilot-options.js";
import { CopilotPermissions } from "./copilot-permissions.js";
import { findRuntime } from "./find-runtime.js";
import { chooseEffort, type ReasoningEffort } from "./reasoning-effort.js";
import { runtimeConnection } from "./runtime-connection.js";
import { runtimeEnv } from "./runtime-env.js";
import { exitCodeOf, runtimeProcessOf } from "./runtime-process.js";
import { TurnNormalizer, type ToolHookReport } from "./turn-normalizer.js";

/** Tunables of {@link CopilotRunner} (tests shorten them). */
export interface CopilotRunnerSettings {
  /** How long `stop()` lets the SDK shut the runtime down before killing it. Default 3000 ms. */
  stopGraceMs?: number;
  /**
   * How long a `session.error` may stand with no further activity before the turn is failed
   * (the runtime normally ends the turn with `session.idle` first). Default 5000 ms.
   */
  errorSettleMs?: number;
}

interface Turn {
  /** The prompt sent: its `user.message` event marks where this turn's events begin. */
  prompt: string;
  /** The id `session.send` returned (null until it has returned). */
  messageId: string | null;
  /** Whether the turn's own `user.message` has arrived; events before it belong to an earlier turn. */
  begun: boolean;
  normalizer: TurnNormalizer;
  done: Promise<void>;
  settled: boolean;
  settleTimer: NodeJS.Timeout | null;
  /** Model calls of this turn the runtime is retrying. */
  retries: number;
  resolve(): void;
  reject(err: unknown): void;
}

/** Runs the GitHub Copilot runtime for one culture agent. */
export class CopilotRunner extends ManagedRunner {
  private client: CopilotClient | null = null;
  private session: CopilotSession | null = null;
  private command: string[] = ["copilot"];
  private currentSessionId: string | null = null;
  /** Counts start()s, so an old runtime's exit is never taken for the current one's. */
  private generation = 0;
  /** Resolves with the current runtime's exit code. */
  private exit: Promise<number> | null = null;
  private turn: Turn | null = null;
  /** Serializes event and hook handling (onMessage calls stay in order). */
  private events: Promise<void> = Promise.resolve();
  private readonly stopGraceMs: number;
  private readonly errorSettleMs: number;
  private readonly permissions: CopilotPermissions;

  /** @param ctx What the daemon gives a runner; `ctx.options` are the parsed Copilot fields. */
  constructor(
    private readonly ctx: RunnerContext<CopilotOptions>,
    settings: CopilotRunnerSettings = {},
  ) {
    super(ctx.logger);
    this.stopGraceMs = settings.stopGraceMs ?? 3_000;
    this.errorSettleMs = settings.errorSettleMs ?? 5_000;
    this.permissions = new CopilotPermissions({ permissions: ctx.permissions, requestPermission: (r) => ctx.requestPermission(r), logger: ctx.logger });
  }

  /** The Copilot session id (kept after the runtime exits, so a new runner can resume it). */
  get sessionId(): string | null {
    return this.currentSessionId;
  }

  /**
   * Starts the runtime, checks it is signed in, creates (or resumes) the session; then runs
   * `initialPrompt`, if any, as a normal turn. Throws E_AGENT_COMMAND_NOT_FOUND (no runtime),
   * E_AGENT_AUTH (not signed in), E_AGENT_EXITED or E_AGENT_PROTOCOL.
   */
  protected override async startAgent(initialPrompt?: string): Promise<void> {
    const generation = ++this.generation;
    let client: CopilotClient | null = null;
    try {
      const env = runtimeEnv(this.ctx.env, this.ctx.options.env);
      const runtime = await findRuntime(this.ctx.options, env, this.ctx.directory);
      if (this.ctx.options.provider && !this.ctx.model) {
        this.logger.warn("a BYOK provider without a model: the runtime asks the provider for its own default model (claude-sonnet-4 in runtime 1.0.85); set model: to a model your provider serves");
      }
      this.command = [runtime.path];
      this.checkStopped();
      client = new CopilotClient({
        connection: runtimeConnection(runtime.path, env, this.ctx.directory, this.ctx.sandbox),
        workingDirectory: this.ctx.directory,
        clientInfo: { applicationName: "culture", applicationVersion: VERSION },
        ...byokClientOptions(this.ctx.options),
      });
      this.client = client;
      await client.start().catch((err: unknown) => {
        throw startError(this.command, err);
      });
      this.watchExit(client, generation);
      this.checkStopped();
      await this.checkSignedIn(client, env);
      this.checkStopped();
      const session = await this.openSession(client);
      this.checkStopped();
      this.session = session;
      this.currentSessionId = session.sessionId;
      this.setRunning(true);
      this.logger.info("the Copilot session is ready", {
        sessionId: session.sessionId,
        runtime: runtime.path,
        source: runtime.source,
        pid: runtimeProcessOf(client)?.pid,
      });
    } catch (err) {
      this.setRunning(false);
      this.session = null;
      this.client = null;
      if (client) await this.shutdown(client);
      if (this.stopRequested && !isCultureError(err)) throw new Error("CopilotRunner: stop() was called during start()", { cause: err });
      throw err;
    }
    if (initialPrompt?.trim()) await this.sendPrompt(initialPrompt);
  }

  /** Aborts the current turn (`session.abort`); its sendPrompt resolves at the following idle. */
  override async interrupt(): Promise<void> {
    const session = this.session;
    if (!this.turn || !session) return;
    this.logger.info("aborting the current turn");
    this.permissions.withdrawAll();
    await this.guard(session.abort(), "session.abort");
  }

  /** Asks the runtime to compact the session's history. */
  override async compact(): Promise<void> {
    const session = this.session;
    if (!session) throw new Error("CopilotRunner.compact(): the agent is not running");
    await this.guard(session.rpc.history.compact(), "session.history.compact");
  }

  /**
   * Stops the runtime: the SDK detaches the session and shuts the runtime down; after the
   * grace period it is killed. Idempotent. An exit caused by stop() is not reported to onExit.
   */
  protected override async stopAgent(): Promise<void> {
    const client = this.client;
    if (!client) return;
    try {
      this.permissions.withdrawAll();
      this.failTurn(new Error("CopilotRunner: the agent was stopped during the turn"));
      await this.shutdown(client);
      this.logger.info("the Copilot runtime stopped");
    } finally {
      this.client = null;
      this.session = null;
    }
  }

  /** Whether start() has a runtime client that stop() must end. */
  protected override hasAgent(): boolean {
    return this.client !== null;
  }

  // ---------------------------------------------------------------- startup

  private checkStopped(): void {
    this.throwIfStopRequested();
  }

  private watchExit(client: CopilotClient, generation: number): void {
    const child = runtimeProcessOf(client);
    if (!child) {
      this.exit = null;
      this.logger.warn("cannot watch the Copilot runtime process (SDK internals changed): crashes will not be detected");
      return;
    }
    const exit = exitCodeOf(child);
    this.exit = exit;
    void exit.then((code) => this.onRuntimeExit(generation, code));
  }

  /**
   * Not signed in is found out here, before a session exists, so the daemon gets E_AGENT_AUTH
   * from start() instead of a failed first turn. Bring-your-own-key setups
   * (`provider:`, COPILOT_PROVIDER_BASE_URL, COPILOT_OFFLINE) need no GitHub sign-in and are not checked.
   */
  private async checkSignedIn(client: CopilotClient, env: Record<string, string>): Promise<void> {
    if (this.ctx.options.provider || env.COPILOT_PROVIDER_BASE_URL || /^(1|true|yes|on)$/i.test(env.COPILOT_OFFLINE ?? "")) return;
    let status;
    try {
      status = await this.guard(client.getAuthStatus(), "auth.getStatus");
    } catch (err) {
      if (isCultureError(err)) throw err;
      this.logger.debug("the runtime does not report its sign-in state; not checking it", { error: errorMessage(err) });
      return;
    }
    if (!status.isAuthenticated) throw copilotAuthRequired(this.command, status.statusMessage ?? "the runtime is not signed in");
    this.logger.info("the Copilot runtime is signed in", { login: status.login, authType: status.authType });
  }

  /** Resumes the previous session when there is one (falling back to a new one), else creates one. */
  private async openSession(client: CopilotClient): Promise<CopilotSession> {
    const config = await this.sessionConfig(client);
    const previous = this.currentSessionId ?? this.ctx.previousSessionId;
    if (previous) {
      try {
        const session = await this.withEffortRetry(config, (c) => this.guard(client.resumeSession(previous, c), "session.resume"));
        this.logger.info("resumed the Copilot session", { sessionId: previous });
        return session;
      } catch (err) {
        if (isCultureError(err)) throw err;
        if (looksLikeAuthFailure(err)) throw this.authError(errorMessage(err), err);
        this.logger.warn("could not resume the previous Copilot session; starting a new one", { sessionId: previous, error: errorMessage(err) });
      }
    }
    try {
      return await this.withEffortRetry(config, (c) => this.guard(client.createSession(c), "session.create"));
    } catch (err) {
      if (isCultureError(err)) throw err;
      if (looksLikeAuthFailure(err)) throw this.authError(errorMessage(err), err);
      throw agentProtocolError(this.command, "session.create", err);
    }
  }

  /** Runs `open`; when the runtime refuses the reasoning effort, once more without it. */
  private async withEffortRetry(config: SessionConfig, open: (config: SessionConfig) => Promise<CopilotSession>): Promise<CopilotSession> {
    try {
      return await open(config);
    } catch (err) {
      if (config.reasoningEffort === undefined || isCultureError(err) || !/reasoning effort/i.test(errorMessage(err))) throw err;
      this.logger.warn("the runtime refused the reasoning effort; using the model's default", { error: errorMessage(err) });
      config.reasoningEffort = undefined;
      return open(config);
    }
  }

  private async sessionConfig(client: CopilotClient): Promise<SessionConfig> {
    const ircServers = ircMcpServers(this.ctx.nick, this.ctx.agent.irc_tools, this.ctx.env);
    return {
      clientName: "culture",
      ...(this.ctx.model ? { model: this.ctx.model } : {}),
      reasoningEffort: await this.pickEffort(client),
      // Append: Copilot keeps its own system message (tools, safety); culture's prompt follows it.
      systemMessage: { mode: "append", content: this.ctx.systemPrompt },
      workingDirectory: this.ctx.directory,
      ...(ircServers ? { mcpServers: ircServers } : {}),
      // BYOK: the provider again on every create AND resume (the runtime does not keep it).
      ...byokSessionOptions(this.ctx.options),
      onPermissionRequest: (request) => this.permissions.handle(request),
      hooks: {
        onPostToolUse: (input) =>
          this.onToolHook({ toolName: input.toolName, toolArgs: input.toolArgs, result: input.toolResult?.textResultForLlm ?? "", isError: false }),
        onPostToolUseFailure: (input) =>
          this.onToolHook({ toolName: input.toolName, toolArgs: input.toolArgs, result: input.error, isError: true }),
      },
      onEvent: (event) => this.onSessionEvent(event),
    };
  }

  private async pickEffort(client: CopilotClient): Promise<ReasoningEffort | undefined> {
    if (this.ctx.thinking === "none") return undefined;
    if (!this.ctx.model) {
      this.logger.debug("no model configured: the runtime's default model with its default reasoning effort");
      return undefined;
    }
    const model = this.ctx.model;
    const models = await this.guard(client.listModels(), "models.list").catch((err: unknown) => {
      if (isCultureError(err)) throw err;
      this.logger.debug("models.list failed; sending no reasoning effort", { error: errorMessage(err) });
      return null;
    });
    if (!models) return undefined;
    const choice = chooseEffort(this.ctx.thinking, models.find((m) => m.id === model));
    this.logger.debug("reasoning effort", { effort: choice.effort ?? "(model default)", reason: choice.reason });
    return choice.effort;
  }

  // ---------------------------------------------------------------- turns

  /** One user turn; resolves at its `session.idle`, after its messages. */
  protected override async runTurn(text: string): Promise<void> {
    const session = this.session;
    if (!session || !this.isRunning()) throw new Error("CopilotRunner: the agent is not running");
    // Events that arrived before this turn (the end of an aborted one) are not its.
    await this.drainEvents();
    const turn = newTurn(text, this.ctx.model ?? undefined);
    this.turn = turn;
    try {
      turn.messageId = await this.guard(session.send({ prompt: text }), "session.send").catch((err: unknown) => {
        throw this.turnError(err, "session.send");
      });
      await turn.done;
    } catch (err) {
      if (turn.settleTimer) clearTimeout(turn.settleTimer);
      turn.settled = true;
      throw err;
    } finally {
      if (this.turn === turn) this.turn = null;
    }
  }

  private authError(detail: string, cause: unknown): CultureError {
    return authError(this.command, this.ctx.options.provider, detail, cause);
  }

  private turnError(err: unknown, during: string): unknown {
    if (isCultureError(err)) return err;
    if (this.stopRequested) return new Error("CopilotRunner: the agent was stopped during the turn", { cause: err });
    if (looksLikeAuthFailure(err)) return this.authError(errorMessage(err), err);
    return agentProtocolError(this.command, during, err);
  }

  private onSessionEvent(event: SessionEvent): void {
    this.permissions.observe(event);
    if (event.type === "session.error") {
      this.logger.warn(`Copilot session error: ${event.data.message}`, {
        errorType: event.data.errorType,
        statusCode: event.data.statusCode,
        agentId: event.agentId,
        inTurn: this.turn !== null,
      });
    } else if (event.type === "model.call_failure") {
      this.onCallFailure(event.data);
    } else if (event.type === "session.warning") {
      this.logger.warn(`Copilot session warning: ${event.data.message}`);
    } else if (event.type === "session.usage_info") {
      // How full the context window is (core's context care), in or out of a turn.
      const { currentTokens, tokenLimit } = event.data;
      if (Number.isFinite(currentTokens) && currentTokens > 0) {
        this.enqueue(() => this.emit({ type: "assistant", content: [], context: { usedTokens: currentTokens, windowTokens: tokenLimit > 0 ? tokenLimit : null } }));
      }
    }
    this.enqueue(() => this.handleEvent(event));
  }

  /** A failed model call the runtime retries by itself: the daemon hears of it (the asker, once the waits get long). */
  private onCallFailure(data: { statusCode?: number; errorMessage?: string }): void {
    const turn = this.turn;
    const failure = callFailureRetry(data);
    this.logger.info("a model call failed", { statusCode: data.statusCode, retried: failure !== null, inTurn: turn !== null, error: data.errorMessage?.slice(0, 200) });
    if (!turn || turn.settled || !failure) return;
    announceRetry(this.ctx.retrying, failure, ++turn.retries, null);
  }

  private async handleEvent(event: SessionEvent): Promise<void> {
    const turn = this.turn;
    if (!turn || turn.settled) return;
    if (!turn.begun) {
      if (event.type === "user.message" && isOwnMessage(turn, event.data)) {
        turn.begun = true;
      } else if (event.type !== "session.error") {
        // The runtime ends a failed turn with session.error and sends its session.idle later,
        // possibly after the next prompt was sent: that idle must not end the next turn.
        if (event.type === "session.idle") this.logger.debug("ignoring a session.idle of an earlier turn");
        return;
      }
    }
    if (event.type === "session.error" && !event.agentId && isAuthError(event.data)) {
      this.settle(turn, sessionError(this.command, event.data, this.ctx.options.provider));
      return;
    }
    for (const message of turn.normalizer.push(event)) await this.emit(message);
    if (turn.normalizer.error === null && turn.settleTimer) {
      this.logger.info("the agent carried on after the session error");
      clearTimeout(turn.settleTimer);
      turn.settleTimer = null;
    }
    if (event.type === "session.error" && turn.normalizer.error && !turn.settleTimer) {
      turn.settleTimer = setTimeout(() => this.enqueue(() => this.endTurn(turn)), this.errorSettleMs);
    }
    if (event.type === "session.idle" && (event.data.mode as string | undefined) !== "autopilot") await this.endTurn(turn);
  }

  private async endTurn(turn: Turn): Promise<void> {
    if (turn.settled) return;
    const final = turn.normalizer.finish();
    if (final) await this.emit(final);
    const error = turn.normalizer.error;
    this.settle(turn, error ? sessionError(this.command, error, this.ctx.options.provider) : null);
  }

  private settle(turn: Turn, error: CultureError | Error | null): void {
    if (turn.settled) return;
    turn.settled = true;
    if (turn.settleTimer) clearTimeout(turn.settleTimer);
    turn.settleTimer = null;
    if (error) turn.reject(error);
    else turn.resolve();
  }

  private failTurn(error: Error): void {
    if (this.turn) this.settle(this.turn, error);
  }

  /**
   * postToolUse(/Failure): reports the call's result to the supervisor (through onMessage),
   * then delivers the whispers waiting for the agent as the hook's additional context.
   */
  private async onToolHook(report: ToolHookReport): Promise<{ additionalContext: string } | undefined> {
    await this.enqueue(async () => {
      const turn = this.turn;
      if (!turn || turn.settled) {
        this.logger.debug("a tool hook outside a turn", { tool: report.toolName });
        return;
      }
      for (const message of turn.normalizer.pushToolHook(report)) await this.emit(message);
    });
    const whispers = this.ctx.takeWhispers();
    if (whispers.length === 0) return undefined;
    this.logger.info("delivering supervisor whispers at a tool boundary", { count: whispers.length });
    return { additionalContext: formatWhispers(whispers) };
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.events.then(task).catch((err: unknown) => {
      this.logger.error("handling a Copilot event failed", { error: errorMessage(err) });
    });
    this.events = run;
    return run;
  }

  /** Waits until every event received so far has been handled. */
  private async drainEvents(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    await this.events;
  }

  // ---------------------------------------------------------------- exits

  /** Rejects with E_AGENT_EXITED when the runtime dies before `promise` settles. */
  private guard<T>(promise: Promise<T>, during: string): Promise<T> {
    const exit = this.exit;
    const command = this.command;
    if (!exit) return promise;
    return new Promise<T>((resolve, reject) => {
      promise.then(resolve, reject);
      void exit.then((code) => reject(agentExited(command, code, during)));
    });
  }

  private async onRuntimeExit(generation: number, code: number): Promise<void> {
    // Ours (stop), an old runtime's, or during start() (start() rejects instead).
    if (generation !== this.generation || this.stopRequested || !this.isRunning()) return;
    this.setRunning(false);
    const client = this.client;
    this.client = null;
    this.session = null;
    this.permissions.withdrawAll();
    this.failTurn(agentExited(this.command, code, "a turn"));
    // Clears the SDK's connection and timers; the process is already gone.
    void client?.forceStop().catch(() => undefined);
    await this.reportExit(code);
  }

  /** client.stop() within the grace period, else forceStop() (SIGKILL). */
  private async shutdown(client: CopilotClient): Promise<void> {
    const child = runtimeProcessOf(client);
    let timer: NodeJS.Timeout | undefined;
    const graceful = client.stop().then(
      (errors) => {
        for (const e of errors) this.logger.debug("Copilot shutdown", { error: e.message });
        return true;
      },
      (err: unknown) => {
        this.logger.debug("Copilot shutdown failed", { error: errorMessage(err) });
        return false;
      },
    );
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.stopGraceMs);
    });
    const ok = await Promise.race([graceful, timedOut]);
    clearTimeout(timer);
    if (!ok) {
      this.logger.warn(`the Copilot runtime did not shut down within ${this.stopGraceMs} ms; killing it`);
      await client.forceStop().catch(() => undefined);
    }
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await exitCodeOf(child);
    }
  }
}

/** The whispers as the agent sees them: the same `[SUPERVISOR/<TYPE>] message` lines as the CLI prints. */
export function formatWhispers(whispers: readonly Whisper[]): string {
  return whispers.map((w) => `[SUPERVISOR/${w.action}] ${w.message}`).join("\n");
}

/** Whether a `user.message` is the turn's prompt: by the id session.send returned, else (not returned yet) by its text. */
function isOwnMessage(turn: Turn, data: { messageId?: string; content: string }): boolean {
  return data.messageId && turn.messageId ? data.messageId === turn.messageId : data.content === turn.prompt;
}

function newTurn(prompt: string, model: string | undefined): Turn {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const done = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Settled by events or by stop/exit; awaited by runTurn unless session.send failed first.
  done.catch(() => undefined);
  return { prompt, messageId: null, begun: false, normalizer: new TurnNormalizer(model), done, settled: false, settleTimer: null, retries: 0, resolve, reject };
}

const VERSION: string = (createRequire(import.meta.url)("../package.json") as { version: string }).version;
