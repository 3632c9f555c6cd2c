/**
 * Reading Codex's failures: which ones mean "sign in first" (a restart cannot fix them: the
 * daemon alerts once and stops), and which ones are transient (retried with backoff).
 *
 * The app-server reports failures three ways: a JSON-RPC error answer to a request, an
 * `error` notification during a turn (`{ error: { message, codexErrorInfo }, willRetry }`),
 * and a `turn/completed` whose turn has `status: "failed"` and an `error`. `codexErrorInfo`
 * (openai/codex `v2/shared.rs`) is camelCase: a string for unit variants (`"unauthorized"`,
 * `"serverOverloaded"`) or a one-key object for the variants with an HTTP status
 * (`{ "httpConnectionFailed": { "httpStatusCode": 401 } }`).
 */
import { agentApiError, agentAuthRequired, classifyAgentFailure, fatalFailureFix, withFailure, type AgentFailure, type AgentFailureFacts, type CultureError } from "@culture/core";
import { AppServerRequestError } from "./app-server-client.js";
import { SERVER_OVERLOADED } from "./app-server-protocol.js";

/** How to sign in to Codex, for the E_AGENT_AUTH message. */
export const CODEX_LOGIN_METHODS = [
  "codex login   (sign in with ChatGPT in a browser; `codex login --device-auth` on a machine without one)",
  "printenv OPENAI_API_KEY | codex login --with-api-key   (use an OpenAI API key)",
] as const;

/** A failure as Codex described it. */
export interface CodexFailure {
  message: string;
  codexErrorInfo?: unknown;
  /** The JSON-RPC error code, for a request that was answered with an error. */
  code?: number;
}

const AUTH_TEXT = /\b401\b|unauthori[sz]ed|not logged in|log ?in required|please (?:log|sign) ?in|sign in|authenticat|api[ _-]?key|invalid_api_key|token (?:is )?(?:expired|invalid)|refresh token/i;

const TRANSIENT_INFO = new Set([
  "serverOverloaded",
  "internalServerError",
  "httpConnectionFailed",
  "responseStreamConnectionFailed",
  "responseStreamDisconnected",
  "responseTooManyFailedAttempts",
]);

/** The variant name of a `codexErrorInfo` (`"unauthorized"`, `"httpConnectionFailed"`, ...), or null. */
export function errorInfoKind(info: unknown): string | null {
  if (typeof info === "string") return info;
  if (info && typeof info === "object") {
    const [key] = Object.keys(info);
    return key ?? null;
  }
  return null;
}

/** The HTTP status inside a `codexErrorInfo` variant, when it has one. */
export function errorInfoStatus(info: unknown): number | null {
  if (!info || typeof info !== "object") return null;
  const inner = Object.values(info)[0] as { httpStatusCode?: unknown } | undefined;
  return typeof inner?.httpStatusCode === "number" ? inner.httpStatusCode : null;
}

/** True when the failure means Codex is not signed in, or its key or token was refused. */
export function isAuthFailure(failure: CodexFailure): boolean {
  const kind = errorInfoKind(failure.codexErrorInfo);
  if (kind === "unauthorized") return true;
  const status = errorInfoStatus(failure.codexErrorInfo);
  if (status === 401 || status === 403) return true;
  if (kind && kind !== "other") return false; // classified as something else by Codex itself
  return AUTH_TEXT.test(failure.message);
}

/** True when trying again later may work (overload, a dropped connection, a 5xx). */
export function isTransientFailure(failure: CodexFailure): boolean {
  if (failure.code === SERVER_OVERLOADED) return true;
  const kind = errorInfoKind(failure.codexErrorInfo);
  if (!kind || !TRANSIENT_INFO.has(kind)) return false;
  const status = errorInfoStatus(failure.codexErrorInfo);
  // A 4xx other than 408/429 is the request's fault: sending it again fails the same way.
  return status === null || status >= 500 || status === 408 || status === 429;
}

/** A failure read from what a request rejected with (an error answer), or null for other errors. */
export function failureOf(err: unknown): CodexFailure | null {
  if (err instanceof AppServerRequestError) {
    const data = err.data as { codexErrorInfo?: unknown } | undefined;
    return { message: err.message, code: err.code, codexErrorInfo: data?.codexErrorInfo };
  }
  return null;
}

/** E_AGENT_AUTH for Codex: names `codex login`. */
export function codexAuthRequired(command: readonly string[], cause: unknown): CultureError {
  return agentAuthRequired(command, CODEX_LOGIN_METHODS, cause);
}

/** A Codex failure in core's terms (agent-failure.ts): the HTTP status and variant inside `codexErrorInfo`, and the text. */
export function codexFailureFacts(failure: CodexFailure): AgentFailureFacts {
  const kind = errorInfoKind(failure.codexErrorInfo);
  return { status: errorInfoStatus(failure.codexErrorInfo), kind: kind === "other" || kind === "badRequest" ? null : kind, text: failure.message };
}

/** Core's classification of a Codex failure. */
export function classifyCodexFailure(failure: CodexFailure): AgentFailure {
  return classifyAgentFailure(codexFailureFacts(failure));
}

/**
 * The error of a turn that failed for a reason only a person fixes (the context window is
 * full, the usage limit is reached, the model does not exist): the daemon pauses the agent on
 * it. Null for other failures.
 */
export function codexFatalError(command: readonly string[], failure: CodexFailure): CultureError | null {
  const classified = classifyCodexFailure(failure);
  if (classified.class !== "fatal" || classified.reason === "auth") return null;
  const fix = fatalFailureFix(classified.reason, "Wait for the usage limit to reset or add credit to the account, then resume the agent: culture resume <nick>.");
  return withFailure(agentApiError(command, failure.message, fix, { codexErrorInfo: failure.codexErrorInfo ?? null }), classified);
}
