/**
 * Relay: for a turn triggered by a mention or DM, post the turn's final text back to where the
 * prompt came from. `auto` does so unless the agent itself already sent something to that
 * target during the turn; `always` always does; `never` never does. Replies are correlated to
 * the prompt that caused them (the turn carries its origin), not to a FIFO.
 *
 * Written as a plugin on the daemon's `turnEnd` hook: the core proves the hooks are enough.
 */
import type { TurnResult } from "../events.js";
import type { DaemonHooks } from "../hooks.js";

/** The relay policies of the `relay:` agent field. */
export type RelayPolicy = "auto" | "always" | "never";

const PLUGIN_NAME = "RelayPlugin";

/** Taps `hooks.turnEnd` to relay final answers. */
export function applyRelayPlugin(
  hooks: DaemonHooks,
  policy: RelayPolicy,
  send: (target: string, text: string) => void | Promise<void>,
): void {
  if (policy === "never") return;
  hooks.turnEnd.tapPromise(PLUGIN_NAME, async (turn: TurnResult) => {
    const target = turn.origin.replyTo;
    if (!target || turn.error) return;
    const text = turn.finalText.trim();
    if (!text) return;
    if (policy === "auto" && turn.sentTo.has(target.toLowerCase())) return;
    await send(target, text);
  });
}
