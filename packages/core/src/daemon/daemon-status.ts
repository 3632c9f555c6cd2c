/**
 * The daemon's status (IPC `status`, `culture status`) as a pure function of a snapshot of the
 * facts its parts own. The specification's fields first (`running, paused, circuit_open,
 * turn_count, last_activation, activity, description`), then culture's.
 */
import type { AgentStatus, PromptOrigin, SupervisorStatus } from "../events.js";
import type { DaemonState, IrcLinkState, StateTransition } from "./daemon-state.js";
import type { PromptClass } from "./prompt-queue.js";
import type { PendingApproval } from "./approval-desk.js";
import type { CatchUpStatus } from "./catch-up-tally.js";
import { describeRefusal, type ChannelRefusal } from "./join-refusals.js";
import { failureReasonText, type AgentFailureReason } from "../agent-failure.js";

/** Everything status is computed from. */
export interface StatusSnapshot {
  state: DaemonState;
  history: readonly StateTransition[];
  nick: string;
  currentNick: string;
  pid: number;
  backend: string;
  model: string | null;
  channels: string[];
  /** Channels the server refused to let us join (join-refusals.ts). */
  channelsRefused?: ChannelRefusal[];
  link: { state: IrcLinkState; since: number; disconnects: number; lastError: string | null };
  /** How the IRC transport catches up on what was said while the link was down or the daemon was not running, and what it did. */
  catchUp: CatchUpStatus | null;
  uptimeSeconds: number;
  runnerRunning: boolean;
  sessionId: string | null;
  paused: boolean;
  escalated: boolean;
  circuitOpen: boolean;
  maxCrashes: number;
  crashes: number;
  fatal: string | null;
  /** The classified reason of the fatal error (agent-failure.ts), when it had one. */
  fatalReason?: AgentFailureReason | null;
  turn: { origin: PromptOrigin; prompt: string } | null;
  turnCount: number;
  lastActivation: number | null;
  queue: Record<PromptClass, number>;
  promptsRefused: number;
  agentChainRefused: number;
  journal: { pending: number; writeFailures: number; path: string } | null;
  logWriteFailures: number;
  /** Agent processes a previous daemon (killed) left running that this one ended at start. */
  leftoverAgentsEnded: number[];
  supervisor: SupervisorStatus | null;
  /** The permission mode, the requests waiting for an operator, and how many rules are saved. */
  approvals?: { mode: string; pending: PendingApproval[]; rules: number };
  /** Why no turn starts (an agent or home budget cap is used up), or null. */
  overBudget?: string | null;
}

/** The status object for a snapshot. */
export function buildStatus(s: StatusSnapshot): AgentStatus {
  const working = s.turn !== null;
  const queued = s.queue.system + s.queue.priority + s.queue.chatter;
  const activity: AgentStatus["activity"] = working ? "working" : s.paused || s.circuitOpen ? "paused" : "idle";
  return {
    running: s.runnerRunning,
    paused: s.paused,
    circuit_open: s.circuitOpen,
    turn_count: s.turnCount,
    last_activation: s.lastActivation,
    activity,
    description: describe(s, working, queued),
    nick: s.nick,
    pid: s.pid,
    backend: s.backend,
    model: s.model,
    channels: s.channels,
    channels_refused: (s.channelsRefused ?? []).map((r) => ({ ...r })),
    connected: s.link.state === "connected",
    uptime_seconds: s.uptimeSeconds,
    daemon_state: s.state,
    state_since: s.history.length ? s.history[s.history.length - 1]!.at : null,
    state_history: s.history.map((h) => ({ ...h })),
    irc: { state: s.link.state, since: s.link.since, disconnects: s.link.disconnects, last_error: s.link.lastError, catch_up: s.catchUp },
    queued_prompts: queued,
    queue: { ...s.queue },
    prompts_refused: s.promptsRefused,
    agent_chain_refused: s.agentChainRefused,
    journal: s.journal ? { pending: s.journal.pending, write_failures: s.journal.writeFailures, path: s.journal.path } : null,
    log_write_failures: s.logWriteFailures,
    leftover_agents_ended: [...s.leftoverAgentsEnded],
    crashes: s.crashes,
    // Why the agent is paused until a person acts (agent-failure.ts), or null.
    fatal: s.fatal ? { reason: s.fatalReason ?? null, message: s.fatal } : null,
    session_id: s.sessionId,
    current_nick: s.currentNick,
    ...(s.supervisor ? { supervisor: s.supervisor } : {}),
    ...(s.approvals ? { approvals: { mode: s.approvals.mode, pending: s.approvals.pending, rules: s.approvals.rules } } : {}),
  };
}

function describe(s: StatusSnapshot, working: boolean, queued: number): string {
  let text: string;
  if (s.state === "starting") text = "starting";
  else if (s.state === "stopping" || s.state === "stopped") text = s.state;
  else if (s.fatal && s.fatalReason && s.fatalReason !== "auth") text = `paused: ${failureReasonText(s.fatalReason)} (${s.fatal.split("\n")[0]}); resume once fixed`;
  else if (s.fatal) text = `agent cannot run: ${s.fatal.split("\n")[0]}`;
  else if (s.circuitOpen) text = `circuit open after ${s.maxCrashes} crashes; waiting for resume`;
  else if (s.paused) text = `paused${s.escalated ? " (escalated to humans)" : ""}; ${queued} prompt(s) waiting`;
  else if (s.overBudget && !working) text = `${s.overBudget}; ${queued} prompt(s) waiting`;
  else if (s.approvals?.pending.length) text = describeWait(s.approvals.pending, working ? describeTask(s.turn!.origin, s.turn!.prompt) : null);
  else if (working) text = describeTask(s.turn!.origin, s.turn!.prompt);
  else if (s.state === "restarting") text = "restarting the agent";
  else text = "idle";
  const live = s.state !== "starting" && s.state !== "stopping" && s.state !== "stopped";
  if (live && s.channelsRefused?.length) text += `; cannot join ${s.channelsRefused.map(describeRefusal).join(", ")}`;
  if (live && s.link.state !== "connected") {
    text += `; IRC link down (${s.link.state}${s.link.lastError ? `: ${s.link.lastError}` : ""})`;
  }
  return text;
}

function describeWait(pending: PendingApproval[], task: string | null): string {
  const first = pending[0]!;
  const more = pending.length > 1 ? ` (+${pending.length - 1} more)` : "";
  return `waiting for approval ${first.id}: ${first.summary}${more}${task ? `; ${task}` : ""}`;
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
    case "schedule":
      return `running ${origin.sender?.replace(/^schedule:/, "schedule ") ?? "a schedule"}: ${short}`;
    default:
      return short;
  }
}
