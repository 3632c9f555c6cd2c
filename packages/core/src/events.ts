/** The values that flow through the daemon's hooks. */
import type { AgentMessage } from "./agent-message.js";
import type { AlertEvent } from "./config/schema.js";
import type { WhisperAction } from "./supervisor-base.js";

/** A PRIVMSG, NOTICE or ACTION the daemon received. */
export interface IrcMessageEvent {
  kind: "privmsg" | "notice" | "action";
  /** Sender nick. */
  nick: string;
  /** Channel, or our nick for a DM. */
  target: string;
  text: string;
  /** The sender's services account (account-tag), when the server says. */
  account: string | null;
  tags: Record<string, string>;
  /** Epoch milliseconds (server-time when present). */
  time: number;
  /** True for a private message to us. */
  isDm: boolean;
  /** The message buffer key: the channel, or `DM:<nick>`. */
  bufferKey: string;
  /**
   * True for a line said while the connection was down and fetched again after the reconnect
   * (catch-up from the server's history); `time` is when it was said.
   */
  replayed?: boolean;
}

/** Where a prompt came from, and where a relayed reply goes. */
export interface PromptOrigin {
  /** Unique per prompt: replies are correlated by it. */
  id: string;
  /** `schedule`: a schedule of the agent's config (daemon/schedules.ts); `trigger`: an HTTP trigger or the trigger file. */
  kind: "mention" | "dm" | "initial" | "resume" | "system" | "schedule" | "trigger";
  /** The channel of a mention. */
  channel: string | null;
  /** The nick that mentioned us or sent the DM. */
  sender: string | null;
  /** Where a relayed reply goes: the channel, or the sender for a DM; null for none. */
  replyTo: string | null;
  /** The IRC text as received (for mentions and DMs). */
  text: string;
  /** The sender's IRC account (mentions and DMs), when the server said; usage and budgets count by it. */
  account?: string | null;
}

/** One finished turn. */
export interface TurnResult {
  origin: PromptOrigin;
  prompt: string;
  messages: AgentMessage[];
  /** The last assistant message's text (blank when the turn produced none). */
  finalText: string;
  /** IRC targets the agent itself sent to during the turn (lower-cased). */
  sentTo: ReadonlySet<string>;
  /** Set when the turn failed or timed out. */
  error: string | null;
  durationMs: number;
}

/** A whisper on its way to the agent. */
export interface WhisperEvent {
  action: WhisperAction;
  message: string;
}

/** Alert severities. */
export type AlertSeverity = "info" | "warning" | "error";

/** An alert on its way to #alerts and the webhook. */
export interface AlertPayload {
  event: AlertEvent;
  nick: string;
  severity: AlertSeverity;
  /** The text posted to IRC and sent as the webhook's `content`. */
  content: string;
  /** The text for the IRC copy when it differs from `content` (the escalation message). */
  ircContent?: string;
  /** Epoch seconds. */
  timestamp: number;
}

/** A request on the IPC socket (already parsed and checked to be an object with a string `type`). */
export interface IpcRequest {
  type: string;
  id: string;
  [field: string]: unknown;
}

/** What an IPC handler answers. */
export type IpcResult = { ok: true; data: Record<string, unknown> } | { ok: false; error: string };

/** The supervisor's part of the status. */
export interface SupervisorStatus {
  evaluator: string | null;
  last_verdict: string | null;
  ladder_step: number;
  evaluations: number;
  evaluation_failures: number;
}

/** The daemon's status (IPC `status`): the specification's fields plus culture's. */
export interface AgentStatus {
  running: boolean;
  paused: boolean;
  circuit_open: boolean;
  turn_count: number;
  last_activation: number | null;
  activity: "working" | "paused" | "idle";
  description: string;
  nick: string;
  pid: number;
  backend: string;
  model: string | null;
  channels: string[];
  connected: boolean;
  uptime_seconds: number;
  supervisor?: SupervisorStatus;
  [extra: string]: unknown;
}
