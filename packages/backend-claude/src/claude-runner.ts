/**
 * The AgentRunner of the Claude backend: one long-lived Claude Code session per runner,
 * driven through the Claude Agent SDK's streaming input mode (one `query()` over a
 * {@link PromptQueue}, one user message per turn), not one `query()` per prompt: the CLI
 * process, its context and its prompt cache live as long as the runner.
 *
 * Turns are serialized: a user message is written only after the previous turn's `result`, so
 * every message between a `sendPrompt` and its resolution belongs to that prompt. Turns that
 * fail with a temporary API error are retried here with backoff (they are not crashes); a
 * failure a retry cannot fix rejects `sendPrompt` with a CultureError (E_AGENT_AUTH when Claude
 * Code is not signed in; Claude Code retries even a 401 for minutes, so the runner ends such a
 * turn at Claude Code's first retry notice). The exit code reported to `onExit` is read from
 * the Claude Code process itself (claude-process.ts), not from the SDK's error. Only an exit of the CLI that culture did not ask for reaches
 * `onExit`. After a crash the daemon passes the old session id, and the new runner resumes
 * that session (`--resume`) when `resume_on_restart` is on.
 *
 * Supervisor whispers are delivered at tool boundaries through a PostToolUse hook's
 * `additionalContext`. The hook does not report tool calls to `onMessage`: the stream
 * already carries each `tool_use` (as the model makes it) and each `tool_result` (as the tool
 * returns), so the supervisor sees every call as it happens, failed and refused calls
 * included, without duplicates.
 *
 * Approvals: when culture's `permissions` ask, Claude Code runs in `default` mode and its
 * permission prompts go to the daemon (`canUseTool` and a PreToolUse hook, claude-permissions.ts).
 */
import type { DaemonLink } from "@culture/core/irc-tools";
import { ircDaemonLink, ircMcpServer } from "./irc-mcp-server.js";
import { query, type HookCallback, type HookInput, type HookJSONOutput, type Query, type SDKUserMessage } from "@anthropic-ai/claude-agent-sdk";
import {
  ManagedRunner,
  agentAuthRequired,
  announceRetry,
  classifyAgentFailure,
  RetryBackoff,
  retryDelayMs,
  agentExited,
  agentProtocolError,
  type CultureError,
  errorMessage,
  type RunnerContext,
  type Whisper,
} from "@culture/core";
import { constants } from "node:os";
import { CLAUDE_LOGIN_METHODS, classifyTurnFailure, isAuthRetry, isMissingSession, retriesExhausted, startupFailure, type ApiErrorMessage } from "./claude-errors.js";
import { describeExecutable, resolveClaudeExecutable, type ClaudeExecutable } from "./claude-executable.js";
import { exitStatus, type ClaudeProcess } from "./claude-process.js";
import type { ClaudeOptions } from "./claude-options.js";
import { PromptQueue } from "./prompt-queue.js";
import { normalizeSdkMessage, type TurnResult } from "./sdk-message-normalizer.js";
import { sessionOptions } from "./sdk-options.js";
import { askCultureHook, claudeCanUseTool, claudePermissionSetup, policyDenyHook, type ClaudePermissionSetup } from "./claude-permissions.js";
import { ClaudeTurnUsage } from "./turn-usage.js";
import { assistantContextTokens, contextUse, contextWindowOf } from "./context-use.js";

/** Tunables of {@link ClaudeRunner} (tests shorten them). */
export interface ClaudeRunnerSettings {
  /** How long `stop()` waits for Claude Code to exit after its input ends, and again after the abort. Default 5000 ms. */
  stopGraceMs?: number;
  /** How long `start()` waits for Claude Code to answer `initialize`. Default 60000 ms. */
  startTimeoutMs?: number;
}

/** How whispers read in the agent's context: `[SUPERVISOR/CORRECTION] message`, one per line. */
export function formatWhispers(whispers: readonly Whisper[]): string {
  return whispers.map((w) => `[SUPERVISOR/${w.action}] ${w.message}`).join("\n");
}

/** One Claude Code process and its SDK query. */
interface Session {
  query: Query;
  input: PromptQueue<SDKUserMessage>;
  abort: AbortController;
  /** Resolves with the exit code once the message stream has ended. */
  ended: Promise<number>;
  exitCode: number | null;
  /** The last lines Claude Code wrote on stderr (they explain startup refusals). */
  stderr: string[];
  /** The Claude Code process, once spawned: how it ended is read there, not from the SDK's error. */
  process: ClaudeProcess | null;
  /** Set once start() succeeded: from then on an exit culture did not ask for is a crash. */
  watched: boolean;
}

/** One attempt at a turn, from the user message to its `result`. */
interface Attempt {
  silent: boolean;
  interrupted: boolean;
  /** Set when culture ended the turn itself because retrying cannot help (a 401 Claude Code kept retrying). */
  fatal: CultureError | null;
  toolCalls: number;
  apiError: ApiErrorMessage | null;
  /** The context tokens the newest assistant message reported (context-use.ts). */
  contextTokens: number | null;
  done: Promise<TurnResult>;
  resolve(result: TurnResult): void;
  reject(error: unknown): void;
}

const STDERR_LINES = 40;

/** Runs Claude Code for one culture agent. */
export class ClaudeRunner extends ManagedRunner {
  private session: Session | null = null;
  private currentSessionId: string | null = null;
  private attempt: Attempt | null = null;
  /** The turn's usage from Claude Code's running totals (turn-usage.ts). */
  private readonly turnUsage = new ClaudeTurnUsage();
  /** The wait before a retry; `interrupt()` and `stop()` end it early. */
  private readonly backoff = new RetryBackoff();
  private executable: ClaudeExecutable | null = null;
  /** How the CLI is named in errors (the resolved path and where it came from, once known). */
  private command: string[];
  private readonly stopGraceMs: number;
  private readonly startTimeoutMs: number;
  /** The model Claude Code reported in `system/init`. */
  model: string | null = null;
  /** The in-process `culture` MCP server (irc_tools mcp or both), shared by this runner's sessions. */
  private readonly ircLink: DaemonLink | null;
  /** Claude Code's permission mode, and whether its prompts go to culture. */
  private readonly permissionSetup: ClaudePermissionSetup;

  /** @param ctx What the daemon gives a runner; `ctx.options` are the parsed Claude fields. */
  constructor(
    private readonly ctx: RunnerContext<ClaudeOptions>,
    settings: ClaudeRunnerSettings = {},
  ) {
    super(ctx.logger);
    this.stopGraceMs = settings.stopGraceMs ?? 5_000;
    this.startTimeoutMs = settings.startTimeoutMs ?? 60_000;
    this.command = describeExecutable(ctx.options.executable);
    this.ircLink = (ctx.agent.irc_tools ?? "both") === "cli" ? null : ircDaemonLink(ctx.nick, ctx.env);
    this.permissionSetup = claudePermissionSetup(ctx.options, ctx.permissions);
    for (const conflict of this.permissionSetup.conflicts) this.logger.warn(conflict);
  }

  /** The Claude Code session id (from `system/init`; kept after an exit so a new runner can resume it). */
  get sessionId(): string | null {
    return this.currentSessionId;
  }

  /**
   * Starts Claude Code in the agent's directory and waits for it to answer `initialize`;
   * resumes the previous session when there is one and `resume_on_restart` is on (a session
   * Claude Code no longer has is replaced by a new one). Then sends `initialPrompt`, if any,
   * as the first turn. Throws E_AGENT_COMMAND_NOT_FOUND, E_AGENT_START_REFUSED or
   * E_AGENT_EXITED.
   */
  protected override async startAgent(initialPrompt?: string): Promise<void> {
    this.executable ??= await resolveClaudeExecutable(this.ctx.options.executable, this.ctx.env.PATH, this.ctx.directory);
    this.command = describeExecutable(this.ctx.options.executable, this.executable);
    const resume = this.ctx.options.resume_on_restart ? (this.currentSessionId ?? this.ctx.previousSessionId) : null;
    try {
      await this.open(this.executable, resume);
    } catch (err) {
      if (!resume || !(err as { missingSession?: boolean }).missingSession) throw err;
      this.logger.warn("Claude Code no longer has the session to resume; starting a new one", { sessionId: resume });
      this.currentSessionId = null;
      await this.open(this.executable, null);
    }
    if (this.stopRequested) {
      await this.stop();
      this.throwIfStopRequested();
    }
    this.setRunning(true);
    if (initialPrompt?.trim()) await this.prompt(initialPrompt, false);
  }

  /** One user turn; resolves at that turn's `result`, after all its messages. */
  protected override runTurn(text: string): Promise<void> {
    return this.runAttempts(text, false);
  }

  /** Whether start() has a Claude Code session that stop() must end. */
  protected override hasAgent(): boolean {
    return this.session !== null;
  }

  /** Interrupts the current turn (the SDK's interrupt); its sendPrompt resolves. Also cancels a pending retry. */
  override async interrupt(): Promise<void> {
    if (this.backoff.cancel("interrupt")) {
      this.logger.info("interrupted while waiting to retry the turn");
      return;
    }
    const attempt = this.attempt;
    const session = this.session;
    if (!attempt || !session || session.exitCode !== null) return;
    attempt.interrupted = true;
    this.logger.info("interrupting the current turn");
    await session.query.interrupt();
  }

  /**
   * Queues `/compact` as a turn of its own, after the current one; its messages are not
   * reported. Resolves once queued: the agent may be asking for it from inside a turn.
   */
  override async compact(): Promise<void> {
    this.slashCommand("/compact");
  }

  /** Queues `/clear` as a turn of its own, after the current one (see {@link compact}). */
  override async clear(): Promise<void> {
    this.slashCommand("/clear");
  }

  /**
   * Stops Claude Code: interrupts a turn in flight, ends the input (the CLI exits at end of
   * input), then aborts the SDK query (which kills the process) if it has not exited within
   * the grace period. Idempotent. A requested stop is never reported to `onExit`.
   */
  protected override async stopAgent(): Promise<void> {
    const session = this.session;
    if (!session) return;
    try {
      this.backoff.cancel("stop");
      if (this.attempt && session.exitCode === null) {
        this.attempt.interrupted = true;
        await settleWithin(session.query.interrupt(), this.stopGraceMs);
      }
      session.input.end();
      if (!(await settleWithin(session.ended, this.stopGraceMs))) {
        this.logger.warn("Claude Code did not exit after its input ended; aborting it", { graceMs: this.stopGraceMs });
        session.abort.abort();
        if (!(await settleWithin(session.ended, this.stopGraceMs))) session.query.close();
        await settleWithin(session.ended, this.stopGraceMs);
      }
      this.logger.info("Claude Code stopped", { code: session.exitCode });
      this.ircLink?.close();
    } finally {
      if (this.session === session) this.session = null;
    }
  }

  // ---------------------------------------------------------------- session

  /** Starts the SDK query and waits for Claude Code's answer to `initialize`. */
  private async open(executable: ClaudeExecutable, resume: string | null): Promise<void> {
    const input = new PromptQueue<SDKUserMessage>();
    const abort = new AbortController();
    const stderrLogger = this.logger.child("claude");
    const session: Session = {
      query: undefined as unknown as Query,
      input,
      abort,
      ended: Promise.resolve(0),
      exitCode: null,
      stderr: [],
      process: null,
      watched: false,
    };
    session.query = query({
      prompt: input,
      options: sessionOptions({
        directory: this.ctx.directory,
        executable,
        options: this.ctx.options,
        env: this.ctx.env,
        model: this.ctx.model,
        thinking: this.ctx.thinking,
        systemPrompt: this.ctx.systemPrompt,
        resume,
        abortController: abort,
        ...(this.ircLink ? { ircMcpServer: ircMcpServer(this.ircLink) } : {}),
        permissionMode: this.permissionSetup.mode,
        sandbox: this.ctx.sandbox ?? null,
        ...(this.permissionSetup.asksCulture ? { canUseTool: claudeCanUseTool((request) => this.ctx.requestPermission(request), this.logger) } : {}),
        onSpawn: (process) => {
          session.process = process;
          this.logger.debug("spawned Claude Code", { pid: process.pid, command: process.command });
        },
        stderr: (data) => {
          for (const line of data.split("\n")) {
            if (!line.trim()) continue;
            session.stderr.push(line);
            if (session.stderr.length > STDERR_LINES) session.stderr.shift();
            stderrLogger.info(line);
          }
        },
        hooks: {
          ...(this.permissionSetup.asksCulture ? { PreToolUse: [{ hooks: [askCultureHook] }] } : {}),
          ...(this.permissionSetup.checksDeny ? { PreToolUse: [{ hooks: [policyDenyHook((request) => this.ctx.requestPermission(request), this.logger)] }] } : {}),
          PostToolUse: [{ hooks: [this.toolBoundaryHook] }],
          PostToolUseFailure: [{ hooks: [this.toolBoundaryHook] }],
        },
      }),
    });
    this.session = session;
    this.turnUsage.reset();
    session.ended = this.pump(session);
    const initialized = session.query.initializationResult().then(
      () => "ready" as const,
      (err: unknown) => {
        this.logger.debug("initialize failed", { error: errorMessage(err) });
        return "failed" as const;
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), this.startTimeoutMs);
    });
    const outcome = await Promise.race([initialized, session.ended.then(() => "ended" as const), timeout]).finally(() => clearTimeout(timer));
    if (outcome === "ready") {
      if (resume) this.currentSessionId = resume;
      session.watched = true;
      this.logger.info(resume ? "resumed the Claude Code session" : "started Claude Code", {
        sessionId: resume,
        executable: executable.path,
        permissionMode: this.permissionSetup.mode,
        asksCulture: this.permissionSetup.asksCulture,
      });
      return;
    }
    // Not started: make sure the process is gone, then say why.
    abort.abort();
    await settleWithin(session.ended, this.stopGraceMs);
    if (this.session === session) this.session = null;
    if (outcome === "timeout") {
      throw agentProtocolError(this.command, "initialize", new Error(`no answer within ${this.startTimeoutMs / 1000}s`));
    }
    const code = session.exitCode ?? 1;
    const error = startupFailure(this.command, code, session.stderr);
    if (resume && isMissingSession(session.stderr)) Object.assign(error, { missingSession: true });
    throw error;
  }

  /** Reads the session's messages until the stream ends; resolves with the exit code. */
  private async pump(session: Session): Promise<number> {
    let failure: { error: unknown } | null = null;
    try {
      for await (const message of session.query) await this.handle(session, message);
    } catch (err) {
      failure = { error: err };
      if (!this.stopRequested && session.watched) this.logger.warn("Claude Code's message stream ended with an error", { error: errorMessage(err) });
    }
    const code = await this.exitCode(session, failure);
    session.exitCode = code;
    await this.onSessionEnd(session, code);
    return code;
  }

  /**
   * How the session's process ended: its own exit code or signal (137 for SIGKILL), which the
   * SDK's error does not always carry (see claude-process.ts); the SDK's error when the process
   * cannot say (never spawned, or still running after the grace period); 0 for a clean end.
   */
  private async exitCode(session: Session, failure: { error: unknown } | null): Promise<number> {
    const process = session.process;
    const exit = process ? await settleValueWithin(process.ended, this.stopGraceMs) : null;
    const status = exit ? exitStatus(exit) : null;
    if (exit && status !== null && (status !== 0 || !failure)) {
      if (failure && status !== exitCodeOf(failure.error)) {
        this.logger.info("Claude Code's own exit status differs from the SDK's error", { status, signal: exit.signal, sdkError: errorMessage(failure.error) });
      }
      return status;
    }
    return failure ? exitCodeOf(failure.error) : 0;
  }

  private async handle(session: Session, raw: unknown): Promise<void> {
    if (this.session !== session) return;
    const n = normalizeSdkMessage(raw);
    const attempt = this.attempt;
    const tokens = assistantContextTokens(raw);
    if (attempt && tokens !== null) attempt.contextTokens = tokens;
    switch (n.kind) {
      case "init":
        if (n.sessionId) this.currentSessionId = n.sessionId;
        this.model = n.model;
        this.logger.info("Claude Code session", { sessionId: n.sessionId, model: n.model, permissionMode: n.permissionMode });
        return;
      case "message":
        if (!attempt) {
          this.logger.debug("a message outside any turn was dropped", { blocks: n.message.content.map((b) => b.type) });
          return;
        }
        attempt.toolCalls += n.message.content.filter((b) => b.type === "tool_use").length;
        if (!attempt.silent) await this.emit(n.message);
        return;
      case "api-retry":
        this.logger.info("Claude Code is retrying an API request", { attempt: n.attempt, max_retries: n.maxRetries, error: n.error, status: n.status, delay_ms: n.delayMs });
        if (attempt && !attempt.fatal && !attempt.interrupted && isAuthRetry(n.error, n.status)) {
          // Claude Code retries a 401 for minutes; no retry fixes a bad key: end the turn now.
          const text = `the API answered ${n.status ?? "an authentication error"}${n.error ? ` (${n.error})` : ""}`;
          attempt.fatal = agentAuthRequired(this.command, CLAUDE_LOGIN_METHODS, new Error(text));
          attempt.interrupted = true;
          this.logger.warn("Claude Code is retrying an authentication failure; ending the turn", { status: n.status, error: n.error });
          void session.query.interrupt().catch((err: unknown) => this.logger.warn("interrupting the turn failed", { error: errorMessage(err) }));
        } else if (attempt && !attempt.silent) {
          // Claude Code's own retries (it backs off for minutes on a 529): the asker hears of a long delay.
          const { reason } = classifyAgentFailure({ status: n.status, kind: n.error, text: n.error ?? "" });
          announceRetry(this.ctx.retrying, { reason, detail: `${n.status ?? ""} ${n.error ?? ""}` }, n.attempt, n.delayMs);
        }
        return;
      case "api-error":
        this.logger.warn("Claude Code reported an API error", { error: n.error, text: n.text.slice(0, 300) });
        if (attempt) attempt.apiError = { error: n.error, text: n.text };
        return;
      case "result":
        if (!attempt) {
          this.logger.debug("a result outside any turn was dropped", { subtype: n.result.subtype });
          return;
        }
        if (n.result.sessionId) this.currentSessionId ??= n.result.sessionId;
        // A silent turn's (/compact's) usage is not dropped: it stays in the totals and goes with the next turn.
        if (!attempt.silent) for (const usage of this.turnUsage.messages(n.result.modelUsage)) await this.emit(usage);
        if (!attempt.silent) {
          const context = contextUse(attempt.contextTokens, contextWindowOf(n.result.modelUsage, this.model));
          if (context) await this.emit({ type: "assistant", content: [], context });
        }
        this.attempt = null;
        attempt.resolve(n.result);
        return;
      case "skip":
        if (!n.known) this.logger.info(`skipped a Claude Code message culture does not know: ${n.note}`);
        else this.logger[n.level](n.note, n.fields);
        return;
    }
  }

  private async onSessionEnd(session: Session, code: number): Promise<void> {
    const attempt = this.attempt;
    const current = this.session === session;
    if (current) this.attempt = null;
    if (!current || this.stopRequested || !session.watched) {
      attempt?.reject(new Error("ClaudeRunner: the agent was stopped during the turn"));
      return;
    }
    this.setRunning(false);
    this.session = null;
    // A session Claude Code cannot resume must not be handed to the next runner.
    if (isMissingSession(session.stderr)) this.currentSessionId = null;
    this.backoff.cancel("stop");
    attempt?.reject(agentExited(this.command, code, "a turn"));
    await this.reportExit(code);
  }

  // ---------------------------------------------------------------- turns

  /** Runs one turn after the ones already queued. */
  private prompt(text: string, silent: boolean): Promise<void> {
    return this.enqueueTurn(() => this.runAttempts(text, silent));
  }

  private slashCommand(command: "/compact" | "/clear"): void {
    if (!this.isRunning() || !this.session) throw new Error(`ClaudeRunner: cannot send ${command}: the agent is not running`);
    this.logger.info(`queued ${command}`);
    void this.prompt(command, true).then(
      () => this.logger.info(`${command} done`),
      (err: unknown) => this.logger.warn(`${command} failed`, { error: errorMessage(err) }),
    );
  }

  private async runAttempts(text: string, silent: boolean): Promise<void> {
    const retries = this.ctx.options.api_retries;
    let message = text;
    for (let attemptNo = 0; ; attemptNo++) {
      const session = this.session;
      if (!this.isRunning() || !session) throw new Error("ClaudeRunner: the agent is not running");
      const attempt = newAttempt(silent);
      this.attempt = attempt;
      session.input.push(userMessage(message));
      const result = await attempt.done;
      if (attempt.fatal) throw attempt.fatal;
      if (attempt.interrupted) {
        if (this.stopRequested) throw new Error("ClaudeRunner: the agent was stopped during the turn");
        this.logger.info("the turn was interrupted", { subtype: result.subtype });
        return;
      }
      if (!result.isError) return;
      const failure = classifyTurnFailure(result, attempt.apiError, this.command);
      if (failure.kind === "fatal") throw failure.error;
      if (attemptNo >= retries) throw retriesExhausted(this.command, failure.detail, retries);
      const delayMs = retryDelayMs({ baseDelayMs: this.ctx.options.api_retry_delay_seconds * 1000, maxDelayMs: 60_000 }, attemptNo);
      this.logger.warn("a temporary API error ended the turn; retrying it", { retry: attemptNo + 1, of: retries, delayMs, error: failure.detail.slice(0, 200) });
      if (!silent) announceRetry(this.ctx.retrying, failure, attemptNo + 1, delayMs);
      if (!(await this.backoff.wait(delayMs))) {
        if (this.backoff.cutBy === "interrupt") return;
        throw new Error("ClaudeRunner: the agent was stopped during the turn");
      }
      // Work done before the failure stays in the conversation: ask to go on rather than start over.
      if (attempt.toolCalls > 0) {
        message = `[culture] Your previous reply was cut off by a temporary API error (${failure.detail.slice(0, 200)}). Carry on from where you stopped.`;
      }
    }
  }

  /** PostToolUse / PostToolUseFailure: delivers queued supervisor whispers into the agent's context. */
  private readonly toolBoundaryHook: HookCallback = async (input: HookInput): Promise<HookJSONOutput> => {
    let whispers: Whisper[] = [];
    try {
      whispers = this.ctx.takeWhispers();
    } catch (err) {
      this.logger.warn("taking whispers failed", { error: errorMessage(err) });
    }
    if (whispers.length === 0) return { continue: true };
    const event = input.hook_event_name === "PostToolUseFailure" ? "PostToolUseFailure" : "PostToolUse";
    this.logger.info("delivering supervisor whispers at a tool boundary", { count: whispers.length, event });
    return { continue: true, hookSpecificOutput: { hookEventName: event, additionalContext: formatWhispers(whispers) } };
  };
}

function newAttempt(silent: boolean): Attempt {
  let resolve!: (result: TurnResult) => void;
  let reject!: (error: unknown) => void;
  const done = new Promise<TurnResult>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A turn abandoned by stop() may never be awaited again.
  done.catch(() => undefined);
  return { silent, interrupted: false, fatal: null, toolCalls: 0, apiError: null, contextTokens: null, done, resolve, reject };
}

function userMessage(text: string): SDKUserMessage {
  return { type: "user", message: { role: "user", content: text }, parent_tool_use_id: null, session_id: "" };
}

/** The exit code behind an error the SDK's message stream ended with. */
function exitCodeOf(err: unknown): number {
  const code = (err as { exitCode?: unknown } | null)?.exitCode;
  if (typeof code === "number") return code;
  const message = errorMessage(err);
  const exited = /exited with code (\d+)/.exec(message);
  if (exited) return Number(exited[1]);
  const signal = /terminated by signal (SIG[A-Z0-9]+)/.exec(message);
  if (signal) return 128 + (constants.signals[signal[1] as keyof typeof constants.signals] ?? 0);
  return 1;
}

/** The value of `promise` if it resolves within `ms`, else null. */
async function settleValueWithin<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits for `promise` at most `ms`; true when it settled (either way) in time. */
async function settleWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true, () => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
