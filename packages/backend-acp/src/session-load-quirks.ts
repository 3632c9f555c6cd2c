/**
 * What a real ACP agent needs before `session/load` can find its own session.
 *
 * Gemini CLI (seen with 0.61.0) names a session's chat file after the minute it was created
 * (`~/.gemini/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl`), and `session/load`
 * first opens a new recording for the same session id, named after the current minute. In the
 * creation minute both names are the same file: the new recording appends a fresh header and
 * resets the messages, the history is gone and the load fails ("No previous sessions found for
 * this project."). In any later minute the new recording gets its own file and the load works.
 * So a restart within a session's first minute waits for the next minute before loading it.
 */

/** Agents (ACP `agentInfo.name`) whose session files are named after the creation minute. */
const MINUTE_NAMED_SESSION_FILES = new Set(["gemini-cli"]);

/** When each session was created by a runner of this process (epoch ms), by session id. */
const sessionCreatedAt = new Map<string, number>();

/** Notes when a session was created (the runner calls it after `session/new`). */
export function noteSessionCreated(sessionId: string, at = Date.now()): void {
  sessionCreatedAt.set(sessionId, at);
}

/**
 * How long to wait before `session/load` of `sessionId` on agent `agentName`: until the next
 * UTC minute when the agent names session files by minute and the session was created in the
 * current minute; 0 otherwise (and when the creation time is unknown).
 */
export function sessionLoadDelayMs(agentName: string | undefined, sessionId: string, now = Date.now()): number {
  if (!agentName || !MINUTE_NAMED_SESSION_FILES.has(agentName)) return 0;
  const created = sessionCreatedAt.get(sessionId);
  if (created === undefined) return 0;
  const minute = (t: number) => Math.floor(t / 60_000);
  if (minute(created) !== minute(now)) return 0;
  // A little past the boundary: the agent reads the clock after we do.
  return (minute(now) + 1) * 60_000 - now + 250;
}
