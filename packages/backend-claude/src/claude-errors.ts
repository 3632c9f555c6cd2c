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
import { agentApiError, agentAuthRequired, agentExited, agentStartRefused, type CultureError } from "@culture/core";
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
  | { kind: "transient"; detail: string }
  /** Retrying will not help: fail the turn with this error. */
  | { kind: "fatal"; error: CultureError };

/** An assistant message that stood for a failed API call. */
export interface ApiErrorMessage {
  error: string;
  text: string;
}

const AUTH_ERRORS = new Set(["authentication_failed", "oauth_org_not_allowed", "cloud_credential_error"]);
const TRANSIENT_ERRORS = new Set(["rate_limit", "overloaded", "server_error"]);
const TRANSIENT_STATUS = new Set([408, 429, 500, 502, 503, 504, 529]);
const AUTH_TEXT = /invalid api key|not logged in|please run \/login|run \/login|oauth token (?:has )?(?:expired|revoked)|invalid x-api-key|authentication_error|could not resolve authentication/i;
const USAGE_LIMIT_TEXT = /usage limit|hit your limit|limit reached\|/i;
const TRANSIENT_TEXT =
  /overloaded|rate.?limit|too many requests|connection error|ECONNRESET|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|socket hang up|fetch failed|network error|request timed out|timed? ?out|internal server error|service unavailable|bad gateway|API Error: 5\d\d/i;
const CONTEXT_TEXT = /prompt is too long|context (?:window|length)|input is too long|exceeds? the (?:maximum )?context/i;

/**
 * Sorts a turn that ended with `is_error` (or an error subtype). `apiError` is the turn's last
 * assistant message with an `error` field, when there was one.
 */
export function classifyTurnFailure(result: TurnResult, apiError: ApiErrorMessage | null, command: readonly string[]): TurnFailure {
  const text = (apiError?.text || result.text || result.errors.join("; ") || `the turn ended with ${result.subtype}`).trim();
  const kind = apiError?.error ?? null;
  const status = result.apiErrorStatus;
  const details = { error: kind, status, subtype: result.subtype };

  if ((kind && AUTH_ERRORS.has(kind)) || status === 401 || AUTH_TEXT.test(text)) {
    return { kind: "fatal", error: agentAuthRequired(command, CLAUDE_LOGIN_METHODS, new Error(text)) };
  }
  if (CONTEXT_TEXT.test(text)) {
    return {
      kind: "fatal",
      error: agentApiError(
        command,
        `its context is full (${text}).`,
        "Compact or clear the agent's context, then ask again: CULTURE_NICK=<nick> culture channel compact (or clear).",
        details,
      ),
    };
  }
  if (USAGE_LIMIT_TEXT.test(text)) {
    return {
      kind: "fatal",
      error: agentApiError(command, `the account's usage limit is reached (${text}).`, "Wait until the limit resets (the message says when), or use an API key with ANTHROPIC_API_KEY.", details),
    };
  }
  if ((kind && TRANSIENT_ERRORS.has(kind)) || (status !== null && TRANSIENT_STATUS.has(status)) || TRANSIENT_TEXT.test(text)) {
    return { kind: "transient", detail: text };
  }
  if (kind === "billing_error" || /credit balance|billing/i.test(text)) {
    return { kind: "fatal", error: agentApiError(command, `a billing problem (${text}).`, "Check the account's plan or credits (console.anthropic.com), then ask again.", details) };
  }
  if (kind === "model_not_found" || status === 404) {
    return { kind: "fatal", error: agentApiError(command, `the model is not available (${text}).`, "Check `model:` of the agent in agents.yaml (e.g. claude-sonnet-4-6), or remove it to use Claude Code's default.", details) };
  }
  return {
    kind: "fatal",
    error: agentApiError(command, text, "The agent's log has the details: culture logs <nick>. Send the task again once the cause is fixed.", details),
  };
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
