/**
 * The AgentRunner of the Codex backend: one `codex app-server` process, one thread.
 *
 * `thread/start` carries culture's agent prompt as `developerInstructions`, the agent's
 * directory as `cwd`, the model, `approvalPolicy` (`never`, or `untrusted` when culture's
 * permissions ask; see codex-approvals.ts) and the configured sandbox; each
 * prompt is one `turn/start`, and `sendPrompt` resolves on that turn's `turn/completed`.
 * Completed items are reported as they happen (text, thinking, tool calls with their
 * results). Whenever an item completes mid-turn, whispers waiting in the daemon are delivered
 * into the running turn with `turn/steer`, so a correction lands at the next tool boundary
 * instead of after the turn. After a crash the daemon hands over the thread id and the new
 * runner continues it with `thread/resume`.
 */
import {
  ManagedRunner,
  agentProtocolError,
  announceRetry,
  RetryBackoff,
  retryTransient,
  errorMessage,
  isCultureError,
  routesThroughPolicy,
  type ContentBlock,
  type IrcToolsMode,
  type RunnerContext,
  type Thinking,
  type Usage,
  type Whisper,
  type RetryPolicy,
  type TransientFailure,
} from "@culture/core";
import { createRequire } from "node:module";
import { AppServerClient, type AppServerNotification } from "./app-server-client.js";
import { textInput, type ReasoningEffort, type TextInput, type ThreadStartParams, type TurnError } from "./app-server-protocol.js";
import { classifyCodexFailure, codexAuthRequired, codexFatalError, failureOf, isAuthFailure, isTransientFailure, type CodexFailure } from "./codex-errors.js";
import { CHANNEL_RULE_NOTE, channelAccessConfig, ensureChannelRule } from "./channel-access.js";
import { codexProgram, codexSandboxMode, type CodexOptions, type SandboxMode } from "./codex-options.js";
import { hasCliIrcTools, ircMcpServerConfig } from "./irc-mcp-server.js";
import { normalizeItem } from "./item-normalizer.js";
import { serverRequestHandler } from "./server-requests.js";
import { CodexTokenUsage, contextOf, sumUsage } from "./token-usage.js";
import type { ApprovalAsker } from "./codex-approvals.js";

/** Backoff for transient failures (overload, dropped connections, 5xx). */
export interface RetrySettings {
  /** How many times a failed request or turn is tried again. Default 3. */
  attempts?: number;
  /** The first delay; each retry doubles it. Default 1000 ms. */
  baseDelayMs?: number;
  /** The longest delay. Default 30000 ms. */
  maxDelayMs?: number;
}

/** Tunables of {@link CodexRunner} (tests shorten them). */
export interface CodexRunnerSettings {
  /** How long `stop()` waits after closing stdin, and again after SIGTERM. Default 3000 ms. */
  stopGraceMs?: number;
  /** How long a request (not a turn) may wait for its answer. Default 60000 ms. */
  requestTimeoutMs?: number;
  /** How long a `compact()` may run before culture stops waiting for it. Default 300000 ms. */
  compactTimeoutMs?: number;
  retry?: RetrySettings;
}

/** The argv culture runs: the Codex CLI's app-server. */
export function appServerCommand(options: CodexOptions): string[] {
  return [codexProgram(options), "app-server"];
}

/** culture's thinking level as Codex's reasoning effort (`max` is Codex's `xhigh`). */
export function effortFor(thinking: Thinking): ReasoningEffort {
  return thinking === "max" ? "xhigh" : thinking;
}

/** How whispers read inside the agent's turn (the agent prompt tells it what these lines are). */
export function formatWhispers(whispers: readonly Whisper[]): string {
  return whispers.map((w) => `[SUPERVISOR/${w.action}] ${w.message}`).join("\n");
}

/** How a turn ended. */
interface TurnEnd {
  status: "completed" | "interrupted" | "failed" | "inProgress";
  error: TurnError | null;
}

/** One turn in flight: a prompt, or a compaction. */
class ActiveTurn {
  id: string | null = null;
  readonly deltas = new Map<string, string>();
  /** Error notifications seen (with willRetry or not): the last one explains a failure. */
  readonly failures: CodexFailure[] = [];
  /** Items of the agent's work completed (the user's own message excluded): a turn with some is not replayed. */
  itemsCompleted = 0;
  interruptRequested = false;
  steering: Promise<void> = Promise.resolve();
  readonly done: Promise<TurnEnd>;
  finish!: (end: TurnEnd) => void;

  constructor(readonly kind: "prompt" | "compact") {
    this.done = new Promise<TurnEnd>((resolve) => {
      this.finish = resolve;
    });
  }
}

/** Runs `codex app-server` for one culture agent. */
export class CodexRunner extends ManagedRunner {
  private client: AppServerClient | null = null;
  private threadId: string | null = null;
  private threadModel: string | undefined;
  private turn: ActiveTurn | null = null;
  /** The thread's running token total, turned into each turn's usage. */
  private readonly tokens = new CodexTokenUsage();
  /** Usage of compactions, reported with the next prompt's turn. */
  private carriedUsage: Usage | null = null;
  /** Turns (and compactions, new threads) queued or running. */
  private queued = 0;
  /** Serializes notification handling, so messages reach onMessage in order. */
  private events: Promise<void> = Promise.resolve();
  /** Whispers taken from the daemon whose steer failed: they open the next turn. */
  private undelivered: Whisper[] = [];
  /** The paths of the `fileChange` items in progress, by item id (their approval requests name only the item). */
  private readonly fileChanges = new Map<string, string[]>();
  private readonly command: string[];
  private readonly stopGraceMs: number;
  private readonly requestTimeoutMs: number;
  private readonly compactTimeoutMs: number;
  private readonly retry: Required<RetrySettings>;
  /** The wait before a retry (cut short by interrupt and stop). */
  private readonly backoff = new RetryBackoff();

  /** @param ctx What the daemon gives a runner; `ctx.options` are the parsed Codex fields. */
  constructor(
    private readonly ctx: RunnerContext<CodexOptions>,
    settings: CodexRunnerSettings = {},
  ) {
    super(ctx.logger);
    this.command = appServerCommand(ctx.options);
    this.stopGraceMs = settings.stopGraceMs ?? 3_000;
    this.requestTimeoutMs = settings.requestTimeoutMs ?? 60_000;
    this.compactTimeoutMs = settings.compactTimeoutMs ?? 300_000;
    this.retry = { attempts: 3, baseDelayMs: 1_000, maxDelayMs: 30_000, ...settings.retry };
  }

  /** The Codex thread id (kept after the process exits, so a new runner can resume it). */
  get sessionId(): string | null {
    return this.threadId;
  }

  /** The model of the thread, as the app-server reported it (or as configured). */
  get model(): string | undefined {
    return this.threadModel ?? this.ctx.model ?? undefined;
  }

  /**
   * Spawns the app-server, initializes, resumes the previous thread (or starts one), then runs
   * `initialPrompt`, if any, as a normal turn. Throws E_AGENT_COMMAND_NOT_FOUND, E_AGENT_AUTH,
   * E_AGENT_EXITED or E_AGENT_PROTOCOL.
   */
  protected override async startAgent(initialPrompt?: string): Promise<void> {
    // Assigned before any notification can arrive (none comes before `initialize`).
    let client!: AppServerClient;
    const env = { ...this.ctx.env, ...this.ctx.options.env };
    if (this.usesChannelRule()) await ensureChannelRule(env, this.ctx.directory, this.logger);
    client = await AppServerClient.spawn({
      command: this.command,
      cwd: this.ctx.directory,
      env,
      logger: this.logger.child("app-server"),
      sandbox: this.ctx.sandbox ?? null,
      requestTimeoutMs: this.requestTimeoutMs,
      onNotification: (n) => {
        this.noteFileChange(n);
        this.enqueueEvent(client, n);
      },
      onServerRequest: serverRequestHandler(this.asksPermission() ? this.approvalAsker() : "approve", this.logger),
    });
    this.client = client;
    this.events = Promise.resolve();
    try {
      this.throwIfStopRequested();
      const init = await client.initialize({ name: "culture", title: "culture", version: VERSION }).catch((err: unknown) => {
        throw this.requestError("initialize", err);
      });
      const resumed = await this.openThread(client);
      this.logger.info(resumed ? "resumed the Codex thread" : "started a Codex thread", {
        threadId: this.threadId,
        model: this.threadModel,
        userAgent: init.userAgent,
        pid: client.pid,
      });
      this.setRunning(true);
      if (initialPrompt?.trim()) await this.prompt(initialPrompt);
      // Watched from here on: an exit during start() is reported by start() rejecting.
      void client.exited.then((code) => this.onProcessExit(client, code));
    } catch (err) {
      this.setRunning(false);
      this.client = null;
      await client.shutdown(this.stopGraceMs);
      throw err;
    }
  }

  /** Sends one user turn; resolves on that turn's `turn/completed`, after its messages. */
  override async sendPrompt(text: string): Promise<void> {
    if (!this.isRunning() || !this.client) throw new Error("CodexRunner.sendPrompt(): the agent is not running");
    await this.prompt(text);
  }

  /** Interrupts the current turn (`turn/interrupt`); its sendPrompt resolves when the turn ends. */
  override async interrupt(): Promise<void> {
    // A turn waiting to be retried ends here, as interrupted (runTurn).
    this.backoff.cancel("interrupt");
    const turn = this.turn;
    if (!turn || !this.client) return;
    turn.interruptRequested = true;
    if (turn.id) await this.sendInterrupt(turn);
    // else: sent as soon as the turn has an id (see adopt()).
  }

  /**
   * Compacts the thread's context (`thread/compact/start`). When a turn is in flight (the
   * agent may have asked for this from inside its turn), the compaction runs right after it
   * and this resolves at once; otherwise it resolves when the compaction has finished.
   */
  override async compact(): Promise<void> {
    await this.afterTurns("compact", () => this.runCompaction());
  }

  /** Clears the context: a new thread (the old one stays on disk). Queued like {@link compact}. */
  override async clear(): Promise<void> {
    await this.afterTurns("clear", async () => {
      const client = this.client;
      if (!client) return;
      const previous = this.threadId;
      await this.startThread(client, "clear");
      this.logger.info("cleared the context: started a new Codex thread", { previous, threadId: this.threadId });
    });
  }

  /**
   * Stops the app-server: end of input, then SIGTERM, then SIGKILL, each after the grace
   * period. Idempotent. An exit caused by stop() is not reported to `onExit`.
   */
  protected override async stopAgent(): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.backoff.cancel("stop");
    try {
      const turn = this.turn;
      if (turn?.id) await this.sendInterrupt(turn, this.stopGraceMs);
      const code = await client.shutdown(this.stopGraceMs);
      this.logger.info("codex app-server stopped", { code });
    } finally {
      this.client = null;
    }
  }

  /** Whether start() has an app-server that stop() must end. */
  protected override hasAgent(): boolean {
    return this.client !== null;
  }

  // ---------------------------------------------------------------- threads

  private threadParams(): Omit<ThreadStartParams, "ephemeral" | "sessionStartSource"> {
    return {
      ...(this.ctx.model ? { model: this.ctx.model } : {}),
      cwd: this.ctx.directory,
      ...(this.developerInstructions() ? { developerInstructions: this.developerInstructions() } : {}),
      // With culture's permissions on (or deny patterns in bypass), Codex asks before every command
      // outside its known-safe list and every file change; culture answers from the policy or an operator.
      approvalPolicy: this.asksPermission() ? "untrusted" : "never",
      sandbox: this.codexSandbox,
      config: { ...threadConfig({ sandbox: this.codexSandbox, channel_access: this.ctx.options.channel_access }, this.ctx.agent.irc_tools), ...ircMcpServerConfig(this.ctx.nick, this.ctx.agent.irc_tools, this.ctx.env) },
    };
  }

  /**
   * Whether the agent asks culture before its tools: core's `routesThroughPolicy` (mode ask or
   * allowlist, or bypass with `deny` patterns, which then must reach what Codex runs; the policy
   * answers bypass's requests itself, so nobody is asked). Codex's known-safe commands (`ls`,
   * `cat`, ...) never ask, so a deny pattern over one of those does not reach Codex.
   */
  private asksPermission(): boolean {
    return routesThroughPolicy(this.ctx.permissions);
  }

  /** How Codex's approval requests reach `ctx.requestPermission` (see codex-approvals.ts). */
  private approvalAsker(): ApprovalAsker {
    return {
      ask: (request) => this.ctx.requestPermission(request),
      changedPaths: (itemId) => this.fileChanges.get(itemId) ?? [],
      explainDenial: async (turnId, text) => {
        const client = this.client;
        const threadId = this.threadId;
        const expectedTurnId = turnId ?? this.turn?.id;
        if (!client || !threadId || !expectedTurnId) return;
        await client
          .request("turn/steer", { threadId, input: [textInput(text)], expectedTurnId })
          .then(() => this.logger.info("told the agent why its request was denied (turn/steer)", { turnId: expectedTurnId }))
          .catch((err: unknown) => this.logger.warn(`turn/steer with the denial's reason failed: ${errorMessage(err)}`));
      },
    };
  }

  /**
   * Keeps the paths of each `fileChange` item while it runs: its approval request names only
   * the item. Done as the notification arrives (not in the event queue), so the paths are
   * known before the request that follows it is answered.
   */
  private noteFileChange(n: AppServerNotification): void {
    if ((n.method !== "item/started" && n.method !== "item/completed") || n.params.item.type !== "fileChange") return;
    if (n.method === "item/completed") {
      this.fileChanges.delete(n.params.item.id);
      return;
    }
    const changes = (n.params.item as { changes?: unknown }).changes;
    const paths = Array.isArray(changes) ? changes.flatMap((c) => (c && typeof (c as { path?: unknown }).path === "string" ? [(c as { path: string }).path] : [])) : [];
    this.fileChanges.set(n.params.item.id, paths);
  }

  /**
   * Whether `culture channel` needs the exec rule: only when the agent may use it from its
   * shell (`irc_tools` `cli` or `both`) inside a sandbox, with `channel_access: exec-rule`.
   * With `irc_tools: mcp` the tools come from the MCP server and the sandbox gets no opening.
   */
  /** Codex's own sandbox mode (codex-options.ts codexSandboxMode). */
  private get codexSandbox(): SandboxMode {
    return codexSandboxMode(this.ctx.options, Boolean(this.ctx.sandbox));
  }

  private usesChannelRule(): boolean {
    const { channel_access } = this.ctx.options;
    return this.codexSandbox !== "danger-full-access" && channel_access === "exec-rule" && hasCliIrcTools(this.ctx.agent.irc_tools);
  }

  /** culture's agent prompt, plus how to run `culture channel` when only an exec rule lets it through the sandbox. */
  private developerInstructions(): string {
    const prompt = this.ctx.systemPrompt.trim();
    if (!prompt || !this.usesChannelRule()) return prompt;
    return `${prompt}\n\n${CHANNEL_RULE_NOTE}`;
  }

  /** Resumes the previous thread when there is one, else starts one. Returns whether it resumed. */
  private async openThread(client: AppServerClient): Promise<boolean> {
    const previous = this.threadId ?? this.ctx.previousSessionId;
    if (previous) {
      try {
        const resumed = await this.retrying(() => client.request("thread/resume", { ...this.threadParams(), threadId: previous }));
        this.threadId = resumed.thread.id;
        this.threadModel = resumed.model ?? this.threadModel;
        return true;
      } catch (err) {
        const failure = failureOf(err);
        if (client.exitCode !== null || !failure) throw this.requestError("thread/resume", err);
        if (isAuthFailure(failure)) throw codexAuthRequired(this.command, err);
        this.logger.warn("could not resume the previous Codex thread; starting a new one", { threadId: previous, error: errorMessage(err) });
      }
    }
    await this.startThread(client, "startup");
    return false;
  }

  private async startThread(client: AppServerClient, source: "startup" | "clear"): Promise<void> {
    const started = await this.retrying(() =>
      client.request("thread/start", { ...this.threadParams(), ...(source === "clear" ? { sessionStartSource: "clear" as const } : {}) }),
    ).catch((err: unknown) => {
      throw this.requestError("thread/start", err);
    });
    this.threadId = started.thread.id;
    this.threadModel = started.model ?? this.threadModel;
  }

  // ---------------------------------------------------------------- turns

  /** Runs one turn; turns never overlap. */
  private prompt(text: string): Promise<void> {
    return this.serialize(() => this.runTurn(text));
  }

  private serialize(job: () => Promise<void>): Promise<void> {
    this.queued++;
    return this.enqueueTurn(job).finally(() => {
      this.queued--;
    });
  }

  /** Runs `job` after the turns in flight; waits for it only when nothing was in flight. */
  private async afterTurns(what: string, job: () => Promise<void>): Promise<void> {
    if (!this.isRunning() || !this.client) throw new Error(`CodexRunner.${what}(): the agent is not running`);
    const busy = this.queued > 0;
    const run = this.serialize(job);
    if (!busy) return run;
    this.logger.info(`${what} requested during a turn: it runs when the turn ends`);
    run.catch((err: unknown) => this.logger.warn(`${what} failed: ${errorMessage(err)}`));
  }

  protected override async runTurn(text: string): Promise<void> {
    const input: TextInput[] = [];
    if (this.undelivered.length) {
      input.push(textInput(formatWhispers(this.undelivered.splice(0))));
    }
    input.push(textInput(text));
    // A turn that failed with a transient error before it completed any item is tried again
    // (core's retryTransient); an interrupt while it waits ends it as interrupted.
    const policy = this.retryPolicy();
    await retryTransient(
      async () => {
        const turn = await this.openTurn("prompt", (client, threadId) =>
          this.retrying(() => client.request("turn/start", { threadId, input, effort: effortFor(this.ctx.thinking) })).catch((err: unknown) => {
            throw this.requestError("turn/start", err);
          }),
        );
        const end = await this.finishTurn(turn);
        if (end.status !== "failed") return;
        const failure: CodexFailure = end.error ?? turn.failures.at(-1) ?? { message: "the turn failed (no reason given)" };
        if (isAuthFailure(failure) || turn.failures.some(isAuthFailure)) {
          throw codexAuthRequired(this.command, new Error(failure.message));
        }
        throw codexFatalError(this.command, failure) ?? new FailedTurn(failure, turn.itemsCompleted);
      },
      {
        policy,
        transient: (err) => (err instanceof FailedTurn && isTransientFailure(err.failure) && err.itemsCompleted === 0 && !this.stopRequested ? this.transient(err.failure) : null),
        retrying: this.ctx.retrying,
        backoff: this.backoff,
        interrupted: () => this.logger.info("interrupted while waiting to try the turn again"),
        onRetry: (failure, attempt, delay) => this.logger.warn(`the turn failed with a transient error; trying again in ${delay} ms`, { error: failure.detail, attempt }),
      },
    ).catch((err: unknown) => {
      throw err instanceof FailedTurn ? agentProtocolError(this.command, "the turn", new Error(err.failure.message)) : err;
    });
  }

  private async runCompaction(): Promise<void> {
    const turn = await this.openTurn("compact", async (client, threadId) => {
      await client.request("thread/compact/start", { threadId }).catch((err: unknown) => {
        throw this.requestError("thread/compact/start", err);
      });
      return null;
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), this.compactTimeoutMs);
    });
    try {
      const outcome = await Promise.race([this.finishTurn(turn), timedOut]);
      if (outcome === "timeout") {
        this.logger.warn(`the compaction did not finish within ${this.compactTimeoutMs} ms; carrying on`);
        if (this.turn === turn) this.turn = null;
        return;
      }
      this.logger.info("compacted the Codex thread", { status: outcome.status });
      if (outcome.status === "failed") throw agentProtocolError(this.command, "thread/compact/start", new Error(outcome.error?.message ?? "failed"));
    } finally {
      clearTimeout(timer);
    }
  }

  /** Starts a turn with `begin` (which returns its turn id when the response carries one). */
  private async openTurn(
    kind: ActiveTurn["kind"],
    begin: (client: AppServerClient, threadId: string) => Promise<{ turn: { id: string } } | null>,
  ): Promise<ActiveTurn> {
    const client = this.client;
    const threadId = this.threadId;
    if (!client || !threadId || client.exitCode !== null) throw new Error("CodexRunner: the agent is not running");
    const turn = new ActiveTurn(kind);
    this.turn = turn;
    try {
      const started = await begin(client, threadId);
      if (started) this.adopt(turn, started.turn.id);
      return turn;
    } catch (err) {
      if (this.turn === turn) this.turn = null;
      throw err;
    }
  }

  /** Waits for the turn's end (or the process's), then for its steers. */
  private async finishTurn(turn: ActiveTurn): Promise<TurnEnd> {
    const client = this.client;
    try {
      if (!client) throw new Error("CodexRunner: the agent is not running");
      const outcome = await Promise.race([turn.done, client.exited.then((code) => ({ exit: code }))]);
      if ("exit" in outcome) {
        if (this.stopRequested) throw new Error("CodexRunner: the agent was stopped during the turn");
        throw client.exitError("a turn");
      }
      await turn.steering;
      this.logger.debug("turn ended", { kind: turn.kind, status: outcome.status, turnId: turn.id });
      return outcome;
    } finally {
      if (this.turn === turn) this.turn = null;
    }
  }

  private adopt(turn: ActiveTurn, id: string): void {
    if (turn.id) return;
    turn.id = id;
    if (turn.interruptRequested) void this.sendInterrupt(turn);
  }

  private async sendInterrupt(turn: ActiveTurn, timeoutMs?: number): Promise<void> {
    const client = this.client;
    const threadId = this.threadId;
    if (!client || !threadId || !turn.id) return;
    this.logger.info("interrupting the current turn", { turnId: turn.id });
    await client
      .request("turn/interrupt", { threadId, turnId: turn.id }, timeoutMs === undefined ? {} : { timeoutMs })
      .catch((err: unknown) => this.logger.warn(`turn/interrupt failed: ${errorMessage(err)}`));
  }

  // ---------------------------------------------------------------- notifications

  private enqueueEvent(client: AppServerClient, notification: AppServerNotification): void {
    this.events = this.events
      .then(() => (this.client === client ? this.handleEvent(notification) : undefined))
      .catch((err: unknown) => this.logger.error(`handling ${notification.method} failed: ${errorMessage(err)}`));
  }

  private async handleEvent(n: AppServerNotification): Promise<void> {
    if (n.method === "error") {
      const { error, willRetry } = n.params;
      const failure: CodexFailure = { message: error.message, codexErrorInfo: error.codexErrorInfo };
      if (willRetry) {
        this.logger.warn(`codex is retrying: ${error.message}`, { codexErrorInfo: error.codexErrorInfo });
        // Codex's own retries (its stream reconnects): the asker hears of a long delay.
        if (this.turn?.kind === "prompt") this.announceCodexRetry(failure, null, null);
      }
      else this.logger.error(`codex reported an error: ${error.message}`, { codexErrorInfo: error.codexErrorInfo });
      const turn = this.turn;
      if (turn && (n.params.threadId === undefined || n.params.threadId === this.threadId)) turn.failures.push(failure);
      return;
    }
    if (n.params.threadId !== this.threadId) return;
    // Every notification moves the thread's running total on, the ones of other turns too.
    const added = n.method === "thread/tokenUsage/updated" ? this.tokens.update(n.params.threadId, n.params.tokenUsage) : null;
    const turn = this.turn;
    const turnId = n.method === "turn/started" || n.method === "turn/completed" ? n.params.turn.id : n.params.turnId;
    if (!turn) {
      this.logger.debug(`${n.method} outside a turn; ignored`, { turnId });
      return;
    }
    if (turnId !== undefined) {
      // The turn's id comes only from the turn/start response or turn/started: after
      // thread/resume Codex re-sends thread/tokenUsage/updated with the PREVIOUS turn's id,
      // and adopting that would drop every notification of the real turn.
      if (!turn.id && n.method === "turn/started") this.adopt(turn, turnId);
      if (turn.id !== turnId) {
        this.logger.debug(`${n.method} of another turn; ignored`, { turnId, current: turn.id });
        return;
      }
    }
    switch (n.method) {
      case "item/agentMessage/delta":
        turn.deltas.set(n.params.itemId, (turn.deltas.get(n.params.itemId) ?? "") + n.params.delta);
        return;
      case "item/completed": {
        // Codex completes the user's own message as an item first: it is not work done.
        if (n.params.item.type !== "userMessage") turn.itemsCompleted++;
        if (turn.kind !== "prompt") return;
        const item = n.params.item;
        const normalized = normalizeItem(item, turn.deltas.get(item.id));
        turn.deltas.delete(item.id);
        if (normalized.kind === "invalid") this.logger.error(`protocol error: an item culture cannot read (${normalized.problem}); skipped it`);
        else if (normalized.kind === "blocks") await this.emitContent(normalized.blocks);
        this.steerWhispers(turn);
        return;
      }
      case "thread/tokenUsage/updated": {
        this.logger.debug("token usage", { ...n.params.tokenUsage.last, window: n.params.tokenUsage.modelContextWindow ?? null });
        await this.reportUsage(turn, added);
        const context = contextOf(n.params.tokenUsage);
        if (context) await this.emit({ type: "assistant", content: [], context });
        return;
      }
      case "turn/completed":
        turn.finish({ status: n.params.turn.status, error: n.params.turn.error ?? null });
        return;
      default:
        return;
    }
  }

  /**
   * A model call's usage as a content-less message, as it happens (budgets can stop a turn in
   * flight); a compaction's waits for the next prompt's turn.
   */
  private async reportUsage(turn: ActiveTurn, added: Usage | null): Promise<void> {
    if (turn.kind !== "prompt") {
      this.carriedUsage = sumUsage(this.carriedUsage, added);
      return;
    }
    const usage = sumUsage(this.carriedUsage, added);
    this.carriedUsage = null;
    if (usage) await this.emit({ type: "assistant", content: [], usage, ...(this.model ? { model: this.model } : {}) });
  }

  /** Delivers whispers waiting in the daemon into the running turn (`turn/steer`). */
  private steerWhispers(turn: ActiveTurn): void {
    const client = this.client;
    const threadId = this.threadId;
    if (!client || !threadId || !turn.id) return;
    const whispers = this.ctx.takeWhispers();
    if (!whispers.length) return;
    const expectedTurnId = turn.id;
    turn.steering = turn.steering.then(async () => {
      try {
        await client.request("turn/steer", { threadId, input: [textInput(formatWhispers(whispers))], expectedTurnId });
        this.logger.info("delivered supervisor whispers into the turn (turn/steer)", { count: whispers.length, turnId: expectedTurnId });
      } catch (err) {
        // The turn ended (or cannot be steered): the whispers open the next turn instead.
        this.logger.warn(`turn/steer failed; the whispers open the next turn: ${errorMessage(err)}`);
        this.undelivered.push(...whispers);
      }
    });
  }

  private async emitContent(content: ContentBlock[]): Promise<void> {
    await this.emit({ type: "assistant", content, ...(this.model ? { model: this.model } : {}) });
  }

  // ---------------------------------------------------------------- failures

  /** Tries `fn` again after a backoff while it fails with a transient error (e.g. overloaded): core's retryTransient. */
  private retrying<T>(fn: () => Promise<T>): Promise<T> {
    return retryTransient(fn, {
      policy: this.retryPolicy(),
      transient: (err) => {
        const failure = failureOf(err);
        return failure && isTransientFailure(failure) && !this.stopRequested ? this.transient(failure) : null;
      },
      retrying: this.ctx.retrying,
      backoff: this.backoff,
      onRetry: (failure, attempt, delay) => this.logger.warn(`codex app-server: ${failure.detail}; trying again in ${delay} ms`, { attempt }),
    });
  }

  /** Tells the daemon a model call is being retried (core's classification of the failure). */
  private announceCodexRetry(failure: CodexFailure, attempt: number | null, delayMs: number | null): void {
    announceRetry(this.ctx.retrying, this.transient(failure), attempt, delayMs);
  }

  private transient(failure: CodexFailure): TransientFailure {
    return { reason: classifyCodexFailure(failure).reason, detail: failure.message };
  }

  private retryPolicy(): RetryPolicy {
    return { retries: this.retry.attempts, baseDelayMs: this.retry.baseDelayMs, maxDelayMs: this.retry.maxDelayMs };
  }

  /** What a failed request means for the daemon: auth, an exit, or a protocol error. */
  private requestError(method: string, err: unknown): unknown {
    if (isCultureError(err)) return err;
    const failure = failureOf(err);
    if (failure && isAuthFailure(failure)) return codexAuthRequired(this.command, err);
    return failure ? agentProtocolError(this.command, method, err) : err;
  }

  private async onProcessExit(client: AppServerClient, code: number): Promise<void> {
    if (this.client !== client || this.stopRequested) return; // stopped (or replaced) by us
    this.client = null;
    await this.reportExit(code);
  }
}

/**
 * Codex config overrides culture sets on every thread. `allow_login_shell: false`: Codex runs the
 * agent's commands in a login shell by default (`bash -lc`), and /etc/profile then replaces
 * PATH, so the agent's shell no longer finds `culture` (or anything else the daemon's PATH
 * has); without a login shell the commands inherit the daemon's environment. `channel_access:
 * network` opens the sandbox's network only when the agent may use `culture channel` at all
 * (`irc_tools` `cli` or `both`): with `mcp` the sandbox stays closed.
 */
export function threadConfig(options: { sandbox: SandboxMode } & Pick<CodexOptions, "channel_access">, ircTools?: IrcToolsMode): Record<string, unknown> {
  return {
    allow_login_shell: false,
    ...(options.sandbox === "danger-full-access" || !hasCliIrcTools(ircTools) ? {} : channelAccessConfig(options.channel_access)),
  };
}

/** A turn that ended `failed`, with what it got done (retried only when nothing). */
class FailedTurn extends Error {
  constructor(
    readonly failure: CodexFailure,
    readonly itemsCompleted: number,
  ) {
    super(failure.message);
  }
}

const VERSION: string = (createRequire(import.meta.url)("../package.json") as { version: string }).version;
