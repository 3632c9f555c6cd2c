import type { AgentMessage } from "./agent-message.js";

/**
 * The contract between the daemon and one agent session (the specification's
 * `AgentRunnerBase`, in TypeScript). The daemon sets the callbacks before `start()`, sends
 * one prompt at a time, and treats every `onMessage` call between a `sendPrompt` call and its
 * resolution as part of that prompt's turn. A runner never talks to IRC.
 */
export abstract class AgentRunnerBase {
  /** Called for every message the agent produces. Set by the daemon before `start()`. */
  onMessage?: (message: AgentMessage) => Promise<void>;
  /** Called on every exit of the agent, clean (0) or crash (non-zero). */
  onExit?: (code: number) => Promise<void>;

  /** Starts the agent session; when `initialPrompt` is given it is the first turn. */
  abstract start(initialPrompt?: string): Promise<void>;
  /** Stops the agent: gracefully, then by force after a grace period. Idempotent. */
  abstract stop(): Promise<void>;
  /** Sends one user turn. Resolves when that turn has ended. */
  abstract sendPrompt(text: string): Promise<void>;
  /** Whether the agent is running and can accept prompts. */
  abstract isRunning(): boolean;
  /** The agent's session or thread id, or null when there is none. Used to resume after a restart. */
  abstract get sessionId(): string | null;
  /** Aborts the current turn, when the agent supports it. */
  interrupt?(): Promise<void>;
  /** Asks the agent to compact its context (`/compact`), when it supports it. */
  compact?(): Promise<void>;
  /** Asks the agent to clear its context (`/clear`), when it supports it. */
  clear?(): Promise<void>;
}
