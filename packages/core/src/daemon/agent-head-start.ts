/**
 * Starting the agent beside the IRC connect. The agent's start-up (spawning its process, the
 * ACP handshake, the session, the system prompt) takes as long as culture's own or longer and
 * needs nothing from IRC, so the daemon begins it right before connecting and collects it
 * where it used to begin it: the daemon is ready about one agent start-up sooner. A sandboxed
 * agent is the exception (its box binds the IRC-tools socket, made later): it starts there.
 *
 * The daemon's promises hold because nothing else moves. No prompt reaches the runner before
 * the daemon says it is running (the turn loop feeds only then, run-state.ts), so mentions,
 * DMs and caught-up lines that arrive meanwhile queue, journalled, as before. Whether the
 * agent can run (the backend's preflight) is decided here but acted on at the old place, after
 * the alerts exist; a runner start that fails is reported there too, after the IRC connect,
 * and an IRC failure still wins (its error is the one reported; the runner is stopped by the
 * daemon's stop, which a runner handles at any point of its start).
 */
import type { CultureError } from "../errors.js";

/** An agent start under way; see {@link startAgentEarly}. */
export interface AgentHeadStart {
  /**
   * The start's outcome: the preflight's verdict when the agent cannot run (no runner was
   * started), null when the runner started. Rejects with the runner's start error.
   */
  outcome(): Promise<CultureError | null>;
  /** Resolves once the start has ended either way (never rejects): for a start that failed elsewhere. */
  settled(): Promise<void>;
}

/**
 * Begins the agent's start now: `preflight`, then `start` (the keeper's) unless the preflight
 * says the agent cannot run. A rejection is held for {@link AgentHeadStart.outcome}, so a
 * start that fails while IRC is still connecting is not an unhandled rejection.
 */
export function startAgentEarly(preflight: () => Promise<CultureError | null>, start: () => Promise<void>): AgentHeadStart {
  const outcome = (async () => {
    const cannot = await preflight();
    if (cannot) return cannot;
    await start();
    return null;
  })();
  const settled = outcome.then(
    () => undefined,
    () => undefined,
  );
  return { outcome: () => outcome, settled: () => settled };
}
