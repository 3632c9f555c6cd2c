/** Small helpers for tests that drive a runner directly (backend test suites). */
import type { AgentMessage } from "../agent-message.js";
import type { AgentRunnerBase } from "../agent-runner.js";

/** What a runner reported through its callbacks. */
export interface RunnerRecording {
  messages: AgentMessage[];
  exits: number[];
  /** Every text block so far, in order. */
  texts(): string[];
}

/** Sets the runner's onMessage/onExit to record what it reports. */
export function recordRunner(runner: AgentRunnerBase): RunnerRecording {
  const messages: AgentMessage[] = [];
  const exits: number[] = [];
  runner.onMessage = async (m) => {
    messages.push(m);
  };
  runner.onExit = async (code) => {
    exits.push(code);
  };
  return {
    messages,
    exits,
    texts: () => messages.flatMap((m) => m.content.flatMap((b) => (b.type === "text" ? [b.text] : []))),
  };
}

/** Polls `check` every 20 ms until it returns a truthy value; no deadline of its own (the test runner's timeout applies). */
export async function pollUntil<T>(check: () => T | undefined | null | false): Promise<T> {
  for (;;) {
    const value = check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
