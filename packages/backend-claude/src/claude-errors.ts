/**
 * What went wrong in a Claude Code turn or startup, and whether trying again can help.
 *
 * Claude Code reports a failed API call inside the stream, not as a process failure: an
 * assistant message with an `error` field (`authentication_failed`, `rate_limit`,
 * `overloaded`, ...) and synthetic text ("Invalid API key · Please run /login", "API Error:
 * 529 ..."), then a `result` with `is_error: true` and, when there was an HTTP answer,
 * `api_error_status`. The CLI has already retried transient failures itself by then
 * (`system/api_retry`), so the runner adds a few slower retries on top and gives up with a
 * clear error; everything a retry cannot fix fails the turn at once with the fix in the
 * message. Refusals at startup only show up on stderr before the process exits.
 */
import {
  agentApiError,
  agentAuthRequired,
  agentExited,
  agentStartRefused,
  classifyAgentFailure,
  CONTEXT_FULL_FIX,
  type AgentFailureFacts,
  type AgentFailureReason,
  type CultureError,
} from "@culture/core";
import type { TurnResult } from "./sdk-message-normalizer.js";

/** How to sign Claude Code in: the fix named by E_AGENT_AUTH. */
export const CLAUDE_LOGIN_METHODS = [
  "run `claude login` (or start `claude` and type /login) as the user that runs culture",
  "or set ANTHROPIC_API_KEY in the daemon's environment or the agent's env: in agents.yaml",
  "or set CLAUDE_CODE_OAUTH_TOKEN (made by `claude setup-token`)",
] as const;

/** The outcome of a failed turn. */
export type TurnFailure =
  /** Worth retrying after a delay (overloaded, rate limited, network trouble, server error). */
  | { kind: "transient"; detail: string; reason: AgentFailureReason }
  /** Retrying will not help: fail the turn with this error. */
  | { kind: "fatal"; error: CultureError };

/** An assistant message that stood for a failed API call. */
export interface ApiErrorMessage {
  error: string;
  text: string;
}

const AUTH_ERRORS = new Set(["authentication_failed", "oauth_org_not_allowed", "cloud_credential_error"]);

/** Claude Code's words for a failure, in core's terms (agent-failure.ts). */
export function claudeFailureFacts(result: TurnResult, apiError: ApiErrorMessage | null): AgentFailureFacts {
  const text = (apiError?.text || result.text || result.errors.join("; ") || `the turn ended with ${result.subtype}`).trim();
  // Claude Code's own `error` values (SDKAssistantMessageError): `unknown` and `invalid_request` say nothing core can use.
  const kind = apiError?.error && apiError.error !== "unknown" && apiError.error !== "invalid_request" ? apiError.error : null;
  return { status: result.apiErrorStatus, kind, text };
}

/**
 * Sorts a turn that ended with `is_error` (or an error subtype) with core's classifier; the
 * errors name Claude Code's fixes. `apiError` is the turn's last assistant message with an
 * `error` field, when there was one. Fatal failures carry `details.failure`: the daemon
 * pauses the agent on them.
 */
export function classifyTurnFailure(result: TurnResult, apiError: ApiErrorMessage | null, command: readonly string[]): TurnFailure {
  const facts = claudeFailureFacts(result, apiError);
  const text = facts.text ?? "";
  const failure = classifyAgentFailure(facts);
  const details = { error: apiError?.error ?? null, status: result.apiErrorStatus, subtype: result.subtype, failure };
  const fatal = (detail: string, fix: string): TurnFailure => ({ kind: "fatal", error: agentApiError(command, detail, fix, details) });
  switch (failure.reason) {
    case "auth":
      return { kind: "fatal", error: agentAuthRequired(command, CLAUDE_LOGIN_METHODS, new Error(text)) };
    case "prompt_too_long":
      return fatal(`its context is full (${text}).`, CONTEXT_FULL_FIX);
    case "out_of_credit":
      return /usage limit|hit your limit/i.test(text)
        ? fatal(`the account's usage limit is reached (${text}).`, "Wait until the limit resets (the message says when), or use an API key with ANTHROPIC_API_KEY; then resume the agent: culture resume <nick>.")
        : fatal(`a billing problem (${text}).`, "Check the account's plan or credits (console.anthropic.com), then resume the agent: culture resume <nick>.");
    case "model_not_found":
      return fatal(`the model is not available (${text}).`, "Check `model:` of the agent in agents.yaml (e.g. claude-sonnet-4-6), or remove it to use Claude Code's default; then restart the agent.");
    default:
      if (failure.class === "transient") return { kind: "transient", detail: text, reason: failure.reason };
      // Neither: the turn fails, the agent takes the next request (no pause).
      return { kind: "fatal", error: agentApiError(command, text, "The agent's log has the details: culture logs <nick>. Send the task again once the cause is fixed.", details) };
  }
}

/**
 * Whether an API retry Claude Code announced (`system/api_retry`) is an authentication failure.
 * Claude Code 2.1 retries even a 401 (ten times, with backoff, minutes in all): a retry cannot
 * fix a bad key, so the runner ends the turn at once instead.
 */
export function isAuthRetry(error: string | null, status: number | null): boolean {
  return status === 401 || (error !== null && AUTH_ERRORS.has(error));
}

/** The error of a turn whose transient failures outlasted the retries. */
export function retriesExhausted(command: readonly string[], detail: string, retries: number): CultureError {
  return agentApiError(
    command,
    `a temporary API error did not go away after ${retries} ${retries === 1 ? "retry" : "retries"} (${detail}).`,
    "The API may be overloaded or rate limited: send the task again later, or raise api_retries / api_retry_delay_seconds in agents.yaml.",
    { retries },
  );
}

/** Claude Code exited before it answered `initialize`: why, from its stderr. */
export function startupFailure(command: readonly string[], code: number, stderr: readonly string[]): CultureError {
  const text = stderr.join("\n");
  if (/cannot be used with root\/sudo privileges/i.test(text)) {
    return agentStartRefused(
      command,
      "Claude Code does not run with permission_mode bypassPermissions (--dangerously-skip-permissions) as root.",
      "Run culture as a normal user; or, inside a disposable container, add IS_SANDBOX: \"1\" to the agent's env: in agents.yaml; " +
        "or give the agent permissions with mode ask (Claude Code then asks an operator on IRC for its tools), " +
        "or set permission_mode to acceptEdits (tools that need approval are then refused).",
    );
  }
  return agentExited(command, code, "startup");
}

/** Whether Claude Code's stderr says the session to resume does not exist. */
export function isMissingSession(stderr: readonly string[]): boolean {
  return stderr.some((line) => /No conversation found with session ID/i.test(line));
}
