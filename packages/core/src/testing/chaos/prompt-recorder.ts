/**
 * Records every prompt a daemon hands its agent (the `beforePrompt` hook), so a chaos test can
 * assert that each message a person sent became exactly one prompt.
 */
import type { AgentDaemon } from "../../daemon/agent-daemon.js";
import type { PromptOrigin } from "../../events.js";

/** One prompt as the agent got it. */
export interface RecordedPrompt {
  prompt: string;
  origin: PromptOrigin;
}

/** What {@link recordPrompts} returns. */
export interface PromptRecording {
  readonly prompts: RecordedPrompt[];
  /** How many prompts contain `marker`. */
  count(marker: string): number;
  /** Resolves once every marker has been seen in at least one prompt. */
  waitFor(markers: readonly string[]): Promise<void>;
}

/** Taps `daemon.hooks.beforePrompt` (call it before the messages are sent). */
export function recordPrompts(daemon: AgentDaemon): PromptRecording {
  const prompts: RecordedPrompt[] = [];
  const waiters = new Set<() => void>();
  daemon.hooks.beforePrompt.tap("chaos-recorder", (prompt, origin) => {
    if (prompt !== null) prompts.push({ prompt, origin });
    for (const w of [...waiters]) w();
    return prompt;
  });
  const count = (marker: string): number => prompts.filter((p) => p.prompt.includes(marker)).length;
  return {
    prompts,
    count,
    waitFor(markers) {
      return new Promise((resolve) => {
        const check = (): void => {
          if (markers.every((m) => count(m) > 0)) {
            waiters.delete(check);
            resolve();
          }
        };
        waiters.add(check);
        check();
      });
    },
  };
}
