/**
 * Gathers the daemon's status from the parts that own each fact (the run state, the keeper,
 * the turn loop, the queue, the inbox, approvals, budget, receipts, the IRC transport...) into
 * the snapshot {@link buildStatus} turns into the status object, plus the parts' own sections.
 */
import type { BackendDefinition } from "../backend.js";
import type { BudgetPart } from "./budget-part.js";
import type { AgentConfig, CultureConfig, PermissionsConfig } from "../config/schema.js";
import { configFingerprint, type ConfigFingerprint } from "../config/config-fingerprint.js";
import type { AgentStatus } from "../events.js";
import type { IrcTransport } from "../irc/irc-transport.js";
import { logWriteFailures } from "../logger.js";
import { effectiveSandbox, sandboxStatus } from "../sandbox/sandbox-config.js";
import type { WindowSupervisor } from "../supervisor/window-supervisor.js";
import type { AgentChainGuard } from "./agent-chain.js";
import type { ApprovalDesk } from "./approval-desk.js";
import type { CatchUpTally } from "./catch-up-tally.js";
import { buildStatus } from "./daemon-status.js";
import type { Inbox } from "./inbox.js";
import type { JoinRefusals } from "./join-refusals.js";
import type { PromptJournal } from "./prompt-journal.js";
import type { PromptQueue } from "./prompt-queue.js";
import type { Receipts } from "./receipts.js";
import type { RunState } from "./run-state.js";
import type { RunnerKeeper } from "./runner-keeper.js";
import type { TurnLoop } from "./turn-loop.js";

/** The daemon's parts, as status reads them. */
export interface StatusSources {
  nick: string;
  config: CultureConfig;
  agent: AgentConfig;
  backend: BackendDefinition;
  permissions: PermissionsConfig;
  /** Epoch ms the daemon started. */
  startedAt: number;
  state: RunState;
  keeper: RunnerKeeper;
  loop: TurnLoop;
  queue: PromptQueue;
  inbox: Inbox;
  chain: AgentChainGuard;
  joinRefusals: JoinRefusals;
  caughtUp: CatchUpTally;
  desk: ApprovalDesk;
  budget: Pick<BudgetPart, "describe" | "status">;
  receipts: Receipts;
  transport: IrcTransport | undefined;
  journal: { journal: PromptJournal; path: string } | null;
  supervisor: WindowSupervisor | undefined;
  leftoverAgentsEnded: number[];
}

/** The status object (before `hooks.status`) of the daemon whose parts are `s`. */
export function daemonStatus(s: StatusSources): AgentStatus {
  const t = s.transport;
  const status = buildStatus({
    state: s.state.state,
    history: s.state.history,
    nick: s.nick,
    currentNick: t?.nick ?? s.nick,
    pid: process.pid,
    backend: s.backend.name,
    model: s.agent.model ?? s.backend.defaults?.model ?? null,
    channels: t?.joinedChannels() ?? [],
    channelsRefused: s.joinRefusals.list(),
    link: s.state.link,
    catchUp: t ? s.caughtUp.status(t.catchUpSupport, t.restartCatchUp) : null,
    uptimeSeconds: Math.round((Date.now() - s.startedAt) / 1000),
    ...s.keeper.statusFacts(),
    paused: s.state.paused,
    escalated: s.supervisor?.escalated ?? false,
    maxCrashes: s.config.restart.max_crashes,
    ...s.loop.statusFacts(),
    queue: s.queue.counts(),
    promptsRefused: s.inbox.promptsRefused,
    agentChainRefused: s.chain.refused,
    journal: s.journal ? { pending: s.journal.journal.pendingCount, writeFailures: s.journal.journal.writeFailures, path: s.journal.path } : null,
    logWriteFailures: logWriteFailures(),
    leftoverAgentsEnded: s.leftoverAgentsEnded,
    supervisor: s.supervisor?.status() ?? null,
    approvals: { mode: s.permissions.mode, pending: s.desk.list(), rules: s.desk.rules.list().length },
    overBudget: s.budget.describe(),
  });
  return { ...status, receipts: s.receipts.snapshot(), budget: s.budget.status(), sandbox: sandboxStatus(effectiveSandbox(s.config, s.agent)), started_config: startedConfig(s.agent, s.config) };
}

/** One fingerprint per agent entry a daemon runs with, taken at its first status (its config never changes while it runs). */
const fingerprints = new WeakMap<AgentConfig, ConfigFingerprint>();

/** What the daemon was started with (config/config-fingerprint.ts): `culture status` compares it with agents.yaml. */
function startedConfig(agent: AgentConfig, config: CultureConfig): ConfigFingerprint {
  let f = fingerprints.get(agent);
  if (!f) fingerprints.set(agent, (f = configFingerprint(config, agent)));
  return f;
}
