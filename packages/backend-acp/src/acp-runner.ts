/**
 * The AgentRunner of the ACP backend: one agent process, one ACP session.
 *
 * Stable ACP v1 has no system prompt and no model in `session/new`, so culture's prompt is
 * sent as the session's first turn (its reply is kept off IRC and away from `onMessage`), and
 * the model is picked through the session's config options. After a crash the daemon passes
 * the old session id; when the agent supports `session/load` the conversation is resumed
 * instead, and the system prompt is not sent again.
 */
import * as acp from "@agentclientprotocol/sdk";
import type { SessionConfigOption, SessionNotification } from "@agentclientprotocol/sdk";
import { ManagedRunner, RetryBackoff, agentProtocolError, announceRetry, errorMessage, retryTransient, type RunnerContext } from "@culture/core";
import { openCodeRetry } from "./opencode-log.js";
import { acpRetryPolicy, transientPromptFailure } from "./agent-retries.js";
import { createRequire } from "node:module";
import { AcpAgentProcess } from "./acp-agent-process.js";
import { ACP_PROTOCOL_VERSION, clientCapabilities, createAcpClient, sessionNewError } from "./acp-client.js";
import type { AcpOptions } from "./acp-options.js";
import { ircMcpServers } from "./irc-mcp-server.js";
import { findModelOption, selectModel } from "./model-selection.js";
import { PermissionGate } from "./permission-gate.js";
import { promptError } from "./prompt-errors.js";
import { noteSessionCreated, sessionLoadDelayMs } from "./session-load-quirks.js";
import { TurnNormalizer } from "./turn-normalizer.js";
import { AcpSessionCost, responseUsage } from "./acp-usage.js";

/** Tunables of {@link AcpRunner} (tests shorten them). */
export interface AcpRunnerSettings {
  /** How long `stop()` waits after closing stdin, and again after SIGTERM. Default 3000 ms. */
  stopGraceMs?: number;
}

interface Turn {
  normalizer: TurnNormalizer;
  /** Content the agent sent in this turn (messages, thoughts, tool calls): a failed turn that sent some is not retried. */
  updates: number;
  /** Retries the agent announced in its log in this turn (opencode-log.ts). */
  agentRetries?: number;
  /** The system-prompt turn: nothing of it reaches onMessage. */
  silent: boolean;
  /** interrupt() was called during this turn: a failure after it is not retried. */
  interrupted?: boolean;
}

/** Runs one ACP agent (`acp_command`) for one culture agent. */
export class AcpRunner extends ManagedRunner {
  private process: AcpAgentProcess | null = null;
  private currentSessionId: string | null;
  private turn: Turn | null = null;
  /** The session's cumulative cost (usage_update), turned into each turn's (acp-usage.ts). */
  private readonly sessionCost = new AcpSessionCost();
  /** Serializes session/update handling (the SDK does not await notification handlers). */
  private updates: Promise<void> = Promise.resolve();
  /** When the last session/update arrived (epoch ms). */
  private lastUpdateAt = 0;
  private configOptions: SessionConfigOption[] = [];
  /** Set when a previous session could not be resumed and a new one was started: why. */
  private lostSession: { sessionId: string; reason: string } | null = null;
  private readonly stopGraceMs: number;
  /** Permission requests to the daemon, when the agent's permissions mode is not bypass. */
  private readonly gate: PermissionGate;
  /** The session's modes (Gemini CLI's approval modes), from session/new or session/load. */
  private modes: acp.SessionModeState | null = null;
  /** The agent's ACP `agentInfo.name` (whether it retries by itself: agent-retries.ts). */
  private agentName: string | undefined;
  /** The wait before culture retries a turn (cut short by interrupt and stop). */
  private readonly backoff = new RetryBackoff();

  /** @param ctx What the daemon gives a runner; `ctx.options` are the parsed ACP fields. */
  constructor(
    private readonly ctx: RunnerContext<AcpOptions>,
    settings: AcpRunnerSettings = {},
  ) {
    super(ctx.logger);
    this.stopGraceMs = settings.stopGraceMs ?? 3_000;
    this.currentSessionId = null;
    this.gate = new PermissionGate(ctx, ctx.logger.child("permissions"));
    tapStatusOnce(ctx.hooks, this);
  }

  /**
   * When this runner could not resume the previous session (after a crash) and started a new
   * one: the old session's id and why. `culture status` shows it: the agent's history is lost.
   */
  get historyLost(): { sessionId: string; reason: string } | null {
    return this.lostSession;
  }

  /** The ACP session id (kept after the process exits, so a new runner can resume it). */
  get sessionId(): string | null {
    return this.currentSessionId;
  }

  /** The agent's current model (the value of its model config option), when it has one. */
  get model(): string | undefined {
    const option = findModelOption(this.configOptions);
    return option && typeof option.currentValue === "string" ? option.currentValue : undefined;
  }

  /**
   * Spawns the agent, initializes ACP, opens (or resumes) the session, selects the model and
   * sends the system prompt as the first turn; then `initialPrompt`, if any, as a normal turn.
   * Throws E_AGENT_COMMAND_NOT_FOUND, E_AGENT_AUTH, E_AGENT_EXITED or E_AGENT_PROTOCOL.
   */
  protected override async startAgent(initialPrompt?: string): Promise<void> {
    const command = this.ctx.options.acp_command;
    const env = { ...this.ctx.env, ...this.gate.agentEnv(), ...this.ctx.options.env };
    const mcpServers = await ircMcpServers(this.ctx.nick, this.ctx.agent.irc_tools, env, this.ctx.directory);
    const proc = await AcpAgentProcess.spawn({
      command,
      cwd: this.ctx.directory,
      env,
      logger: this.logger.child("agent"),
      sandbox: this.ctx.sandbox ?? null,
      onStderrLine: (line) => this.onAgentLogLine(line),
      client: createAcpClient({
        directory: this.ctx.directory,
        permission: this.ctx.options.permission,
        // In a sandbox the agent's file reads and writes stay inside it, not in the daemon's hands.
        fileSystem: !this.ctx.sandbox,
        logger: this.logger,
        onUpdate: (notification) => this.enqueueUpdate(notification),
        onPermission: this.gate.asks ? (params) => this.gate.answer(params) : undefined,
      }),
    });
    this.process = proc;
    try {
      this.throwIfStopRequested();
      const init = await proc
        .request(acp.methods.agent.initialize, {
          protocolVersion: ACP_PROTOCOL_VERSION,
          clientCapabilities: clientCapabilities(!this.ctx.sandbox),
          clientInfo: { name: "culture", version: VERSION },
        })
        .catch((err: unknown) => {
          throw err instanceof acp.RequestError ? agentProtocolError(command, "initialize", err) : err;
        });
      this.agentName = init.agentInfo?.name;
      const resumed = await this.openSession(proc, init, mcpServers);
      this.logger.info(resumed ? "resumed the ACP session" : "started an ACP session", {
        sessionId: this.currentSessionId,
        agent: init.agentInfo?.name,
        pid: proc.pid,
      });
      this.configOptions = await selectModel(proc, this.currentSessionId ?? "", this.configOptions, this.ctx.model, this.logger);
      await this.selectAskingMode(proc);
      this.setRunning(true);
      if (!resumed && this.ctx.systemPrompt.trim()) {
        await this.prompt(this.ctx.systemPrompt, true);
      }
      if (initialPrompt?.trim()) await this.prompt(initialPrompt, false);
      // Watched from here on: an exit during start() is reported by start() rejecting.
      void proc.exited.then((code) => this.onProcessExit(proc, code));
    } catch (err) {
      this.setRunning(false);
      this.process = null;
      await proc.shutdown(this.stopGraceMs);
      throw err;
    }
  }

  /** Whether start() has a process that stop() must end. */
  protected override hasAgent(): boolean {
    return this.process !== null;
  }

  /** One user turn; resolves with the turn's end (`stopReason`), after its messages. */
  protected override runTurn(text: string): Promise<void> {
    return this.promptTurn(text, false);
  }

  /** Cancels the current turn (`session/cancel`); its sendPrompt resolves with `cancelled`. */
  override async interrupt(): Promise<void> {
    // A turn waiting to be retried ends here, as cancelled (requestPrompt).
    this.backoff.cancel("interrupt");
    if (this.turn) this.turn.interrupted = true;
    if (!this.turn || !this.process || !this.currentSessionId) return;
    this.logger.info("cancelling the current turn");
    this.gate.withdraw();
    await this.process.notifyCancel(this.currentSessionId);
  }

  /**
   * Stops the agent: end of input, then SIGTERM, then SIGKILL, each after the grace period.
   * Idempotent. An exit caused by stop() is not reported to `onExit` (it is not the agent's).
   */
  protected override async stopAgent(): Promise<void> {
    const proc = this.process;
    if (!proc) return;
    this.gate.withdraw();
    this.backoff.cancel("stop");
    try {
      if (this.turn && this.currentSessionId) await proc.notifyCancel(this.currentSessionId);
      const code = await proc.shutdown(this.stopGraceMs);
      this.logger.info("the agent stopped", { code });
    } finally {
      this.process = null;
    }
  }

  /** Resumes the previous session or starts a new one, with `mcpServers` (culture's IRC tools) either way. */
  private async openSession(proc: AcpAgentProcess, init: acp.InitializeResponse, mcpServers: acp.McpServer[]): Promise<boolean> {
    const cwd = this.ctx.directory;
    const previous = this.currentSessionId ?? this.ctx.previousSessionId;
    if (previous && init.agentCapabilities?.loadSession) {
      const delay = sessionLoadDelayMs(init.agentInfo?.name, previous);
      if (delay > 0) {
        this.logger.info(`waiting ${Math.ceil(delay / 1000)} s for the next minute before loading the session (${init.agentInfo?.name} would overwrite it now)`, {
          sessionId: previous,
        });
        await new Promise((resolve) => setTimeout(resolve, delay));
        this.throwIfStopRequested();
      }
      try {
        // The agent replays the conversation as session/update notifications: with no turn
        // open they are dropped, so nothing old is relayed again.
        const loaded = await proc.request(acp.methods.agent.session.load, { sessionId: previous, cwd, mcpServers });
        // Let the replay drain while no turn is open. Gemini CLI 0.61.0 answers session/load
        // before it has replayed the history (it streams it without awaiting), so wait until
        // the updates go quiet: a replayed tool call inside the next turn looked like a loop.
        await this.waitForQuietUpdates(REPLAY_QUIET_MS, REPLAY_MAX_WAIT_MS);
        this.currentSessionId = previous;
        this.sessionCost.reset(null);
        this.configOptions = loaded.configOptions ?? [];
        this.modes = loaded.modes ?? null;
        return true;
      } catch (err) {
        if (proc.exitCode !== null) throw err;
        const reason = loadErrorText(err);
        this.lostSession = { sessionId: previous, reason };
        this.logger.warn("could not resume the previous ACP session; starting a new one: the agent's history is lost", {
          sessionId: previous,
          error: reason,
        });
      }
    } else if (previous) {
      this.lostSession = { sessionId: previous, reason: "the agent cannot load sessions (no loadSession capability)" };
      this.logger.warn("the agent cannot load sessions (no loadSession capability); starting a new one: the agent's history is lost");
    }
    try {
      const created = await proc.request(acp.methods.agent.session.new, { cwd, mcpServers });
      this.currentSessionId = created.sessionId;
      this.sessionCost.reset(0);
      noteSessionCreated(created.sessionId);
      this.configOptions = created.configOptions ?? [];
      this.modes = created.modes ?? null;
      return false;
    } catch (err) {
      throw sessionNewError(err, init, this.ctx.options.acp_command);
    }
  }

  /**
   * When culture asks for permissions, puts an agent with Gemini CLI's approval modes in its
   * `default` mode ("Prompts for approval") if it started in another (`yolo`, `autoEdit` from
   * its settings or flags), so that it asks before running commands and editing files.
   */
  private async selectAskingMode(proc: AcpAgentProcess): Promise<void> {
    const modes = this.modes;
    if (!this.gate.asks || !modes || modes.currentModeId === "default") return;
    if (!modes.availableModes.some((m) => m.id === "default")) return;
    await proc.request(acp.methods.agent.session.setMode, { sessionId: this.currentSessionId ?? "", modeId: "default" });
    this.logger.info(`switched the agent from its ${modes.currentModeId} mode to default, so that it asks for permissions`);
  }

  /** Runs one turn; turns never overlap. */
  private prompt(text: string, silent: boolean): Promise<void> {
    return this.enqueueTurn(() => this.promptTurn(text, silent));
  }

  private async promptTurn(text: string, silent: boolean): Promise<void> {
    const proc = this.process;
    const sessionId = this.currentSessionId;
    if (!proc || !sessionId || proc.exitCode !== null) throw new Error("AcpRunner: the agent is not running");
    // Updates that arrived before this turn (a late replay, the end of a cancelled turn) are not its.
    await this.drainUpdates();
    let turn: Turn = { normalizer: new TurnNormalizer(this.model), silent, updates: 0 };
    this.turn = turn;
    try {
      for (let prompt: string | null = text; prompt !== null; ) {
        const response = await this.requestPrompt(proc, sessionId, prompt, turn);
        await this.drainUpdates();
        // A silent turn's cost is not taken: it goes with the next turn's.
        const cost = silent ? null : this.sessionCost.take(responseUsage(response).length > 0);
        const final = turn.normalizer.finish(response, cost);
        this.logger.debug("turn ended", { stopReason: response.stopReason, silent });
        if (!silent) for (const message of final) await this.emit(message);
        // ACP's permission answer carries no reason: the model learns it from the next prompt.
        prompt = this.stopRequested || response.stopReason === "cancelled" ? null : this.gate.takeDenialPrompt();
        if (prompt !== null) {
          this.logger.info("telling the agent why its tool calls were denied");
          turn = { normalizer: new TurnNormalizer(this.model), silent, updates: 0 };
          this.turn = turn;
        }
      }
    } catch (err) {
      if (this.stopRequested) {
        throw new Error("AcpRunner: the agent was stopped during the turn", { cause: err });
      }
      throw promptError(err, this.ctx.options.acp_command);
    } finally {
      if (this.turn === turn) this.turn = null;
    }
  }

  /**
   * One `session/prompt`, tried again (core's retryTransient) while it fails with a transient
   * model error before the agent sent anything of the turn: a retry never repeats work the
   * agent did or said. How often depends on the agent (agent-retries.ts).
   */
  private requestPrompt(proc: AcpAgentProcess, sessionId: string, prompt: string, turn: Turn): Promise<acp.PromptResponse> {
    const policy = acpRetryPolicy(this.ctx.options, this.agentName);
    return retryTransient(
      async () => {
        try {
          return await proc.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: prompt }] });
        } catch (err) {
          // The agent's updates sent before its error answer are this attempt's.
          await this.drainUpdates();
          throw err;
        }
      },
      {
        policy,
        transient: (err) => (this.stopRequested || turn.interrupted || turn.updates > 0 || proc.exitCode !== null ? null : transientPromptFailure(err)),
        // The system prompt's turn is nobody's request: nobody to tell.
        ...(turn.silent ? {} : { retrying: this.ctx.retrying }),
        backoff: this.backoff,
        // Interrupted while it waited to retry: the turn ends as a cancelled one does.
        interrupted: () => ({ stopReason: "cancelled" }),
        onRetry: (failure, retry, delayMs) =>
          this.logger.warn("the model API failed for now; retrying the turn", { retry, of: policy.retries, delay_ms: delayMs, agent: this.agentName, error: failure.detail.slice(0, 200) }),
      },
    );
  }

  /** A line of the agent's log: OpenCode's retries, which ACP does not carry, reach the daemon (opencode-log.ts). */
  private onAgentLogLine(line: string): void {
    const turn = this.turn;
    if (!turn || turn.silent) return;
    const failure = openCodeRetry(line, this.currentSessionId);
    if (failure) announceRetry(this.ctx.retrying, failure, (turn.agentRetries = (turn.agentRetries ?? 0) + 1), null);
  }

  /**
   * Waits until every update received so far has been handled. The SDK settles a response
   * synchronously but runs notification handlers through a few awaits, so an update sent
   * before a response can reach us after it: one macrotask lets them all reach the queue.
   */
  private async drainUpdates(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    await this.updates;
  }

  /** Waits until no update has arrived for `quietMs` (at most `maxMs`), then drains them. */
  private async waitForQuietUpdates(quietMs: number, maxMs: number): Promise<void> {
    const end = Date.now() + maxMs;
    await this.drainUpdates();
    for (;;) {
      const quietFor = Date.now() - this.lastUpdateAt;
      if (quietFor >= quietMs || Date.now() >= end) break;
      await new Promise((resolve) => setTimeout(resolve, Math.min(quietMs - quietFor, Math.max(1, end - Date.now()))));
      await this.drainUpdates();
    }
  }

  private enqueueUpdate(notification: SessionNotification): void {
    this.lastUpdateAt = Date.now();
    this.updates = this.updates.then(() => this.handleUpdate(notification)).catch((err: unknown) => {
      this.logger.error("handling an ACP update failed", { error: errorMessage(err) });
    });
  }

  private async handleUpdate(notification: SessionNotification): Promise<void> {
    const update = notification.update;
    if (notification.sessionId !== this.currentSessionId) return;
    if (update.sessionUpdate === "config_option_update") {
      this.configOptions = update.configOptions;
      return;
    }
    if (update.sessionUpdate === "notice") {
      this.logger.warn(`agent notice: ${update.title}`, { severity: update.severity, description: update.description });
      return;
    }
    if (update.sessionUpdate === "usage_update") {
      this.sessionCost.note(update);
      // `used`/`size`: how full the context window is (core's context care), not tokens spent.
      if (Number.isFinite(update.used) && update.used > 0 && !this.turn?.silent) {
        await this.emit({ type: "assistant", content: [], context: { usedTokens: update.used, windowTokens: update.size > 0 ? update.size : null } });
      }
    }
    const turn = this.turn;
    if (turn && CONTENT_UPDATES.has(update.sessionUpdate)) turn.updates++;
    // Outside a turn (a session/load replay) or in the system-prompt turn: not the daemon's.
    if (!turn || turn.silent) return;
    for (const message of turn.normalizer.push(update)) await this.emit(message);
  }

  private async onProcessExit(proc: AcpAgentProcess, code: number): Promise<void> {
    if (this.process !== proc || this.stopRequested) return; // stopped (or replaced) by us
    this.process = null;
    this.gate.withdraw();
    await this.reportExit(code);
  }
}

/** Updates that carry the agent's work or words (a turn that sent some is not retried). */
const CONTENT_UPDATES = new Set(["agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan"]);

/** After session/load: how long without updates means the history replay is over. */
const REPLAY_QUIET_MS = 300;
/** After session/load: the longest wait for the replay to end. */
const REPLAY_MAX_WAIT_MS = 10_000;

/** The runner whose state `culture status` shows, per daemon (hooks object). */
const statusRunners = new WeakMap<RunnerContext["hooks"], AcpRunner>();

/**
 * Adds the ACP session's state to the daemon status, once per daemon: a runner that started a
 * new session because the previous one could not be resumed says so (`history_lost`, and in
 * the description `culture status` prints). The newest runner of the daemon is the one shown.
 */
function tapStatusOnce(hooks: RunnerContext["hooks"], runner: AcpRunner): void {
  const known = statusRunners.has(hooks);
  statusRunners.set(hooks, runner);
  if (known) return;
  hooks.status.tap("AcpSessionStatus", (status) => {
    const lost = statusRunners.get(hooks)?.historyLost;
    if (!lost) return status;
    return {
      ...status,
      history_lost: `session ${lost.sessionId} could not be resumed (${lost.reason}); a new session started without its history`,
      description: `${status.description} (restarted without its history: ${lost.reason})`,
    };
  });
}

/** An error of `session/load` as one line, with the agent's own details when it sent some. */
function loadErrorText(err: unknown): string {
  const data = err instanceof acp.RequestError ? (err.data as { details?: unknown } | undefined) : undefined;
  const details = typeof data?.details === "string" ? data.details : undefined;
  return details ? `${errorMessage(err)}: ${details}` : errorMessage(err);
}

const VERSION: string = (createRequire(import.meta.url)("../package.json") as { version: string }).version;
