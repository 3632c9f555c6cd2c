/**
 * What `culture logs` shows of the conversation: each prompt the agent receives and the turn's
 * reply, written into the daemon's log through the daemon's hooks (`beforePrompt`, `turnEnd`),
 * so the log tells what the agent was asked and what it answered, not only its lifecycle.
 */
import type { AgentDaemon, Logger } from "@culture/core";

/** Longest prompt or reply text written to the log (the rest is cut with "…"). */
const MAX_TEXT = 2000;

/** Logs every prompt and every turn's reply of `daemon` at INFO. */
export function logTranscript(daemon: AgentDaemon, logger: Logger): void {
  daemon.hooks.beforePrompt.tap("TranscriptLog", (prompt, origin) => {
    if (prompt !== null) logger.info(`prompt (${origin.kind}${origin.channel ? ` in ${origin.channel}` : ""}${origin.sender ? ` from ${origin.sender}` : ""}): ${cut(prompt)}`);
    return prompt;
  });
  daemon.hooks.turnEnd.tap("TranscriptLog", (turn) => {
    const seconds = (turn.durationMs / 1000).toFixed(1);
    if (turn.error) logger.info(`turn failed after ${seconds}s: ${cut(turn.error)}`);
    else logger.info(`reply after ${seconds}s${turn.sentTo.size ? ` (sent to ${[...turn.sentTo].join(", ")})` : ""}: ${cut(turn.finalText) || "(no text)"}`);
  });
}

function cut(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, " ⏎ ").trim();
  return flat.length <= MAX_TEXT ? flat : `${flat.slice(0, MAX_TEXT - 1)}…`;
}
