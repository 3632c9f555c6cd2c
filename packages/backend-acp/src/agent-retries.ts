/**
 * Whether culture retries a turn whose model call failed for now (rate limited, overloaded, a
 * 5xx: core's agent-failure.ts), on top of what the ACP agent does itself. ACP has no retry
 * message: an agent that retries says nothing over ACP while it waits, and a `session/prompt`
 * that fails with a transient error means the agent has given up (or never retries).
 *
 * What the real agents do (docs/backends/acp.md, "Transient model errors"):
 * - OpenCode (1.18.33) retries every retryable API error without end (2 s doubling to 30 s, or
 *   the API's retry-after): its `session/prompt` never fails with a transient error.
 * - Gemini CLI (0.61.0) tries a request up to `general.maxAttempts` times (default 10, 5 s
 *   doubling to 30 s), then fails the prompt with the HTTP status as the JSON-RPC code.
 *
 * So `api_retries: auto` adds no retries for those two (a second layer would multiply the
 * agent's own), and 3 for any other agent. A number applies to every agent: with Gemini CLI's
 * `maxAttempts: 1` culture does the retrying, and the asker hears of a long delay.
 */
import { classifyAgentFailure, failureOf, type RetryPolicy, type TransientFailure } from "@culture/core";
import * as acp from "@agentclientprotocol/sdk";
import type { AcpOptions } from "./acp-options.js";

/** ACP `agentInfo.name`s of agents that retry transient model errors by themselves. */
const RETRIES_ITSELF = new Set(["opencode", "gemini-cli"]);

/** What `api_retries: auto` means for other agents. */
export const DEFAULT_API_RETRIES = 3;

/** culture's retry policy for the agent named `agentName` (ACP `agentInfo.name`). */
export function acpRetryPolicy(options: Pick<AcpOptions, "api_retries" | "api_retry_delay_seconds">, agentName: string | undefined): RetryPolicy {
  const retries = options.api_retries === "auto" ? (agentName && RETRIES_ITSELF.has(agentName.toLowerCase()) ? 0 : DEFAULT_API_RETRIES) : options.api_retries;
  return { retries, baseDelayMs: options.api_retry_delay_seconds * 1000, maxDelayMs: 60_000 };
}

/**
 * The transient failure of a failed `session/prompt`, or null: the error culture made of it
 * (prompt-errors.ts marks a transient one), else the agent's own RequestError.
 */
export function transientPromptFailure(err: unknown): TransientFailure | null {
  const marked = failureOf(err);
  if (marked) return marked.class === "transient" ? { reason: marked.reason, detail: err instanceof Error ? err.message : String(err) } : null;
  if (!(err instanceof acp.RequestError)) return null;
  const status = err.code >= 400 && err.code < 600 ? err.code : null;
  const failure = classifyAgentFailure({ status, text: `${err.message} ${JSON.stringify(err.data ?? "")}` });
  return failure.class === "transient" ? { reason: failure.reason, detail: `${status ?? ""} ${err.message}`.trim() } : null;
}
