/**
 * The agent daemon: one process per agent. It holds the IRC connection, buffers what it hears,
 * turns mentions and DMs into prompts (one turn at a time, correlated to their origin), serves
 * the IPC socket the agent's `culture channel` calls talk to, keeps the agent alive across
 * crashes (restart delay + circuit breaker), times out wedged turns, and wires the supervisor's
 * whispers and escalations to the agent and to humans.
 *
 * Startup: message buffer -> IRC transport -> alerts -> IPC socket -> supervisor -> runner.
 * Shutdown in reverse: runner, supervisor, socket, transport (QUIT), PID file.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { messageText, type AgentMessage } from "../agent-message.js";
import type { AgentRunnerBase } from "../agent-runner.js";
import { Alerts } from "../alerts/alerts.js";
import { completeText, errorText, escalationText, questionText, spiralingText, timeoutText } from "../alerts/alert-texts.js";
import type { BackendDefinition, Whisper } from "../backend.js";
import { MessageBuffer } from "../buffer/message-buffer.js";
import type { AgentConfig, CultureConfig } from "../config/schema.js";
import { alreadyRunning, errorMessage, isCultureError, socketPathTooLong } from "../errors.js";
import type { AgentStatus, IpcRequest, IpcResult, IrcMessageEvent, PromptOrigin, TurnResult } from "../events.js";
import { createDaemonHooks, type DaemonHooks } from "../hooks.js";
import { probeSocket } from "../ipc/ipc-client.js";
import { IpcServer } from "../ipc/ipc-server.js";
import { IrcTransport } from "../irc/irc-transport.js";
import { isMentioned } from "../irc/mentions.js";
import { createLogger, type Logger } from "../logger.js";
import { agentPidPath, ensureRuntimeDir, socketPath as resolveSocketPath, socketPathFits, UNIX_SOCKET_PATH_LIMIT } from "../paths.js";
import type { WhisperAction } from "../supervisor-base.js";
import { createEvaluator } from "../supervisor/create-evaluator.js";
import { WindowSupervisor } from "../supervisor/window-supervisor.js";
import { buildAgentPrompt, dmPrompt, mentionPrompt, resumePrompt } from "./agent-prompt.js";
import { CircuitBreaker } from "./circuit-breaker.js";
import { handleIpcRequest } from "./ipc-handlers.js";
import { isOperator, parseOperatorCommand } from "./operators.js";
import { applyRelayPlugin } from "./relay-plugin.js";

/** Options of {@link AgentDaemon}. */
export interface AgentDaemonOptions {
  config: CultureConfig;
  nick: string;
  /** The agent's backend, already loaded, with its parsed options. */
  backend: BackendDefinition;
  backendOptions: unknown;
  /** Hooks-only plugins already loaded (config `plugins:`). */
  plugins?: Array<{ name: string; apply(hooks: DaemonHooks, ctx: { nick: string; logger: Logger }): void }>;
  /** Loads a backend by name (for `supervisor.agent`). */
  loadBackend?: (name: string) => Promise<BackendDefinition>;
  logger?: Logger;
  env?: NodeJS.ProcessEnv;
  /** Write `$CULTURE_HOME/pids/agent-<nick>.pid` (default true). */
  writePidFile?: boolean;
  /** Tuning for tests; production uses the defaults. */
  timings?: Partial<DaemonTimings>;
}

/** Timings the daemon uses; all configurable so slow paths run fast in tests. */
export interface DaemonTimings {
  /** How long an interrupted turn may take to end before the runner is restarted. */
  interruptGraceMs: number;
  /** IRC reconnect backoff bounds. */
  reconnectMinMs: number;
  reconnectMaxMs: number;
  /** How long the first connection may take. */
  connectTimeoutMs: number;
  /** How many mentions/DMs are kept while paused or busy. */
  promptQueueLimit: number;
}

const DEFAULT_TIMINGS: DaemonTimings = {
  interruptGraceMs: 10_000,
  reconnectMinMs: 1_000,
  reconnectMaxMs: 60_000,
  connectTimeoutMs: 15_000,
  promptQueueLimit: 200,
};

interface QueuedPrompt {
  origin: PromptOrigin;
  text: string;
}

interface TurnState {
  origin: PromptOrigin;
  prompt: string;
  messages: AgentMessage[];
  sentTo: Set<string>;
  startedAt: number;
  error: string | null;
}

interface AskWaiter {
  resolve: (message: IrcMessageEvent | null) => void;
}

/** One agent's daemon. */
export class AgentDaemon {
  readonly hooks: DaemonHooks;
  readonly nick: string;
  readonly agent: AgentConfig;
  readonly socketPath: string;

  private readonly config: CultureConfig;
  private readonly backend: BackendDefinition;
  private readonly backendOptions: unknown;
  private readonly logger: Logger;
  private readonly env: NodeJS.ProcessEnv;
  private readonly timings: DaemonTimings;
  private readonly pidPath: string | null;
  private readonly startedAt = Date.now();

  private buffer!: MessageBuffer;
  private transport!: IrcTransport;
  private alerts!: Alerts;
  private ipc!: IpcServer;
  private supervisor!: WindowSupervisor;
  private runner: AgentRunnerBase | null = null;
  private breaker: CircuitBreaker;

  private queue: QueuedPrompt[] = [];
  private turn: TurnState | null = null;
  private pumping = false;
  /** True while startRunner() awaits runner.start(): prompts wait for that runner instead of starting another. */
  private runnerStarting = false;
  private paused = false;
  private restarting = false;
  private stopping = false;
  private stopped = false;
  private turnCount = 0;
  private lastActivation: number | null = null;
  private lastTask: string | null = null;
  private askWaiters: AskWaiter[] = [];
  private restartTimer: NodeJS.Timeout | null = null;
  private turnTimer: NodeJS.Timeout | null = null;
  private stopPromise: Promise<void> | null = null;
  /** Set when the agent cannot run until a human fixes something (login, missing command). */
  private fatal: string | null = null;
  private resolveDone!: () => void;
  /** Resolves when the daemon has stopped (for `--foreground` and IPC `shutdown`). */
  readonly done: Promise<void>;

  constructor(options: AgentDaemonOptions) {
    this.config = options.config;
    this.nick = options.nick;
    const agent = options.config.agents.find((a) => a.nick.toLowerCase() === options.nick.toLowerCase());
    if (!agent) throw new Error(`no agent ${options.nick} in the config`);
    this.agent = agent;
    this.backend = options.backend;
    this.backendOptions = options.backendOptions;
    this.env = options.env ?? process.env;
    this.logger = options.logger ?? createLogger({ scope: this.nick });
    this.timings = { ...DEFAULT_TIMINGS, ...options.timings };
    this.socketPath = resolveSocketPath(this.nick, this.env);
    this.pidPath = options.writePidFile === false ? null : agentPidPath(this.nick, this.env);
    this.breaker = new CircuitBreaker(this.config.restart.max_crashes, this.config.restart.window_seconds * 1000);
    this.hooks = createDaemonHooks({ onTapError: (e) => this.logger.error(e.message, { code: e.code }) });
    this.done = new Promise((r) => (this.resolveDone = r));
    applyRelayPlugin(this.hooks, this.agent.relay, (target, text) => {
      this.sayAsAgent(target, text);
    });
    this.backend.apply?.(this.hooks);
    for (const plugin of options.plugins ?? []) plugin.apply(this.hooks, { nick: this.nick, logger: this.logger.child(plugin.name) });
    this.loadBackendByName = options.loadBackend;
  }

  private readonly loadBackendByName: ((name: string) => Promise<BackendDefinition>) | undefined;

  /** Starts everything; rejects (after cleaning up) when any part fails to start. */
  async start(): Promise<void> {
    await this.claimSocket();
    try {
      this.buffer = new MessageBuffer(this.config.buffer_size);
      await this.startTransport();
      this.alerts = new Alerts({
        nick: this.nick,
        webhooks: this.config.webhooks,
        logger: this.logger.child("alerts"),
        hooks: this.hooks,
        sendIrc: (channel, text) => {
          this.safeSay(channel, text);
        },
      });
      this.ipc = new IpcServer({
        path: this.socketPath,
        handler: (req) => this.onIpcRequest(req),
        logger: this.logger.child("ipc"),
      });
      await this.ipc.start();
      await this.startSupervisor();
      this.writePidFile();
      await this.startRunner(null);
      await this.hooks.ready.promise();
      this.logger.info("ready", { socket: this.socketPath, backend: this.backend.name });
    } catch (err) {
      await this.stop().catch(() => undefined);
      throw err;
    }
  }

  /** Stops everything in reverse order. Idempotent; safe to call from inside an IPC request. */
  stop(): Promise<void> {
    this.stopPromise ??= this.doStop();
    return this.stopPromise;
  }

  private async doStop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.clearTurnTimer();
    for (const w of this.askWaiters.splice(0)) w.resolve(null);
    await this.hooks.shutdown.promise().catch(() => undefined);
    const step = async (name: string, fn: () => Promise<void> | void) => {
      try {
        await fn();
      } catch (err) {
        this.logger.warn(`stopping ${name} failed: ${errorMessage(err)}`);
      }
    };
    await step("runner", () => this.runner?.stop());
    await step("supervisor", () => this.supervisor?.stop());
    await step("IPC socket", () => this.ipc?.stop());
    await step("IRC transport", () => this.transport?.close("culture daemon stopping"));
    await step("PID file", () => this.removePidFile());
    this.stopped = true;
    this.logger.info("stopped");
    this.resolveDone();
  }

  // ---------------------------------------------------------------- startup parts

  /** Single instance: a live daemon on our socket wins; a stale socket file is replaced. */
  private async claimSocket(): Promise<void> {
    if (!socketPathFits(this.socketPath)) throw socketPathTooLong(this.socketPath, UNIX_SOCKET_PATH_LIMIT);
    ensureRuntimeDir(this.env);
    if (!existsSync(this.socketPath)) return;
    const probe = await probeSocket(this.socketPath, 2000);
    if (probe.alive) throw alreadyRunning(this.nick, probe.pid);
    this.logger.info("replacing a stale socket file", { path: this.socketPath });
    try {
      unlinkSync(this.socketPath);
    } catch {
      /* already gone */
    }
  }

  private async startTransport(): Promise<void> {
    const channels = [...this.agent.channels];
    const alertChannel = this.config.webhooks.irc_channel;
    if (!channels.some((c) => c.toLowerCase() === alertChannel.toLowerCase())) channels.push(alertChannel);
    this.transport = new IrcTransport({
      server: this.config.server,
      nick: this.nick,
      channels,
      logger: this.logger.child("irc"),
      reconnectMinMs: this.timings.reconnectMinMs,
      reconnectMaxMs: this.timings.reconnectMaxMs,
      connectTimeoutMs: this.timings.connectTimeoutMs,
    });
    this.transport.on("message", (ev: IrcMessageEvent) => {
      void this.onIrcMessage(ev).catch((err) => this.logger.error(`handling an IRC message failed: ${errorMessage(err)}`));
    });
    this.transport.on("kicked", (k: { channel: string; by: string; reason: string }) =>
      this.logger.warn(`kicked from ${k.channel} by ${k.by}: ${k.reason}`),
    );
    this.transport.on("joinError", (j: { channel: string; code: string; reason: string }) =>
      this.logger.warn(`could not join ${j.channel}: ${j.code} ${j.reason}`),
    );
    this.transport.on("nickInUse", (taken: string) => this.logger.warn(`nick ${taken} is in use; using ${this.transport.nick}`));
    await this.transport.connect();
  }

  private async startSupervisor(): Promise<void> {
    const { evaluator, name } = await createEvaluator(this.config.supervisor, {
      nick: this.nick,
      directory: this.agent.directory,
      env: this.agentEnv(),
      logger: this.logger.child("evaluator"),
      ...(this.loadBackendByName ? { loadBackend: this.loadBackendByName } : {}),
      agentBackend: this.backend,
      agentOptions: this.backendOptions,
    });
    this.supervisor = new WindowSupervisor({
      nick: this.nick,
      config: this.config.supervisor,
      evaluator,
      evaluatorName: name,
      logger: this.logger.child("supervisor"),
    });
    this.supervisor.onWhisper = (message, action) => this.deliverWhisper(message, action);
    this.supervisor.onEscalation = (reason) => this.escalate(reason);
    await this.supervisor.start();
  }

  private agentEnv(): Record<string, string | undefined> {
    return { ...this.env, CULTURE_NICK: this.nick };
  }

  private createRunner(previousSessionId: string | null): AgentRunnerBase {
    const model = this.agent.model ?? this.backend.defaults?.model ?? null;
    return this.backend.createRunner({
      nick: this.nick,
      agent: this.agent,
      directory: this.agent.directory,
      channels: this.agent.channels,
      model,
      thinking: this.agent.thinking,
      systemPrompt: buildAgentPrompt({ nick: this.nick, channels: this.agent.channels, userPrompt: this.agent.system_prompt, ircTools: this.backend.mcpIrcTools ? this.agent.irc_tools : "cli" }),
      options: this.backendOptions,
      env: this.agentEnv(),
      logger: this.logger.child(this.backend.name),
      hooks: this.hooks,
      previousSessionId,
      takeWhispers: () => this.takeWhispers(),
    });
  }

  /** Starts a fresh runner; with a resume reason its first turn is the resume prompt. */
  private async startRunner(resumeReason: string | null, previousSessionId: string | null = null): Promise<void> {
    const runner = this.createRunner(previousSessionId);
    runner.onMessage = (msg) => this.onAgentMessage(runner, msg);
    runner.onExit = (code) => this.onAgentExit(runner, code);
    this.runner = runner;
    this.runnerStarting = true;
    try {
      await runner.start();
    } finally {
      this.runnerStarting = false;
    }
    if (resumeReason) {
      this.queue.unshift({ origin: this.origin("resume", null, null, null, ""), text: resumePrompt(resumeReason, this.lastTask) });
    }
    this.pump();
  }

  // ---------------------------------------------------------------- IRC in

  private get names(): string[] {
    const short = this.nick.includes("-") ? this.nick.slice(this.nick.indexOf("-") + 1) : this.nick;
    const names = [this.nick, short];
    if (this.transport && this.transport.nick.toLowerCase() !== this.nick.toLowerCase()) names.push(this.transport.nick);
    return names;
  }

  private isOwnNick(nick: string): boolean {
    const n = nick.toLowerCase();
    return n === this.nick.toLowerCase() || (this.transport !== undefined && n === this.transport.nick.toLowerCase());
  }

  private async onIrcMessage(ev: IrcMessageEvent): Promise<void> {
    if (this.isOwnNick(ev.nick)) return;
    if (await this.hooks.ircMessage.promise(ev)) return;
    this.buffer.add(ev.bufferKey, { nick: ev.nick, text: ev.text, timestamp: ev.time / 1000 });
    if (ev.kind === "notice") return; // NOTICEs never trigger replies (RFC 2812 3.3.2)
    const addressed = ev.isDm || isMentioned(ev.text, this.names);
    if (!addressed) return;

    const command = parseOperatorCommand(ev.text, this.names, ev.isDm);
    if (command) return this.onOperatorCommand(ev, command);

    const waiter = this.askWaiters.shift();
    if (waiter) return waiter.resolve(ev);

    const origin = ev.isDm
      ? this.origin("dm", null, ev.nick, ev.nick, ev.text)
      : this.origin("mention", ev.target, ev.nick, ev.target, ev.text);
    const base = ev.isDm ? dmPrompt(ev.nick, ev.text) : mentionPrompt(ev.target, ev.nick, ev.text);
    const prompt = await this.hooks.mention.promise(base, origin);
    if (prompt === null) return;
    this.enqueue({ origin, text: prompt });
  }

  private async onOperatorCommand(ev: IrcMessageEvent, command: "resume" | "abort"): Promise<void> {
    const replyTo = ev.isDm ? ev.nick : ev.target;
    if (!isOperator(ev, this.config.operators, this.config.agents.map((a) => a.nick))) {
      this.safeSay(replyTo, `${ev.nick}: sorry, only operators can ${command} ${this.nick}.`);
      return;
    }
    if (command === "resume") {
      const wasPaused = this.paused || this.breaker.open;
      await this.resume();
      this.safeSay(replyTo, wasPaused ? `${ev.nick}: resumed.` : `${ev.nick}: I was not paused; carrying on.`);
    } else {
      const dropped = await this.abort();
      this.safeSay(replyTo, `${ev.nick}: aborted the current task${dropped ? ` and dropped ${dropped} queued prompt(s)` : ""}.`);
    }
  }

  private origin(kind: PromptOrigin["kind"], channel: string | null, sender: string | null, replyTo: string | null, text: string): PromptOrigin {
    return { id: randomUUID(), kind, channel, sender, replyTo, text };
  }

  // ---------------------------------------------------------------- prompts and turns

  private enqueue(prompt: QueuedPrompt): void {
    if (this.queue.length >= this.timings.promptQueueLimit) {
      const dropped = this.queue.shift();
      this.logger.warn("prompt queue full: dropped the oldest prompt", { prompt: dropped?.text.slice(0, 80) });
    }
    this.queue.push(prompt);
    this.pump();
  }

  /** Feeds the next queued prompt to the runner when nothing is in flight. */
  private pump(): void {
    if (this.pumping || this.turn || this.stopping || this.paused || this.restarting || this.runnerStarting || this.breaker.open) return;
    const next = this.queue.shift();
    if (!next) return;
    this.pumping = true;
    void this.runTurn(next)
      .catch((err) => this.logger.error(`turn failed: ${errorMessage(err)}`))
      .finally(() => {
        this.pumping = false;
        this.pump();
      });
  }

  private async runTurn(next: QueuedPrompt): Promise<void> {
    const prompt = await this.hooks.beforePrompt.promise(next.text, next.origin);
    if (prompt === null || this.stopping) return;
    if (!this.runner || !this.runner.isRunning()) {
      // A cleanly exited agent is started again on demand.
      await this.startRunner(null, this.runner?.sessionId ?? null);
    }
    const runner = this.runner!;
    const turn: TurnState = { origin: next.origin, prompt, messages: [], sentTo: new Set(), startedAt: Date.now(), error: null };
    this.turn = turn;
    this.lastActivation = Date.now() / 1000;
    if (next.origin.kind === "mention" || next.origin.kind === "dm") this.lastTask = next.origin.text.slice(0, 200);
    this.supervisor.noteTurnStart(this.lastTask ?? prompt.slice(0, 200));
    this.armTurnTimer(turn);
    try {
      await runner.sendPrompt(prompt);
    } catch (err) {
      turn.error ??= errorMessage(err);
      this.logger.warn(`turn ended with an error: ${turn.error}`);
      if (isFatalAgentError(err)) await this.onFatal(err);
    } finally {
      this.clearTurnTimer();
      this.supervisor.noteTurnEnd();
      this.turn = null;
      this.turnCount += 1;
    }
    const last = [...turn.messages].reverse().find((m) => messageText(m).trim() !== "");
    const result: TurnResult = {
      origin: turn.origin,
      prompt,
      messages: turn.messages,
      finalText: last ? messageText(last) : "",
      sentTo: turn.sentTo,
      error: turn.error,
      durationMs: Date.now() - turn.startedAt,
    };
    await this.hooks.turnEnd.promise(result);
  }

  private async onAgentMessage(runner: AgentRunnerBase, msg: AgentMessage): Promise<void> {
    if (runner !== this.runner) return;
    const turn = this.turn;
    if (turn) {
      turn.messages.push(msg);
      this.armTurnTimer(turn);
    }
    void this.supervisor.observe(msg).catch((err) => this.logger.warn(`supervisor observe failed: ${errorMessage(err)}`));
    await this.hooks.agentMessage.promise(msg, turn?.origin ?? null);
  }

  private armTurnTimer(turn: TurnState): void {
    this.clearTurnTimer();
    const ms = this.agent.turn_timeout_seconds * 1000;
    this.turnTimer = setTimeout(() => void this.onTurnTimeout(turn), ms);
    this.turnTimer.unref?.();
  }

  private clearTurnTimer(): void {
    if (this.turnTimer) clearTimeout(this.turnTimer);
    this.turnTimer = null;
  }

  /** A turn with no output for turn_timeout_seconds: interrupt (or restart), tell the origin, count a crash. */
  private async onTurnTimeout(turn: TurnState): Promise<void> {
    if (this.turn !== turn || this.stopping) return;
    const secs = this.agent.turn_timeout_seconds;
    turn.error = `turn timed out after ${secs}s without output`;
    this.logger.warn(turn.error);
    if (turn.origin.replyTo) this.safeSay(turn.origin.replyTo, `Sorry, I got stuck on that (no output for ${secs}s) and stopped the attempt.`);
    const runner = this.runner;
    let ended = false;
    if (runner?.interrupt) {
      const settled = new Promise<void>((resolve) => {
        const check = setInterval(() => {
          if (this.turn !== turn) {
            clearInterval(check);
            resolve();
          }
        }, 20);
        setTimeout(() => {
          clearInterval(check);
          resolve();
        }, this.timings.interruptGraceMs).unref?.();
      });
      await runner.interrupt().catch((err) => this.logger.warn(`interrupt failed: ${errorMessage(err)}`));
      await settled;
      ended = this.turn !== turn;
    }
    await this.recordCrash(turn.error, !ended);
  }

  // ---------------------------------------------------------------- crashes and restarts

  private async onAgentExit(runner: AgentRunnerBase, code: number): Promise<void> {
    if (runner !== this.runner || this.stopping || this.fatal) return;
    await this.hooks.agentExit.promise(code);
    if (code === 0) {
      this.logger.info("the agent exited cleanly");
      void this.alerts.fire("agent_complete", completeText(this.nick, this.lastTask ?? "its session"));
      return;
    }
    this.logger.warn(`the agent exited with code ${code}`);
    void this.alerts.fire("agent_error", errorText(this.nick, code));
    await this.recordCrash(`process exited with code ${code}`, true);
  }

  /** Counts a crash; restarts the runner after the delay unless the circuit opened. */
  private async recordCrash(reason: string, restartRunner: boolean): Promise<void> {
    if (this.fatal) return;
    const opened = this.breaker.record();
    if (opened) {
      const { max_crashes, window_seconds } = this.config.restart;
      this.logger.error(`circuit open: ${max_crashes} crashes within ${window_seconds}s; not restarting`);
      void this.alerts.fire(
        "agent_spiraling",
        spiralingText(this.nick, this.lastTask ?? "its session", `Crashed ${max_crashes} times within ${window_seconds}s (last: ${reason}); restarts stopped. Reply @${this.nick} resume to restart`),
      );
      if (restartRunner) await this.runner?.stop().catch(() => undefined);
      return;
    }
    if (!restartRunner) return;
    this.scheduleRestart(reason);
  }

  private scheduleRestart(reason: string): void {
    if (this.stopping || this.restartTimer) return;
    this.restarting = true;
    const old = this.runner;
    const previous = old?.sessionId ?? null;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      void (async () => {
        try {
          await old?.stop().catch(() => undefined);
          if (this.stopping) return;
          this.logger.info("restarting the agent", { reason });
          await this.startRunner(reason, previous);
        } catch (err) {
          this.logger.error(`restart failed: ${errorMessage(err)}`);
          if (isFatalAgentError(err)) await this.onFatal(err);
          else await this.recordCrash(`restart failed: ${errorMessage(err)}`, true);
        } finally {
          this.restarting = false;
          this.pump();
        }
      })();
    }, this.config.restart.delay_seconds * 1000);
  }

  /**
   * The agent cannot run until a human acts (not logged in, command missing): one alert with
   * the fix, no restart loop. An operator's resume tries again.
   */
  private async onFatal(err: unknown): Promise<void> {
    if (this.fatal) return;
    const message = errorMessage(err);
    this.fatal = message;
    this.breaker.trip();
    this.logger.error(`the agent cannot run: ${message}`);
    await this.runner?.stop().catch(() => undefined);
    const text = `[ERROR] ${this.nick} cannot run its agent: ${message}`;
    // One IRC line (the webhook gets the full text): the fix is on the message's last lines.
    const oneLine = text.split("\n").map((l) => l.trim()).filter(Boolean).join(" | ");
    void this.alerts.fire("agent_error", text, { ircContent: oneLine });
  }

  // ---------------------------------------------------------------- pause, resume, abort, escalation

  /** Stops feeding new prompts (the runner keeps running). */
  pause(): void {
    this.paused = true;
  }

  /** Resumes: closes an open circuit (restarting the agent), resets the supervisor ladder, delivers what was kept. */
  async resume(): Promise<void> {
    this.paused = false;
    this.supervisor?.resume();
    if (this.breaker.open) {
      this.breaker.reset();
      this.fatal = null;
      if (!this.runner?.isRunning() && !this.restarting) {
        await this.runner?.stop().catch(() => undefined);
        try {
          await this.startRunner("an operator restarted it", this.runner?.sessionId ?? null);
        } catch (err) {
          if (isFatalAgentError(err)) await this.onFatal(err);
          else await this.recordCrash(`restart failed: ${errorMessage(err)}`, true);
        }
      }
    }
    this.pump();
  }

  /** Interrupts the current turn and drops queued prompts; returns how many were dropped. */
  async abort(): Promise<number> {
    const dropped = this.queue.length;
    this.queue = [];
    if (this.turn && this.runner?.interrupt) await this.runner.interrupt().catch((err) => this.logger.warn(`interrupt failed: ${errorMessage(err)}`));
    this.paused = false;
    this.supervisor?.resume();
    this.pump();
    return dropped;
  }

  private async escalate(reason: string): Promise<void> {
    await this.hooks.escalation.promise(reason);
    const task = this.lastTask ?? "its current task";
    this.paused = true;
    await this.alerts.fire("agent_spiraling", spiralingText(this.nick, task, reason), {
      ircContent: escalationText(this.nick, task, reason),
    });
  }

  private async deliverWhisper(message: string, action: WhisperAction): Promise<void> {
    const whisper = await this.hooks.whisper.promise({ action, message });
    if (!whisper) return;
    this.ipc.sendWhisper(whisper);
  }

  private takeWhispers(): Whisper[] {
    return this.ipc ? this.ipc.takeQueuedWhispers() : [];
  }

  // ---------------------------------------------------------------- IRC out

  /** Sends as the agent: recorded in the buffer and in the current turn's targets. */
  sayAsAgent(target: string, text: string): { queued: boolean; lines: number } {
    const result = this.transport.say(target, text);
    const key = /^[#&]/.test(target) ? target : `DM:${target}`;
    this.buffer.add(key, { nick: this.transport.nick, text, timestamp: Date.now() / 1000 });
    this.turn?.sentTo.add(target.toLowerCase());
    return result;
  }

  /** Daemon notices (refusals, alerts): never throws. */
  private safeSay(target: string, text: string): void {
    try {
      this.transport.say(target, text);
    } catch (err) {
      this.logger.warn(`could not send to ${target}: ${errorMessage(err)}`);
    }
  }

  // ---------------------------------------------------------------- IPC

  private async onIpcRequest(req: IpcRequest): Promise<IpcResult> {
    const answer = await this.hooks.ipcRequest.promise(req);
    if (answer) return answer;
    return handleIpcRequest(req, {
      say: (target, text) => this.sayAsAgent(target, text),
      transport: this.transport,
      buffer: this.buffer,
      status: () => this.status(),
      noteChannelRead: () => this.supervisor.noteChannelRead(),
      ask: (channel, question, timeoutSeconds) => this.ask(channel, question, timeoutSeconds),
      compact: () => this.contextCommand("compact"),
      clear: () => this.contextCommand("clear"),
      pause: () => this.pause(),
      resume: () => this.resume(),
      shutdown: () => {
        // Answer first, then stop outside this request's own task.
        setImmediate(() => void this.stop());
      },
    });
  }

  private async ask(channel: string, question: string, timeoutSeconds: number): Promise<IpcResult> {
    const sent = this.sayAsAgent(channel, question);
    void this.alerts.fire("agent_question", questionText(this.nick, question));
    const answer = await new Promise<IrcMessageEvent | null>((resolve) => {
      const waiter: AskWaiter = {
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      const timer = setTimeout(() => {
        this.askWaiters = this.askWaiters.filter((w) => w !== waiter);
        resolve(null);
      }, timeoutSeconds * 1000);
      this.askWaiters.push(waiter);
    });
    if (!answer) {
      void this.alerts.fire("agent_timeout", timeoutText(this.nick, question, timeoutSeconds));
      return { ok: true, data: { answer: null, timed_out: true, queued: sent.queued } };
    }
    return {
      ok: true,
      data: { answer: { nick: answer.nick, text: answer.text, timestamp: answer.time / 1000, channel: answer.isDm ? null : answer.target }, timed_out: false },
    };
  }

  private async contextCommand(kind: "compact" | "clear"): Promise<{ delivered: "method" | "queued" }> {
    const runner = this.runner;
    const method = runner?.[kind];
    if (runner && method) {
      await method.call(runner);
      return { delivered: "method" };
    }
    // Fall back to the slash command as its own turn (never relayed).
    this.enqueue({ origin: this.origin("system", null, null, null, `/${kind}`), text: `/${kind}` });
    return { delivered: "queued" };
  }

  // ---------------------------------------------------------------- status

  /** The status object (IPC `status`), passed through `hooks.status`. */
  status(): AgentStatus {
    const working = this.turn !== null;
    const activity: AgentStatus["activity"] = working ? "working" : this.paused || this.breaker.open ? "paused" : "idle";
    const description = this.fatal
      ? `agent cannot run: ${this.fatal.split("\n")[0]}`
      : this.breaker.open
      ? `circuit open after ${this.config.restart.max_crashes} crashes; waiting for resume`
      : this.paused
        ? `paused${this.supervisor?.escalated ? " (escalated to humans)" : ""}; ${this.queue.length} prompt(s) waiting`
        : working
          ? describeTask(this.turn!.origin, this.turn!.prompt)
          : this.restarting
            ? "restarting the agent"
            : "idle";
    const status: AgentStatus = {
      running: this.runner?.isRunning() ?? false,
      paused: this.paused,
      circuit_open: this.breaker.open,
      turn_count: this.turnCount,
      last_activation: this.lastActivation,
      activity,
      description,
      nick: this.nick,
      pid: process.pid,
      backend: this.backend.name,
      model: this.agent.model ?? this.backend.defaults?.model ?? null,
      channels: this.transport?.joinedChannels() ?? [],
      connected: this.transport?.connected ?? false,
      uptime_seconds: Math.round((Date.now() - this.startedAt) / 1000),
      queued_prompts: this.queue.length,
      session_id: this.runner?.sessionId ?? null,
      current_nick: this.transport?.nick ?? this.nick,
      ...(this.supervisor ? { supervisor: this.supervisor.status() } : {}),
    };
    return this.hooks.status.call(status);
  }

  /** True once stop() has finished. */
  get isStopped(): boolean {
    return this.stopped;
  }

  // ---------------------------------------------------------------- PID file

  private writePidFile(): void {
    if (!this.pidPath) return;
    mkdirSync(dirname(this.pidPath), { recursive: true });
    // First line: the pid. Second: what it is, so `culture stop` can verify the process is ours.
    writeFileSync(this.pidPath, `${process.pid}\nculture-agent ${this.nick}\n`);
  }

  private removePidFile(): void {
    if (!this.pidPath) return;
    try {
      unlinkSync(this.pidPath);
    } catch {
      /* already gone */
    }
  }
}

/** Errors that restarting cannot fix: a human has to act first. */
function isFatalAgentError(err: unknown): boolean {
  return isCultureError(err, "E_AGENT_AUTH") || isCultureError(err, "E_AGENT_COMMAND_NOT_FOUND") || isCultureError(err, "E_AGENT_START_REFUSED");
}

function describeTask(origin: PromptOrigin, prompt: string): string {
  const text = (origin.text || prompt).replace(/\s+/g, " ").trim();
  const short = text.length > 80 ? `${text.slice(0, 77)}...` : text;
  switch (origin.kind) {
    case "mention":
      return `answering ${origin.sender} in ${origin.channel}: ${short}`;
    case "dm":
      return `answering a DM from ${origin.sender}: ${short}`;
    case "resume":
      return "resuming after a restart";
    default:
      return short;
  }
}
