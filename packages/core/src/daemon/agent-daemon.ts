/**
 * The agent daemon: one process per agent. This file wires the parts together and owns only
 * the lifecycle (start, stop) and the routing of IRC and IPC traffic; each piece of state has
 * one owner:
 *
 * - {@link TurnLoop}: the prompt queue, the turn in flight, its timer, abort.
 * - {@link RunnerKeeper}: the runner, restarts, the circuit breaker, fatal errors.
 * - {@link AskWaiters}: `irc_ask` calls waiting for an answer.
 * - {@link ApprovalDesk}: the agent's permission requests waiting for an operator.
 * - {@link WhisperQueue}: supervisor whispers, read by the IPC socket and the runner's hooks.
 * - {@link PromptJournal}: prompts people sent, durable across kill -9, stop and reboot.
 * - {@link ChannelMarks}: what the daemon last saw per channel, so the next daemon catches up
 *   on what was said while none was running.
 * - {@link CatchUpTally}: what caught-up lines became (prompts, or too old to be one).
 * - {@link DaemonStateTracker}: the state (starting, ready, reconnecting, restarting, paused,
 *   stopping), derived from the facts above, every transition logged.
 * - {@link buildStatus}: the status, a pure function of a snapshot.
 *
 * Startup: journal -> channel marks -> message buffer -> IRC transport -> alerts -> IPC socket
 * -> supervisor -> runner. Mentions and DMs that arrive before the runner is ready only queue.
 * Shutdown in reverse: runner, supervisor, socket, transport (QUIT), channel marks, journal,
 * PID file.
 */
import type { PermissionDecision, PermissionRequest } from "../approvals/permission-request.js";
import { randomUUID } from "node:crypto";
import { existsSync, unlinkSync } from "node:fs";
import type { AgentRunnerBase } from "../agent-runner.js";
import { Alerts } from "../alerts/alerts.js";
import { escalationText, questionText, spiralingText, timeoutText } from "../alerts/alert-texts.js";
import type { BackendDefinition } from "../backend.js";
import { MessageBuffer } from "../buffer/message-buffer.js";
import { permissionsSchema, type AgentConfig, type CultureConfig, type PermissionsConfig } from "../config/schema.js";
import { alreadyRunning, errorMessage, socketPathTooLong } from "../errors.js";
import type { AgentStatus, IpcRequest, IpcResult, IrcMessageEvent, PromptOrigin } from "../events.js";
import { createDaemonHooks, type DaemonHooks } from "../hooks.js";
import { probeSocket } from "../ipc/ipc-client.js";
import { IpcServer } from "../ipc/ipc-server.js";
import { withLocalCredentials } from "../identity/local-credentials.js";
import { ChannelMarks } from "../irc/channel-marks.js";
import { IrcTransport } from "../irc/irc-transport.js";
import { isMentioned } from "../irc/mentions.js";
import { removeFile, writePidFile } from "../process/pid-file.js";
import { createLogger, logWriteFailures, type Logger } from "../logger.js";
import { AgentProcessRecord, reapRecordedAgents, withAgentRecord } from "../process/agent-record.js";
import {
  agentPidPath,
  agentProcessRecordPath,
  ensureAgentStateDir,
  ensureRuntimeDir,
  approvalRulesPath,
  approvalIdsPath,
  channelMarksPath,
  promptJournalPath,
  socketPath as resolveSocketPath,
  socketPathFits,
  UNIX_SOCKET_PATH_LIMIT,
} from "../paths.js";
import type { WhisperAction } from "../supervisor-base.js";
import { createEvaluator } from "../supervisor/create-evaluator.js";
import { WindowSupervisor } from "../supervisor/window-supervisor.js";
import { AgentChainGuard } from "./agent-chain.js";
import { JoinRefusals } from "./join-refusals.js";
import { buildAgentPrompt, dmPrompt, mentionPrompt, resumePrompt } from "./agent-prompt.js";
import { AskWaiters } from "./ask-waiters.js";
import { DaemonStateTracker, type DaemonState, type IrcLinkState } from "./daemon-state.js";
import { CatchUpTally } from "./catch-up-tally.js";
import { buildStatus } from "./daemon-status.js";
import { handleIpcRequest } from "./ipc-handlers.js";
import { AccessPolicy, type RefusedAction } from "./access-policy.js";
import { parseApprovalAnswer, type ApprovalAnswer } from "../approvals/approval-answer.js";
import { ApprovalRules } from "../approvals/approval-rules.js";
import { protectedPathsFor } from "../approvals/protected-paths.js";
import { ApprovalIds } from "../approvals/approval-ids.js";
import { ApprovalDesk } from "./approval-desk.js";
import { ambiguousAddress, ambiguousAnswerText } from "./approval-names.js";
import { handleApprovalIpc } from "./approval-ipc.js";
import { ControlChannel } from "./control-channel.js";
import { controlOnToolsSocket, isControlType, toolOnControlSocket } from "./ipc-access.js";
import { IrcSendGate, taskOrigin } from "./irc-send-gate.js";
import { parseOperatorCommand } from "./operators.js";
import { PromptJournal, type JournalEntry } from "./prompt-journal.js";
import { PromptQueue, type PromptClass, type PushResult } from "./prompt-queue.js";
import { applyRelayPlugin } from "./relay-plugin.js";
import { RunnerKeeper } from "./runner-keeper.js";
import { TurnLoop } from "./turn-loop.js";
import { WhisperQueue } from "./whisper-queue.js";

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
  /** Keep the durable prompt journal and the saved approval rules in the agent's state dir (default true). */
  journal?: boolean;
  /** Tuning for tests; production uses the defaults. */
  timings?: Partial<DaemonTimings>;
}

/** Timings and limits the daemon uses; all configurable so slow paths run fast in tests. */
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
  /** How many of them may come from one sender. */
  perSenderLimit: number;
  /** Agent messages in a channel since the last human one after which agents' mentions are ignored. */
  maxAgentHops: number;
  /** Compact the prompt journal past this size. */
  journalMaxBytes: number;
  /** How long an agent a killed daemon left running gets between SIGTERM and SIGKILL. */
  leftoverGraceMs: number;
}

const DEFAULT_TIMINGS: DaemonTimings = {
  interruptGraceMs: 10_000,
  reconnectMinMs: 1_000,
  reconnectMaxMs: 60_000,
  connectTimeoutMs: 15_000,
  promptQueueLimit: 200,
  perSenderLimit: 20,
  maxAgentHops: 4,
  journalMaxBytes: 1024 * 1024,
  leftoverGraceMs: 5_000,
};

/** One agent's daemon. */
export class AgentDaemon {
  readonly hooks: DaemonHooks;
  readonly nick: string;
  readonly agent: AgentConfig;
  readonly socketPath: string;
  /** Resolves when the daemon has stopped (for `--foreground` and IPC `shutdown`). */
  readonly done: Promise<void>;

  private readonly config: CultureConfig;
  private readonly backend: BackendDefinition;
  private readonly backendOptions: unknown;
  private readonly logger: Logger;
  private readonly env: NodeJS.ProcessEnv;
  private readonly timings: DaemonTimings;
  private readonly pidPath: string | null;
  private readonly journalPath: string | null;
  /** The agent processes running now, on disk for the next daemon (null without a state dir). */
  private readonly agentRecord: AgentProcessRecord | null;
  /** Agent processes a killed daemon left that this one ended at start. */
  private leftoverAgentsEnded: number[] = [];
  private readonly startedAt = Date.now();
  private readonly loadBackendByName: ((name: string) => Promise<BackendDefinition>) | undefined;

  private readonly state: DaemonStateTracker;
  private readonly whispers = new WhisperQueue();
  private readonly asks = new AskWaiters();
  private readonly queue: PromptQueue;
  private readonly keeper: RunnerKeeper;
  private readonly loop: TurnLoop;
  private readonly chain: AgentChainGuard;
  /** Channels the server would not let us into (status, #alerts, doctor, start). */
  private readonly joinRefusals: JoinRefusals;
  private readonly desk: ApprovalDesk;

  private buffer!: MessageBuffer;
  private transport: IrcTransport | undefined;
  private alerts: Alerts | undefined;
  private ipc: IpcServer | undefined;
  /** The owner's control socket (ipc-access.ts says what is answered where). */
  private control: ControlChannel | undefined;
  /** culture's IRC tools sending elsewhere than the task's origin ask like any tool. */
  private readonly gate: IrcSendGate;
  private supervisor: WindowSupervisor | undefined;
  private journal: PromptJournal | null = null;
  private marks: ChannelMarks | null = null;
  private readonly caughtUp: CatchUpTally;

  private lifecycle: "starting" | "running" | "stopping" | "stopped" = "starting";
  private paused = false;
  private link: { state: IrcLinkState; since: number; disconnects: number; lastError: string | null } = {
    state: "connecting",
    since: Date.now() / 1000,
    disconnects: 0,
    lastError: null,
  };
  private promptsRefused = 0;
  /** Senders told that their prompts overflow (told once per episode). */
  private readonly overflowing = new Set<string>();
  private stopPromise: Promise<void> | null = null;
  private resolveDone!: () => void;

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
    this.journalPath = options.journal === false ? null : promptJournalPath(this.nick, this.env);
    this.agentRecord = options.journal === false ? null : new AgentProcessRecord(agentProcessRecordPath(this.nick, this.env), this.logger.child("agent-record"));
    this.loadBackendByName = options.loadBackend;
    this.hooks = createDaemonHooks({ onTapError: (e) => this.logger.error(e.message, { code: e.code }) });
    this.done = new Promise((r) => (this.resolveDone = r));
    this.state = new DaemonStateTracker(this.logger);
    this.caughtUp = new CatchUpTally((this.config.catch_up?.max_age_seconds ?? 86_400) * 1000);
    this.queue = new PromptQueue({ limit: this.timings.promptQueueLimit, perSenderLimit: this.timings.perSenderLimit });
    this.joinRefusals = new JoinRefusals(this.nick, this.logger.child("irc"));
    this.chain = new AgentChainGuard(
      this.config.agents.map((a) => a.nick),
      this.timings.maxAgentHops,
    );
    this.keeper = new RunnerKeeper({
      nick: this.nick,
      restart: this.config.restart,
      logger: this.logger,
      hooks: this.hooks,
      createRunner: (previous) => this.createRunner(previous),
      onMessage: (runner, msg) => this.loop.onAgentMessage(runner, msg),
      alert: (event, text, extra) => void this.alerts?.fire(event, text, extra),
      lastTask: () => this.loop.lastTask,
      queueResume: (reason) =>
        this.queue.unshift({ origin: origin("resume", null, null, null, ""), text: resumePrompt(reason, this.loop.lastTask), klass: "system" }),
      changed: (reason) => this.changed(reason),
      scope: (start) => withAgentRecord(this.agentRecord, start),
    });
    this.loop = new TurnLoop({
      queue: this.queue,
      keeper: this.keeper,
      hooks: this.hooks,
      logger: this.logger,
      journal: () => this.journal,
      supervisor: () => this.supervisor ?? null,
      mayRun: () => this.mayRun(),
      stopping: () => this.lifecycle === "stopping" || this.lifecycle === "stopped",
      turnTimeoutSeconds: this.agent.turn_timeout_seconds,
      interruptGraceMs: this.timings.interruptGraceMs,
      notice: (target, text) => this.safeSay(target, text),
    });
    applyRelayPlugin(this.hooks, this.agent.relay, (target, text) => {
      this.sayAsAgent(target, text);
    });
    this.backend.apply?.(this.hooks);
    for (const plugin of options.plugins ?? []) plugin.apply(this.hooks, { nick: this.nick, logger: this.logger.child(plugin.name) });
    this.access = new AccessPolicy(this.config, this.agent, { logger: this.logger.child("access") }); // identity
    const approvalsLogger = this.logger.child("approvals");
    this.desk = new ApprovalDesk({
      nick: this.nick,
      directory: this.agent.directory,
      policy: this.permissions,
      protect: protectedPathsFor(this.config, this.agent, this.permissions.protected_paths ?? [], this.env),
      rules: new ApprovalRules(options.journal === false ? null : approvalRulesPath(this.nick, this.env), approvalsLogger),
      ids: new ApprovalIds(options.journal === false ? null : approvalIdsPath(this.nick, this.env), approvalsLogger),
      logger: approvalsLogger,
      say: (target, text) => this.safeSay(target, text),
      defaultTarget: () => this.agent.channels[0] ?? null,
      alert: (event, text, ircText) => void this.alerts?.fire(event, text, ircText === undefined ? {} : { ircContent: ircText }),
      waiting: {
        begin: () => {
          this.loop.holdTimer();
          this.supervisor?.notePermissionWait(true);
        },
        end: () => {
          this.loop.releaseTimer();
          this.supervisor?.notePermissionWait(false);
        },
      },
    });
    this.gate = new IrcSendGate({
      origin: () => taskOrigin(this.loop.turn?.origin ?? null, this.loop.lastTaskOrigin),
      caseMapping: () => this.transport?.caseMapping ?? "rfc1459",
      decide: (request, origin) => this.requestPermission(request, origin),
      logger: approvalsLogger,
    });
  }

  /** The agent's effective permission policy: its own, else the config's, else bypass. */
  private get permissions(): PermissionsConfig {
    return this.agent.permissions ?? this.config.permissions ?? permissionsSchema.parse({});
  }

  /** identity: who may prompt and command this agent. */
  private readonly access: AccessPolicy;

  /** identity: a refused sender gets at most one short NOTICE per hour. */
  private refuse(ev: IrcMessageEvent, what: RefusedAction): void {
    const text = this.access.refusal(ev, what, this.nick);
    if (text === null) return;
    try {
      this.transport?.notice(ev.nick, text);
    } catch (err) {
      this.logger.warn(`could not send to ${ev.nick}: ${errorMessage(err)}`);
    }
  }

  /** The daemon's state now. */
  get currentState(): DaemonState {
    return this.state.state;
  }

  /** Starts everything; rejects (after cleaning up) when any part fails to start. */
  async start(): Promise<void> {
    await this.claimSocket();
    try {
      this.openJournal();
      await this.endLeftoverAgents();
      if (this.journalPath) this.marks = ChannelMarks.open({ path: channelMarksPath(this.nick, this.env), logger: this.logger.child("marks") });
      this.buffer = new MessageBuffer(this.config.buffer_size);
      await this.startTransport();
      this.assertStarting();
      this.alerts = new Alerts({
        nick: this.nick,
        webhooks: this.config.webhooks,
        logger: this.logger.child("alerts"),
        hooks: this.hooks,
        sendIrc: (channel, text) => {
          this.safeSay(channel, text);
        },
      });
      this.joinRefusals.alertWith((text) => void this.alerts?.fire("agent_error", text));
      this.ipc = new IpcServer({
        path: this.socketPath,
        handler: (req, closed) => this.onToolsRequest(req, closed),
        logger: this.logger.child("ipc"),
        whispers: this.whispers,
      });
      await this.ipc.start();
      this.control = new ControlChannel({ nick: this.nick, env: this.env, logger: this.logger.child("control"), handler: (req) => this.onControlRequest(req) });
      await this.control.start();
      await this.startSupervisor();
      this.assertStarting();
      this.writePidFile();
      await this.keeper.start();
      this.assertStarting();
      this.lifecycle = "running";
      this.changed("the daemon is up");
      await this.hooks.ready.promise();
      this.logger.info("ready", { socket: this.socketPath, backend: this.backend.name, queued: this.queue.length });
    } catch (err) {
      await this.stop().catch(() => undefined);
      throw err;
    }
  }

  /** A stop() during start() ends the start: nothing more is started. */
  private assertStarting(): void {
    if (this.lifecycle !== "starting") throw new Error(`${this.nick}: stopped while starting`);
  }

  /** Stops everything in reverse order. Idempotent; safe to call from inside an IPC request. */
  stop(): Promise<void> {
    this.stopPromise ??= this.doStop();
    return this.stopPromise;
  }

  private async doStop(): Promise<void> {
    this.lifecycle = "stopping";
    this.changed("stop requested");
    // Pending approvals first: ending them restarts the turn timer, which loop.stop() then clears.
    this.desk.cancelAll("the agent's daemon is stopping");
    this.loop.stop();
    this.asks.cancelAll();
    await this.hooks.shutdown.promise().catch(() => undefined);
    const step = async (name: string, fn: () => Promise<void> | void) => {
      try {
        await fn();
      } catch (err) {
        this.logger.warn(`stopping ${name} failed: ${errorMessage(err)}`);
      }
    };
    await step("runner", () => this.keeper.stop());
    await step("supervisor", () => this.supervisor?.stop());
    await step("IPC socket", () => this.ipc?.stop());
    await step("control socket", () => this.control?.stop());
    await step("IRC transport", () => this.transport?.close("culture daemon stopping"));
    await step("channel marks", () => this.marks?.close());
    await step("prompt journal", () => this.journal?.close());
    await step("PID file", () => this.removePidFile());
    this.lifecycle = "stopped";
    this.changed("stopped");
    const waiting = this.journal?.pendingCount ?? 0;
    this.logger.info("stopped", waiting ? { prompts_kept_for_next_start: waiting } : undefined);
    this.resolveDone();
  }

  // ---------------------------------------------------------------- state

  /** Prompts may be fed: the runner is ready and nothing holds them back. */
  private mayRun(): boolean {
    return this.lifecycle === "running" && this.keeper.ready && !this.paused;
  }

  /** Something the state depends on changed: re-derive it (logged) and feed what waits. */
  private changed(reason: string): void {
    this.state.update(
      {
        lifecycle: this.lifecycle,
        runnerReady: this.keeper.ready,
        restarting: this.keeper.restarting,
        paused: this.paused || this.keeper.circuitOpen || this.keeper.fatal !== null,
        link: this.link.state,
      },
      reason,
    );
    this.loop.pump();
  }

  private setLink(state: IrcLinkState, reason: string, error: string | null = null): void {
    if (state === "reconnecting" && this.link.state !== "reconnecting") this.link.disconnects++;
    this.link = { ...this.link, state, since: Date.now() / 1000, lastError: error };
    this.changed(reason);
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

  /** Opens the journal and queues what a previous daemon left undone, oldest first. */
  private openJournal(): void {
    if (!this.journalPath) return;
    ensureAgentStateDir(this.nick, this.env);
    const { journal, pending } = PromptJournal.open({ path: this.journalPath, logger: this.logger.child("journal"), maxBytes: this.timings.journalMaxBytes });
    this.journal = journal;
    for (const entry of pending) {
      // Ahead of anything new, in the order they arrived (whatever their class was).
      this.queue.restore({ origin: entry.origin, text: delayedPrompt(entry), klass: "system", journaled: true });
    }
    if (pending.length) this.logger.info(`delivering ${pending.length} prompt(s) a previous daemon did not finish`, { journal: this.journalPath });
  }

  /**
   * Ends the agent processes a previous daemon of this agent recorded and never saw exit (it
   * was killed): only those still alive with the recorded start time. Before anything spawns.
   */
  private async endLeftoverAgents(): Promise<void> {
    if (!this.agentRecord) return;
    const reaped = await reapRecordedAgents(this.agentRecord.path, this.logger, this.timings.leftoverGraceMs);
    this.leftoverAgentsEnded = reaped.filter((r) => r.outcome === "ended").map((r) => r.pid);
    if (this.leftoverAgentsEnded.length) this.logger.warn(`ended ${this.leftoverAgentsEnded.length} agent process(es) a previous daemon left running`, { pids: this.leftoverAgentsEnded.join(" ") });
  }

  private async startTransport(): Promise<void> {
    const channels = [...this.agent.channels];
    const alertChannel = this.config.webhooks.irc_channel;
    if (!channels.some((c) => c.toLowerCase() === alertChannel.toLowerCase())) channels.push(alertChannel);
    const transport = new IrcTransport({
      // identity: on the embedded server with nothing configured, log in with generated credentials
      server: await withLocalCredentials(this.config.server, this.nick, "agent", this.env),
      nick: this.nick,
      channels,
      logger: this.logger.child("irc"),
      reconnectMinMs: this.timings.reconnectMinMs,
      reconnectMaxMs: this.timings.reconnectMaxMs,
      connectTimeoutMs: this.timings.connectTimeoutMs,
      marks: this.marks,
    });
    this.transport = transport;
    this.joinRefusals.attach(transport);
    transport.on("message", (ev: IrcMessageEvent) => {
      void this.onIrcMessage(ev).catch((err) => this.logger.error(`handling an IRC message failed: ${errorMessage(err)}`));
    });
    transport.on("registered", () => this.setLink("connected", "IRC link up"));
    transport.on("disconnected", (reason: string) => this.setLink("reconnecting", "IRC link lost", reason));
    transport.on("kicked", (k: { channel: string; by: string; reason: string }) => this.logger.warn(`kicked from ${k.channel} by ${k.by}: ${k.reason}`));
    transport.on("joinError", (j: { channel: string; code: string; reason: string }) =>
      this.logger.warn(`could not join ${j.channel}: ${j.code} ${j.reason}`),
    );
    transport.on("nickInUse", (taken: string) => this.logger.warn(`nick ${taken} is in use; using ${transport.nick}`));
    await transport.connect();
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
    const supervisor = new WindowSupervisor({
      nick: this.nick,
      config: this.config.supervisor,
      evaluator,
      evaluatorName: name,
      logger: this.logger.child("supervisor"),
    });
    supervisor.onWhisper = (message, action) => this.deliverWhisper(message, action);
    supervisor.onEscalation = (reason) => this.escalate(reason);
    await supervisor.start();
    this.supervisor = supervisor;
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
      permissions: this.permissions,
      takeWhispers: () => this.whispers.take(),
      requestPermission: (request) => this.requestPermission(request),
    });
  }

  /**
   * An agent's permission request: a `permissionRequest` tap may answer it; otherwise the
   * approval desk does (the policy, then an operator on IRC).
   */
  private async requestPermission(request: PermissionRequest, origin: PromptOrigin | null = this.loop.turn?.origin ?? null): Promise<PermissionDecision> {
    const answered = await this.hooks.permissionRequest.promise(request, origin);
    return answered ?? this.desk.request(request, origin);
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
    if (!ev.isDm) this.chain.observe(ev.target, ev.nick);
    const addressed = ev.isDm || isMentioned(ev.text, this.names, this.transport?.caseMapping);
    if (!addressed) return;
    // A caught-up line older than catch_up.max_age_seconds stays in the buffer only.
    if (this.caughtUp.tooOld(ev)) {
      this.logger.info("a caught-up mention is older than catch_up.max_age_seconds: kept in the buffer, not prompted", {
        channel: ev.target,
        from: ev.nick,
        said_at: new Date(ev.time).toISOString(),
      });
      return;
    }

    const command = parseOperatorCommand(ev.text, this.names, ev.isDm);
    if (command) return this.onOperatorCommand(ev, command);
    const answer = parseApprovalAnswer(ev.text, this.names, ev.isDm);
    if (answer) return this.onApprovalAnswer(ev, answer);
    if (!this.access.mayPrompt(ev, this.transport?.serverHasAccounts ?? false)) return this.refuse(ev, "prompt"); // identity

    if (this.asks.offer(ev)) return;

    if (!ev.isDm && !this.chain.allows(ev.target, ev.nick)) {
      this.logger.warn("ignored an agent's mention: agent-to-agent chain limit reached in this channel (a human message resets it)", {
        channel: ev.target,
        from: ev.nick,
        hops: this.chain.hops(ev.target),
        max: this.timings.maxAgentHops,
      });
      return;
    }

    const o = ev.isDm ? origin("dm", null, ev.nick, ev.nick, ev.text) : origin("mention", ev.target, ev.nick, ev.target, ev.text);
    const base = ev.isDm ? dmPrompt(ev.nick, ev.text) : mentionPrompt(ev.target, ev.nick, ev.text);
    const prompt = await this.hooks.mention.promise(base, o);
    if (prompt === null) return;
    const operator = this.access.mayCommand(ev);
    const klass: PromptClass = ev.isDm || operator ? "priority" : "chatter";
    const result = this.loop.enqueue({ origin: o, text: prompt, klass }, true);
    if (ev.replayed && result.accepted) this.caughtUp.prompted();
    this.accept(ev.nick, ev.isDm ? ev.nick : ev.target, result);
  }

  /** Reports a refused prompt once per sender and episode (not once per message). */
  private accept(sender: string, replyTo: string, result: PushResult): void {
    const key = sender.toLowerCase();
    if (result.accepted) {
      if (result.evicted) {
        this.promptsRefused++;
        this.logger.warn("prompt queue full: dropped the newest prompt of the busiest sender", { sender: result.evicted.origin.sender });
      }
      return;
    }
    this.promptsRefused++;
    if (result.reason === "duplicate") return;
    if (this.overflowing.has(key) && this.queue.countFrom(sender) > 0) return;
    this.overflowing.add(key);
    const why = result.reason === "sender_limit" ? `${this.queue.countFrom(sender)} of your requests are already waiting` : "my queue is full";
    this.logger.warn("prompt refused: the queue is over its limit (reported once until it drains)", { sender, reason: result.reason });
    this.safeSay(replyTo, `${sender}: ${why}; I am ignoring new ones until I catch up.`);
  }

  private async onOperatorCommand(ev: IrcMessageEvent, command: "resume" | "abort"): Promise<void> {
    const replyTo = ev.isDm ? ev.nick : ev.target;
    if (!this.access.mayCommand(ev)) return this.refuse(ev, command); // identity
    if (command === "resume") {
      const wasPaused = this.paused || this.keeper.circuitOpen;
      await this.resume();
      this.safeSay(replyTo, wasPaused ? `${ev.nick}: resumed.` : `${ev.nick}: I was not paused; carrying on.`);
    } else {
      const dropped = await this.abort();
      this.safeSay(replyTo, `${ev.nick}: aborted the current task${dropped ? ` and dropped ${dropped} queued prompt(s)` : ""}.`);
    }
  }

  /** An operator's `approve|deny|always <id>`: only operators (by account); others get one notice. */
  private onApprovalAnswer(ev: IrcMessageEvent, answer: ApprovalAnswer): void {
    if (!this.access.mayCommand(ev)) return this.refuse(ev, "answer approval requests of"); // identity
    const t = this.transport;
    const clash = ev.isDm || !t ? null : ambiguousAddress(answer.name, [this.nick, t.nick], t.channelMembers(ev.target), (n) => t.foldName(n));
    if (clash) {
      this.logger.info("refused an approval answer addressed to an ambiguous short name", { from: ev.nick, name: answer.name, candidates: clash });
      try {
        t!.notice(ev.nick, ambiguousAnswerText(ev.nick, answer.name!, ev.target, clash, this.desk.show(answer.id).ok ? `${this.nick} ${answer.verb} ${answer.id}` : null));
      } catch (err) {
        this.logger.warn(`could not send to ${ev.nick}: ${errorMessage(err)}`);
      }
      return;
    }
    const result = this.desk.answer(answer.id, answer.verb, ev.account ?? ev.nick, answer.reason);
    // Success is announced by the desk where the request was posted; a mistake is told to the sender.
    if (!result.ok) this.safeSay(ev.isDm ? ev.nick : ev.target, `${ev.nick}: ${result.error}`);
  }

  // ---------------------------------------------------------------- pause, resume, abort, escalation

  /** Stops feeding new prompts (the runner keeps running). */
  pause(): void {
    this.paused = true;
    this.changed("paused");
  }

  /** Resumes: closes an open circuit (restarting the agent), resets the supervisor ladder, delivers what was kept. */
  async resume(): Promise<void> {
    this.paused = false;
    this.supervisor?.resume();
    this.changed("resumed");
    await this.keeper.resume();
    this.changed("resumed");
  }

  /** Interrupts the current turn and drops queued prompts; returns how many were dropped. */
  async abort(): Promise<number> {
    const dropped = await this.loop.abort();
    this.overflowing.clear();
    this.paused = false;
    this.supervisor?.resume();
    this.changed("aborted by an operator");
    return dropped;
  }

  private async escalate(reason: string): Promise<void> {
    await this.hooks.escalation.promise(reason);
    const task = this.loop.lastTask ?? "its current task";
    this.paused = true;
    this.changed("escalated to humans");
    await this.alerts?.fire("agent_spiraling", spiralingText(this.nick, task, reason), {
      ircContent: escalationText(this.nick, task, reason),
    });
  }

  private async deliverWhisper(message: string, action: WhisperAction): Promise<void> {
    const whisper = await this.hooks.whisper.promise({ action, message });
    if (!whisper) return;
    if (this.ipc) this.ipc.sendWhisper(whisper);
    else this.whispers.push(whisper);
  }

  // ---------------------------------------------------------------- IRC out

  /** Sends as the agent: recorded in the buffer and in the current turn's targets. */
  sayAsAgent(target: string, text: string): { queued: boolean; lines: number } {
    if (!this.transport) throw new Error("the IRC transport is not started");
    const result = this.transport.say(target, text);
    const isChannel = /^[#&]/.test(target);
    this.buffer.add(isChannel ? target : `DM:${target}`, { nick: this.transport.nick, text, timestamp: Date.now() / 1000 });
    if (isChannel) this.chain.observe(target, this.nick);
    this.loop.noteSentTo(target);
    return result;
  }

  /** Daemon notices (refusals, alerts): never throws. */
  private safeSay(target: string, text: string): void {
    try {
      this.transport?.say(target, text);
    } catch (err) {
      this.logger.warn(`could not send to ${target}: ${errorMessage(err)}`);
    }
  }

  // ---------------------------------------------------------------- IPC

  /** The tools socket: the agent's IRC tools; control commands refused; sends elsewhere than the origin gated. */
  private async onToolsRequest(req: IpcRequest, closed: AbortSignal): Promise<IpcResult> {
    if (isControlType(req.type)) return controlOnToolsSocket(req.type, this.nick);
    const refused = await this.gate.check(req, closed);
    if (refused) return refused;
    return this.onIpcRequest(req);
  }

  /** The control socket (token already checked): the owner's commands, and status. */
  private async onControlRequest(req: IpcRequest): Promise<IpcResult> {
    return toolOnControlSocket(req.type, this.socketPath) ?? this.onIpcRequest(req);
  }

  private async onIpcRequest(req: IpcRequest): Promise<IpcResult> {
    const answer = await this.hooks.ipcRequest.promise(req);
    if (answer) return answer;
    const approval = handleApprovalIpc(req, this.desk);
    if (approval) return approval;
    return handleIpcRequest(req, {
      say: (target, text) => this.sayAsAgent(target, text),
      transport: this.transport!,
      buffer: this.buffer,
      status: () => this.status(),
      noteChannelRead: () => this.supervisor?.noteChannelRead(),
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
    void this.alerts?.fire("agent_question", questionText(this.nick, question));
    const answer = await this.asks.wait(timeoutSeconds * 1000);
    if (!answer) {
      void this.alerts?.fire("agent_timeout", timeoutText(this.nick, question, timeoutSeconds));
      return { ok: true, data: { answer: null, timed_out: true, queued: sent.queued } };
    }
    return {
      ok: true,
      data: { answer: { nick: answer.nick, text: answer.text, timestamp: answer.time / 1000, channel: answer.isDm ? null : answer.target }, timed_out: false },
    };
  }

  private async contextCommand(kind: "compact" | "clear"): Promise<{ delivered: "method" | "queued" }> {
    const runner = this.keeper.runner;
    const method = runner?.[kind];
    if (runner && method) {
      await method.call(runner);
      return { delivered: "method" };
    }
    // Fall back to the slash command as its own turn (never relayed, never journaled).
    this.loop.enqueue({ origin: origin("system", null, null, null, `/${kind}`), text: `/${kind}`, klass: "system" }, false);
    return { delivered: "queued" };
  }

  // ---------------------------------------------------------------- status

  /** The status object (IPC `status`), passed through `hooks.status`. */
  status(): AgentStatus {
    const turn = this.loop.turn;
    const runner = this.keeper.runner;
    const status = buildStatus({
      state: this.state.state,
      history: this.state.history,
      nick: this.nick,
      currentNick: this.transport?.nick ?? this.nick,
      pid: process.pid,
      backend: this.backend.name,
      model: this.agent.model ?? this.backend.defaults?.model ?? null,
      channels: this.transport?.joinedChannels() ?? [],
      channelsRefused: this.joinRefusals.list(),
      link: this.link,
      catchUp: this.transport ? this.caughtUp.status(this.transport.catchUpSupport, this.transport.restartCatchUp) : null,
      uptimeSeconds: Math.round((Date.now() - this.startedAt) / 1000),
      runnerRunning: runner?.isRunning() ?? false,
      sessionId: runner?.sessionId ?? null,
      paused: this.paused,
      escalated: this.supervisor?.escalated ?? false,
      circuitOpen: this.keeper.circuitOpen,
      maxCrashes: this.config.restart.max_crashes,
      crashes: this.keeper.crashes,
      fatal: this.keeper.fatal,
      turn: turn ? { origin: turn.origin, prompt: turn.prompt } : null,
      turnCount: this.loop.turnCount,
      lastActivation: this.loop.lastActivation,
      queue: this.queue.counts(),
      promptsRefused: this.promptsRefused,
      agentChainRefused: this.chain.refused,
      journal: this.journal && this.journalPath ? { pending: this.journal.pendingCount, writeFailures: this.journal.writeFailures, path: this.journalPath } : null,
      logWriteFailures: logWriteFailures(),
      leftoverAgentsEnded: this.leftoverAgentsEnded,
      supervisor: this.supervisor?.status() ?? null,
      approvals: { mode: this.permissions.mode, pending: this.desk.list(), rules: this.desk.rules.list().length },
    });
    return this.hooks.status.call(status);
  }

  /** True once stop() has finished. */
  get isStopped(): boolean {
    return this.lifecycle === "stopped";
  }

  // ---------------------------------------------------------------- PID file

  private writePidFile(): void {
    // The second line says what it is, so `culture stop` can verify the process is ours.
    if (this.pidPath) writePidFile(this.pidPath, `culture-agent ${this.nick}`);
  }

  private removePidFile(): void {
    if (this.pidPath) removeFile(this.pidPath);
  }
}

function origin(kind: PromptOrigin["kind"], channel: string | null, sender: string | null, replyTo: string | null, text: string): PromptOrigin {
  return { id: randomUUID(), kind, channel, sender, replyTo, text };
}

/** A journaled prompt delivered by a later daemon: the original text plus a note saying so. */
function delayedPrompt(entry: JournalEntry): string {
  const when = new Date(entry.at).toISOString().replace(/\.\d+Z$/, "Z");
  const why = entry.started
    ? "its first attempt was cut short when the agent's daemon stopped"
    : "the agent's daemon stopped before it was delivered";
  return `${entry.text}\n[culture: delayed — this arrived at ${when}; ${why}. It is delivered once, now.]`;
}

