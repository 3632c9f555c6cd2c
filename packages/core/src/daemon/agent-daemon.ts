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
 * - {@link RunState}: the daemon's own facts (lifecycle, pause, IRC link) and the state derived
 *   from them and the keeper's (starting, ready, reconnecting, restarting, paused, over_budget, stopping),
 *   every transition logged and handed to `hooks.stateChange`.
 * - {@link daemonStatus}: the status, read from the parts that own each fact.
 *
 * Startup: journal -> channel marks -> message buffer -> IRC transport -> alerts -> IPC socket
 * -> supervisor -> runner, the runner's start begun beside the IRC connect (agent-head-start.ts)
 * and collected at its place. Mentions and DMs that arrive before the daemon runs only queue.
 * Shutdown in reverse: runner, supervisor, socket, transport (QUIT), channel marks, journal,
 * PID file.
 */
import { Alerts } from "../alerts/alerts.js";
import { escalationText, spiralingText } from "../alerts/alert-texts.js";
import type { BackendDefinition } from "../backend.js";
import { MessageBuffer } from "../buffer/message-buffer.js";
import { permissionsSchema, type AgentConfig, type CultureConfig, type PermissionsConfig } from "../config/schema.js";
import { errorMessage } from "../errors.js";
import type { AgentStatus, PromptOrigin } from "../events.js";
import { createDaemonHooks, type DaemonHooks } from "../hooks.js";
import { IpcServer } from "../ipc/ipc-server.js";
import { ChannelMarks } from "../irc/channel-marks.js";
import type { IrcTransport } from "../irc/irc-transport.js";
import { removeFile, writePidFile } from "../process/pid-file.js";
import { createLogger, type Logger } from "../logger.js";
import { AgentProcessRecord, withAgentRecord } from "../process/agent-record.js";
import { agentPidPath, agentProcessRecordPath, channelMarksPath, promptJournalPath, socketPath as resolveSocketPath, usageJournalPath } from "../paths.js";
import { UsageMeter } from "../usage/usage-meter.js";
import type { WhisperAction } from "../supervisor-base.js";
import { WindowSupervisor } from "../supervisor/window-supervisor.js";
import { AgentChainGuard } from "./agent-chain.js";
import { BudgetPart } from "./budget-part.js";
import { startAgentTransport } from "./agent-transport.js";
import { closeAgentSandbox, createAgentRunner, startSupervisor, type AgentParts } from "./agent-factory.js";
import { resumePrompt } from "./agent-prompt.js";
import { AskWaiters } from "./ask-waiters.js";
import type { DaemonState } from "./daemon-state.js";
import { RunState } from "./run-state.js";
import { CatchUpTally } from "./catch-up-tally.js";
import { claimSocket, endLeftoverAgents, openJournal, preflight } from "./daemon-startup.js";
import { startAgentEarly, type AgentHeadStart } from "./agent-head-start.js";
import { daemonStatus } from "./status-sources.js";
import { DEFAULT_TIMINGS, type DaemonTimings } from "./daemon-timings.js";
import type { AgentDaemonOptions } from "./daemon-options.js";
import type { IpcHandlerContext } from "./ipc-handlers.js";
import { IpcRoutes } from "./ipc-routes.js";
import { AccessPolicy } from "./access-policy.js";
import type { PermissionDecision, PermissionRequest } from "../approvals/permission-request.js";
import type { ApprovalDesk } from "./approval-desk.js";
import { createAgentApprovals } from "./agent-approvals.js";
import type { IrcSendGate } from "./irc-send-gate.js";
import { answerApproval } from "./approval-answers.js";
import { ControlChannel } from "./control-channel.js";
import { JoinRefusals, type ChannelRefusal } from "./join-refusals.js";
import { DaemonVoice } from "./daemon-voice.js";
import { Inbox } from "./inbox.js";
import { cannotRunText, nextAfterFailureText, turnFailedText } from "./receipt-texts.js";
import { Receipts } from "./receipts.js";
import { lineContext } from "./line-class.js";
import { PromptJournal } from "./prompt-journal.js";
import { newOrigin } from "./prompt-origin.js";
import { PromptQueue } from "./prompt-queue.js";
import { applyRelayPlugin } from "./relay-plugin.js";
import { EventFeed } from "./event-feed.js";
import { applyWakeupsPart } from "./wakeups-part.js";
import { effectiveSandbox } from "../sandbox/sandbox-config.js";
import { lazyPart, StartLoads } from "./lazy-part.js";
import { RunnerKeeper, type RunnerKeeperOptions } from "./runner-keeper.js";
import { TurnLoop } from "./turn-loop.js";
import { WhisperQueue } from "./whisper-queue.js";
import { createAgentPresence, presenceConfigOf, presenceFactsOf, type AgentPresence } from "./agent-presence.js";
import { stallSecondsOf } from "./stall-watchdog.js";
import { mirrorOf } from "../config/mirror-schema.js";
import { applyPendingOnJoin } from "./pending-on-join.js";
import { pendingAnswer, statusAnswer } from "./irc-queries.js";
import { ContextCare, contextConfigOf } from "./context-care.js";
import { RetryNotices } from "./retry-notice.js";

export type { DaemonTimings };
export type { AgentDaemonOptions };

/** One agent's daemon. */
export class AgentDaemon {
  readonly hooks: DaemonHooks;
  /** The transcript the console reads (IPC `events`, daemon/event-feed.ts). */
  readonly feed = new EventFeed();
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

  private readonly state: RunState;
  private readonly whispers = new WhisperQueue();
  private readonly asks = new AskWaiters();
  private readonly queue: PromptQueue;
  private readonly keeper: RunnerKeeper;
  private readonly loop: TurnLoop;
  private readonly chain: AgentChainGuard;
  /** Budget caps: the over_budget state, prompts set aside, alerts, the hard stop (budget/agent-budget.ts). */
  private readonly budget: BudgetPart;
  private readonly desk: ApprovalDesk;
  /** Channels the server would not let us into (status, #alerts, doctor, start). */
  private readonly joinRefusals: JoinRefusals;
  /** culture's IRC tools sending elsewhere than the task's origin ask like any tool. */
  private readonly gate: IrcSendGate;
  /** Where the tools socket's and the control socket's requests go (ipc-routes.ts). */
  private readonly routes: IpcRoutes;

  private buffer!: MessageBuffer;
  private transport: IrcTransport | undefined;
  private alerts: Alerts | undefined;
  private ipc: IpcServer | undefined;
  /** The owner's control socket (ipc-access.ts says what is answered where). */
  private control: ControlChannel | undefined;
  private supervisor: WindowSupervisor | undefined;
  private journal: PromptJournal | null = null;
  private marks: ChannelMarks | null = null;
  private readonly caughtUp: CatchUpTally;
  /** Meters every turn into the usage journal and fires `hooks.turnUsage` (usage/usage-meter.ts). */
  private readonly usage: UsageMeter;

  /** identity: who may prompt and command this agent. */
  private readonly access: AccessPolicy;
  private readonly inbox: Inbox;
  private readonly voice: DaemonVoice;
  private readonly receipts: Receipts;
  /** Presence on IRC, tool progress, the hung watchdog (agent-presence.ts). */
  private readonly presence: AgentPresence;
  /** Tells the asker when model-API retries delay a turn (retry-notice.ts). */
  private readonly retries: RetryNotices;
  /** The parts the config uses that load when the daemon starts (lazy-part.ts). */
  private readonly loads = new StartLoads();
  private stopPromise: Promise<void> | null = null;
  private resolveDone!: () => void;
  /** The keeper's alerts from before {@link Alerts} existed (the agent starts beside the IRC connect). */
  private readonly heldAlerts: Array<Parameters<RunnerKeeperOptions["alert"]>> = [];

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
    this.caughtUp = new CatchUpTally((this.config.catch_up?.max_age_seconds ?? 86_400) * 1000);
    this.queue = new PromptQueue({ limit: this.timings.promptQueueLimit, perSenderLimit: this.timings.perSenderLimit });
    this.chain = new AgentChainGuard(this.config.agents.map((a) => a.nick), this.timings.maxAgentHops, this.config.budget?.chain_tokens ?? null);
    this.joinRefusals = new JoinRefusals(this.nick, this.logger.child("irc"));
    this.keeper = new RunnerKeeper({
      nick: this.nick,
      restart: this.config.restart,
      logger: this.logger,
      hooks: this.hooks,
      createRunner: (previous) =>
        createAgentRunner(this.parts, previous, {
          hooks: this.hooks,
          permissions: this.permissions,
          takeWhispers: () => this.whispers.take(),
          requestPermission: (request) => this.requestPermission(request),
          retrying: (retry) => this.retries.retrying(retry),
        }),
      onMessage: (runner, msg) => this.loop.onAgentMessage(runner, msg),
      // The agent starts beside the IRC connect, before the alerts exist: what it reports then waits for them.
      alert: (event, text, extra) => (this.alerts ? void this.alerts.fire(event, text, extra) : this.heldAlerts.push([event, text, extra])),
      lastTask: () => this.loop.lastTask,
      queueResume: (reason) =>
        this.queue.unshift({ origin: newOrigin("resume", null, null, null, ""), text: resumePrompt(reason, this.loop.lastTask), klass: "system" }),
      changed: (reason) => this.state.changed(reason),
      scope: (start) => withAgentRecord(this.agentRecord, start),
    });
    this.state = new RunState({ logger: this.logger, keeper: this.keeper, pump: () => (this.loop.pump(), this.presence?.poke()), onChange: (c) => this.hooks.stateChange.call(c), overBudget: () => this.budget?.blocked() != null });
    this.receipts = new Receipts({ mode: this.agent.receipts ?? this.config.receipts ?? "auto", transport: () => this.transport, logger: this.logger.child("receipts") });
    const standing = () => ({ nick: this.nick, fatal: this.keeper.fatal, fatalReason: this.keeper.statusFacts().fatalReason, circuitOpen: this.keeper.circuitOpen, restarting: this.keeper.restarting });
    this.loop = new TurnLoop({
      receipts: this.receipts,
      nextAfterFailure: () => nextAfterFailureText(standing()),
      cannotRun: () => cannotRunText(standing()),
      turnFailed: (o, error) => void (this.keeper.fatal ? undefined : this.alerts?.fire("agent_error", turnFailedText(this.nick, o, error))),
      queue: this.queue,
      keeper: this.keeper,
      hooks: this.hooks,
      logger: this.logger,
      journal: () => this.journal,
      supervisor: () => this.supervisor ?? null,
      mayRun: () => this.state.mayRun(),
      stopping: () => this.state.stopping,
      hold: (p) => this.budget.hold(p),
      turnTimeoutSeconds: this.agent.turn_timeout_seconds,
      interruptGraceMs: this.timings.interruptGraceMs,
      notice: (target, text) => this.voice.say(target, text),
      turnStarted: () => this.presence?.poke(),
    });
    applyRelayPlugin(this.hooks, this.agent.relay, (target, text) => {
      this.sayAsAgent(target, text);
    });
    this.feed.apply(this.hooks);
    this.usage = new UsageMeter({ nick: this.nick, logger: this.logger.child("usage"), prices: this.config.prices, model: this.agent.model, journalPath: this.journalPath && usageJournalPath(this.nick, this.env) }).apply(this.hooks);
    this.backend.apply?.(this.hooks);
    this.retries = new RetryNotices({ logger: this.logger.child("retries"), turn: () => this.loop.turn?.origin ?? null, receipts: this.receipts, noticeAfterMs: this.timings.retryNoticeMs });
    new ContextCare({ nick: this.nick, config: contextConfigOf(this.config, this.agent), logger: this.logger.child("context"), whisper: (m) => this.deliverWhisper(m, "CONTEXT"), compact: () => this.loop.contextCommand("compact") }).apply(this.hooks);
    applyWakeupsPart(this.hooks, { nick: this.nick, agent: this.agent, env: this.env, logger: this.logger, timings: this.timings, loop: this.loop, queue: this.queue, persist: options.journal !== false, sessionId: () => this.keeper.statusFacts().sessionId }, this.loads);
    for (const plugin of options.plugins ?? []) plugin.apply(this.hooks, { nick: this.nick, logger: this.logger.child(plugin.name) });
    this.access = new AccessPolicy(this.config, this.agent, { logger: this.logger.child("access") }); // identity
    ({ desk: this.desk, gate: this.gate } = createAgentApprovals({
      nick: this.nick,
      config: this.config,
      agent: this.agent,
      policy: this.permissions,
      env: this.env,
      persist: options.journal !== false,
      logger: this.logger.child("approvals"),
      say: (target, text) => this.voice.say(target, text),
      alert: (event, text, ircText) => (this.feed.note({ kind: event, text }), void this.alerts?.fire(event, text, ircText === undefined ? {} : { ircContent: ircText })),
      waiting: {
        begin: () => (this.loop.holdTimer(), this.supervisor?.notePermissionWait(true)),
        end: () => (this.loop.releaseTimer(), this.supervisor?.notePermissionWait(false)),
      },
      origins: () => ({ turn: this.loop.turn?.origin ?? null, lastTask: this.loop.lastTaskOrigin }),
      caseMapping: () => this.transport?.caseMapping ?? "rfc1459",
      decide: (request, origin) => this.requestPermission(request, origin),
    }));
    this.presence = createAgentPresence({
      nick: this.nick,
      hooks: this.hooks,
      logger: this.logger,
      presence: presenceConfigOf(this.config),
      stallSeconds: stallSecondsOf(this.agent),
      transport: () => this.transport,
      alert: (text) => void this.alerts?.fire("agent_timeout", text),
      tellSupervisor: () => void this.supervisor?.evaluateNow(),
      abort: (why) => this.abort(why),
      facts: presenceFactsOf({ state: this.state, keeper: this.keeper, desk: this.desk, loop: this.loop, queue: this.queue }),
    });
    const mirror = mirrorOf(this.config, this.agent);
    if (mirror) this.loads.add(async () => void (await lazyPart("activity mirror", () => import("./lazy-modules.js"), this.logger)()).applyActivityMirror({ nick: this.nick, hooks: this.hooks, mirror, progress: this.presence.progress, turnOrigin: () => this.loop.turn?.origin ?? null, transport: () => this.transport, notice: (t, x) => this.voice.notice(t, x) }));
    const answerers = { nick: this.nick, operators: this.config.operators };
    applyPendingOnJoin({ hooks: this.hooks, logger: this.logger.child("approvals"), who: answerers, access: this.access, desk: this.desk, transport: () => this.transport, notice: (t, x) => this.voice.notice(t, x) });
    this.routes = new IpcRoutes({ nick: this.nick, socketPath: this.socketPath, hooks: this.hooks, gate: this.gate, desk: this.desk, budget: (req) => this.budget.ipc(req) ?? this.feed.ipc(req), context: () => this.ipcContext });
    this.voice = new DaemonVoice({ nick: this.nick, logger: this.logger, chain: this.chain, loop: this.loop, transport: () => this.transport, buffer: () => this.buffer });
    this.inbox = new Inbox({
      hooks: this.hooks,
      logger: this.logger,
      access: this.access,
      chain: this.chain,
      caughtUp: this.caughtUp,
      asks: this.asks,
      queue: this.queue,
      loop: this.loop,
      maxAgentHops: this.timings.maxAgentHops,
      context: () => lineContext(this.nick, this.transport),
      record: (ev) => this.buffer.add(ev.bufferKey, { nick: ev.nick, text: ev.text, timestamp: ev.time / 1000 }),
      resume: () => this.resume(),
      abort: (why) => this.abort(why),
      isPaused: () => this.state.paused || this.keeper.circuitOpen,
      approvalAnswer: (ev, answer) =>
        answerApproval(ev, answer, { nick: this.nick, desk: this.desk, transport: this.transport, logger: this.logger, say: (t, x) => this.voice.say(t, x), notice: (t, x) => this.voice.notice(t, x) }),
      receipts: this.receipts,
      pausedBy: () => this.state.pausedBy,
      cannotRun: () => cannotRunText(standing()),
      say: (target, text) => this.voice.say(target, text),
      notice: (target, text) => this.voice.notice(target, text),
      overBudget: (origin) => this.budget.receiptFor(origin),
      budgetCommand: (command, by) => this.budget.command(command, by),
      query: (line) =>
        line.query === "status"
          ? [statusAnswer(this.status())]
          : pendingAnswer(this.desk.list(), line.ev.isDm ? null : line.ev.target, answerers, (n) => this.transport?.fold(n) ?? n.toLowerCase()),
    });
    this.budget = new BudgetPart({
      nick: this.nick,
      config: this.config,
      agent: this.agent,
      env: this.env,
      logger: this.logger.child("budget"),
      hooks: this.hooks,
      persist: options.journal !== false,
      now: this.timings.now,
      chain: this.chain,
      queue: this.queue,
      receipts: this.receipts,
      alert: (event, text) => void this.alerts?.fire(event, text),
      notice: (target, text) => this.voice.notice(target, text),
      changed: (reason) => this.state.changed(reason),
      interrupt: async () => void (await this.keeper.runner?.interrupt?.().catch((err: unknown) => this.logger.warn(`interrupt failed: ${errorMessage(err)}`))),
    });
  }

  /** The agent's effective permission policy: its own, else the config's, else bypass. */
  private get permissions(): PermissionsConfig {
    return this.agent.permissions ?? this.config.permissions ?? permissionsSchema.parse({});
  }

  /** The daemon's state now. */
  get currentState(): DaemonState {
    return this.state.state;
  }

  /** Starts everything; rejects (after cleaning up) when any part fails to start. */
  async start(): Promise<void> {
    await claimSocket(this.socketPath, this.nick, this.env, this.logger);
    let agentStart: AgentHeadStart | null = null;
    try {
      await this.loads.run();
      if (this.journalPath) {
        const { journal, pending } = openJournal(this.journalPath, this.nick, this.env, this.logger, this.timings.journalMaxBytes);
        this.journal = journal;
        for (const p of pending) this.queue.restore(p);
        this.usage.open();
      }
      if (this.agentRecord) this.leftoverAgentsEnded = await endLeftoverAgents(this.agentRecord.path, this.logger, this.timings.leftoverGraceMs);
      if (this.journalPath) this.marks = ChannelMarks.open({ path: channelMarksPath(this.nick, this.env), logger: this.logger.child("marks") });
      this.buffer = new MessageBuffer(this.config.buffer_size);
      // The agent starts beside the IRC connect (agent-head-start.ts): prompts still wait for "running".
      // A sandboxed one binds the IRC-tools socket into its box, so it starts once that exists.
      const startAgent = () => startAgentEarly(() => preflight(this.backend, this.backendOptions, this.env, this.logger), () => this.keeper.start());
      if (effectiveSandbox(this.config, this.parts.agent).kind === "none") agentStart = startAgent();
      await startAgentTransport(this.parts, this.marks, this.timings, (t) => this.joinRefusals.attach((this.transport = t)), {
        message: (ev) => void this.inbox.onMessage(ev).catch((err) => this.logger.error(`handling an IRC message failed: ${errorMessage(err)}`)),
        registered: () => this.state.setLink("connected", "IRC link up"),
        disconnected: (reason) => this.state.setLink("reconnecting", "IRC link lost", reason),
        joinError: (j) => this.logger.warn(`could not join ${j.channel}: ${j.code} ${j.reason}`),
      });
      this.assertStarting();
      const sendIrc = (channel: string, text: string) => this.voice.say(channel, text);
      this.alerts = new Alerts({ nick: this.nick, webhooks: this.config.webhooks, logger: this.logger.child("alerts"), hooks: this.hooks, sendIrc });
      for (const [event, text, extra] of this.heldAlerts.splice(0)) void this.alerts.fire(event, text, extra);
      this.joinRefusals.alertWith((text) => void this.alerts?.fire("agent_error", text));
      await this.budget.start();
      this.ipc = new IpcServer({
        path: this.socketPath,
        handler: (req, closed) => this.routes.tools(req, closed),
        logger: this.logger.child("ipc"),
        whispers: this.whispers,
      });
      await this.ipc.start();
      this.control = new ControlChannel({ nick: this.nick, env: this.env, logger: this.logger.child("control"), handler: (req) => this.routes.control(req) });
      await this.control.start();
      this.supervisor = await startSupervisor(this.parts, { whisper: (m, a) => this.deliverWhisper(m, a), escalation: (r) => this.escalate(r) });
      this.assertStarting();
      // The second line says what it is, so `culture stop` can verify the process is ours.
      if (this.pidPath) writePidFile(this.pidPath, `culture-agent ${this.nick}`);
      agentStart ??= startAgent();
      const cannot = await agentStart.outcome();
      if (cannot) await this.keeper.cannotRun(cannot);
      this.assertStarting();
      this.state.setLifecycle("running", "the daemon is up");
      await this.hooks.ready.promise();
      this.logger.info("ready", { socket: this.socketPath, backend: this.backend.name, queued: this.queue.length });
    } catch (err) {
      await this.stop().catch(() => undefined);
      // An agent start the failure cut short has wound down (its process ended) before we report.
      await agentStart?.settled();
      throw err;
    }
  }

  /** A stop() during start() ends the start: nothing more is started. */
  private assertStarting(): void {
    if (this.state.lifecycle !== "starting") throw new Error(`${this.nick}: stopped while starting`);
  }

  /** Stops everything in reverse order. Idempotent; safe to call from inside an IPC request. */
  stop(): Promise<void> {
    this.stopPromise ??= this.doStop();
    return this.stopPromise;
  }

  private async doStop(): Promise<void> {
    this.state.setLifecycle("stopping", "stop requested");
    // Pending approvals first: ending them restarts the turn timer, which loop.stop() then clears.
    this.desk.cancelAll("the agent's daemon is stopping");
    this.loop.stop();
    this.budget.stop();
    this.receipts.stop();
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
    await step("egress bridge", () => closeAgentSandbox(this.parts));
    await step("supervisor", () => this.supervisor?.stop());
    await step("IPC socket", () => this.ipc?.stop());
    await step("control socket", () => this.control?.stop());
    await step("IRC transport", () => this.transport?.close("culture daemon stopping"));
    await step("channel marks", () => this.marks?.close());
    await step("prompt journal", () => this.journal?.close());
    await step("usage journal", () => this.usage.close());
    await step("PID file", () => void (this.pidPath && removeFile(this.pidPath)));
    this.state.setLifecycle("stopped", "stopped");
    const waiting = this.journal?.pendingCount ?? 0;
    this.logger.info("stopped", waiting ? { prompts_kept_for_next_start: waiting } : undefined);
    this.resolveDone();
  }

  /** The agent's parts for agent-factory.ts. */
  private get parts(): AgentParts {
    return { nick: this.nick, config: this.config, agent: this.agent, backend: this.backend, backendOptions: this.backendOptions, env: this.env, logger: this.logger, loadBackend: this.loadBackendByName };
  }

  // ---------------------------------------------------------------- pause, resume, abort, escalation

  /** Stops feeding new prompts (the runner keeps running). */
  pause(by = "by an operator, with culture pause"): void {
    this.state.setPaused(true, by, "paused");
  }

  /** Resumes: closes an open circuit (restarting the agent), resets the supervisor ladder, delivers what was kept. */
  async resume(): Promise<void> {
    this.supervisor?.resume();
    this.state.setPaused(false, null, "resumed");
    await this.keeper.resume();
    this.state.changed("resumed");
  }

  /** Interrupts the current turn and drops queued prompts; returns how many were dropped. */
  async abort(why?: string): Promise<number> {
    const dropped = await this.loop.abort(why, this.budget.releaseHeld());
    this.inbox.resetOverflow();
    this.supervisor?.resume();
    this.state.setPaused(false, null, "aborted by an operator");
    return dropped;
  }

  private async escalate(reason: string): Promise<void> {
    await this.hooks.escalation.promise(reason);
    const task = this.loop.lastTask ?? "its current task";
    this.state.setPaused(true, "the supervisor asked a person to look first", "escalated to humans");
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
    return this.voice.asAgent(target, text);
  }

  // ---------------------------------------------------------------- IPC

  /**
   * An agent's permission request (its own tools, or culture's IRC tools sending elsewhere): a
   * `permissionRequest` tap may answer it; otherwise the approval desk (policy, then an operator on IRC).
   */
  private async requestPermission(request: PermissionRequest, origin: PromptOrigin | null = this.loop.turn?.origin ?? null): Promise<PermissionDecision> {
    return (await this.hooks.permissionRequest.promise(request, origin)) ?? this.desk.request(request, origin);
  }

  /** The catalogue handlers' context: how the agent's IRC commands reach this daemon's parts. */
  private get ipcContext(): IpcHandlerContext {
    return {
      say: (target, text) => this.sayAsAgent(target, text),
      transport: this.transport!,
      buffer: this.buffer,
      conversationKey: (target) => this.transport!.conversationKey(target),
      status: () => this.status(),
      noteChannelRead: () => this.supervisor?.noteChannelRead(),
      ask: (channel, question, timeoutSeconds) =>
        this.asks.ask(this.nick, question, timeoutSeconds, () => this.sayAsAgent(channel, question), (event, text) => void this.alerts?.fire(event, text)),
      compact: () => this.loop.contextCommand("compact"),
      clear: () => this.loop.contextCommand("clear"),
      pause: () => this.pause(),
      resume: () => this.resume(),
      // Answer first, then stop outside this request's own task.
      shutdown: () => void setImmediate(() => void this.stop()),
    };
  }

  // ---------------------------------------------------------------- status

  /** The status object (IPC `status`), passed through `hooks.status`. */
  status(): AgentStatus {
    const journal = this.journal && this.journalPath ? { journal: this.journal, path: this.journalPath } : null;
    const { nick, config, agent, backend, permissions, startedAt, state, keeper, loop, queue, inbox, chain, joinRefusals, caughtUp, desk, budget, receipts, transport, supervisor, leftoverAgentsEnded } = this;
    return this.hooks.status.call(daemonStatus({ nick, config, agent, backend, permissions, startedAt, state, keeper, loop, queue, inbox, chain, joinRefusals, caughtUp, desk, budget, receipts, transport, journal, supervisor, leftoverAgentsEnded }));
  }

  /** Channels the server refused to let us join (status `channels_refused`), without computing the whole status. */
  get channelsRefused(): ChannelRefusal[] {
    return this.joinRefusals.list();
  }

  /** Why the agent cannot run until a person acts (not signed in, circuit open), or null. */
  get cannotRun(): string | null {
    return this.keeper.fatal ?? cannotRunText({ nick: this.nick, fatal: null, circuitOpen: this.keeper.circuitOpen, restarting: false });
  }

  /** True once stop() has finished. */
  get isStopped(): boolean {
    return this.state.lifecycle === "stopped";
  }
}
