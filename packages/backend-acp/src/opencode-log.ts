/**
 * OpenCode's retries, read from its log. OpenCode (1.18.33) retries every retryable model error
 * without end and says nothing over ACP while it waits (its ACP side forwards only message
 * parts and permission requests, not the session's `retry` status). Started with
 * `--print-logs --log-level ERROR` it writes one line per failed model call to stderr:
 *
 * ```
 * timestamp=... level=ERROR run=1ec8dba0 message="stream error" providerID=local modelID=scripted-model session.id=ses_de1e... small=false agent=build mode=primary error.error="AI_APICallError: Rate limit reached for requests"
 * ```
 *
 * The runner announces such a failure as a retry when core's classifier calls it transient (a
 * refused key or a full context is not a delay), so the asker hears of a long wait.
 */
import { classifyAgentFailure, type TransientFailure } from "@culture/core";

/** A failed model call in an OpenCode log line: its session and the error's words; null for any other line. */
export function openCodeStreamError(line: string): { sessionId: string | null; text: string } | null {
  if (!/\blevel=ERROR\b/.test(line) || !/\bmessage="stream error"/.test(line)) return null;
  const error = /\berror\.error="((?:[^"\\]|\\.)*)"/.exec(line);
  if (!error) return null;
  const session = /\bsession\.id=(\S+)/.exec(line);
  return { sessionId: session ? session[1]! : null, text: error[1]!.replace(/\\(.)/g, "$1").replace(/^AI_\w+Error:\s*/, "") };
}

/** The retry an OpenCode log line means (see the module comment), or null. */
export function openCodeRetry(line: string, sessionId: string | null): TransientFailure | null {
  const failure = openCodeStreamError(line);
  if (!failure || (failure.sessionId && sessionId && failure.sessionId !== sessionId)) return null;
  const classified = classifyAgentFailure({ text: failure.text });
  return classified.class === "transient" ? { reason: classified.reason, detail: failure.text } : null;
}
