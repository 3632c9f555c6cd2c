import type { AgentMessage } from "./agent-message.js";

/** The kinds of whisper sent privately to an agent: the supervisor's two, and context care's (daemon/context-care.ts). */
export type WhisperAction = "CORRECTION" | "THINK_DEEPER" | "CONTEXT";

/**
 * The contract of a supervisor (the specification's `SupervisorBase`). It observes every
 * agent message, whispers corrections, and escalates to humans. It never kills the agent,
 * edits files, or speaks on IRC as the agent.
 */
export abstract class SupervisorBase {
  /** Delivers a whisper to the agent. Set by the daemon before `start()`. */
  onWhisper?: (message: string, action: WhisperAction) => Promise<void>;
  /** Escalates to humans (alerts + pause). Set by the daemon before `start()`. */
  onEscalation?: (message: string) => Promise<void>;

  abstract start(): Promise<void>;
  abstract stop(): Promise<void>;
  /** Feeds one agent message (a turn, or a tool call as it happens) to the supervisor. */
  abstract observe(turn: AgentMessage): Promise<void>;
}

/** One LLM completion for the supervisor: a prompt in, verdict text out. */
export interface Evaluator {
  /** Runs one evaluation. Must honour `signal` (the supervisor aborts on timeout and stop). */
  evaluate(request: EvaluationRequest): Promise<string>;
  /** Releases whatever the evaluator holds (processes, sessions). */
  close?(): Promise<void>;
}

/** What an evaluator is asked. */
export interface EvaluationRequest {
  systemPrompt: string;
  prompt: string;
  signal: AbortSignal;
}
