/**
 * How the Copilot runtime's failures become culture's errors. Not being signed in is the one
 * a human must fix, so it becomes E_AGENT_AUTH (the daemon raises one alert and stops
 * restarting) with every way to sign in; a runtime that dies becomes E_AGENT_EXITED; an
 * error answer becomes E_AGENT_PROTOCOL.
 */
import { agentApiError, agentAuthRequired, agentExited, agentProtocolError, classifyAgentFailure, errorMessage, failureLine, fatalFailureFix, withFailure, type CultureError, type TransientFailure } from "@culture/core";
import type { ErrorData } from "@github/copilot-sdk";
import { providerAuthRefused } from "./byok-provider.js";
import type { CopilotProvider } from "./copilot-options.js";

/** How to sign the Copilot runtime in, as listed in E_AGENT_AUTH messages. */
export const COPILOT_LOGIN_METHODS: readonly string[] = [
  "run `copilot` once in a terminal, as the user the daemon runs as, and type /login",
  "or set COPILOT_GITHUB_TOKEN (or GH_TOKEN / GITHUB_TOKEN) to a fine-grained token with the \"Copilot Requests\" permission, in the daemon's environment or the agent's env: in agents.yaml",
  "or sign in to the GitHub CLI: gh auth login",
];

/** E_AGENT_AUTH for the runtime at `command`; `detail` (the runtime's words) becomes the cause. */
export function copilotAuthRequired(command: readonly string[], detail: string, cause?: unknown): CultureError {
  return agentAuthRequired(command, COPILOT_LOGIN_METHODS, cause ?? new Error(detail));
}

/** Whether a `session.error` means "not signed in" (or signed in without Copilot access). */
export function isAuthError(data: Pick<ErrorData, "errorType" | "statusCode">): boolean {
  return data.errorType === "authentication" || data.errorType === "authorization" || data.statusCode === 401;
}

/** Whether an error answer reads like "not signed in". */
export function looksLikeAuthFailure(err: unknown): boolean {
  return /\b(not (authenticated|logged in|signed in)|unauthenticated|unauthorized|authentication required|401)\b/i.test(errorMessage(err));
}

/**
 * E_AGENT_AUTH for an agent that cannot authenticate: with a BYOK `provider`, the provider
 * refused its key (fix agents.yaml); without one, the runtime is not signed in to GitHub.
 */
export function authError(command: readonly string[], provider: CopilotProvider | null, detail: string, cause?: unknown): CultureError {
  return provider ? providerAuthRefused(command, provider, detail) : copilotAuthRequired(command, detail, cause);
}

/** The error a fatal `session.error` rejects its turn with (`provider`: the agent's BYOK provider, if any). */
export function sessionError(command: readonly string[], data: ErrorData, provider: CopilotProvider | null = null): CultureError {
  if (isAuthError(data)) return authError(command, provider, data.message);
  const status = data.statusCode === undefined ? "" : ` (HTTP ${data.statusCode})`;
  // Only a person fixes a full context, a used-up quota or a missing model: the daemon pauses the agent (core's agent-failure.ts).
  const failure = classifyAgentFailure({ status: data.statusCode ?? null, kind: data.errorType, text: data.message });
  if (failure.class === "fatal" && failure.reason !== "auth") {
    const fix = fatalFailureFix(failure.reason, "Wait for the quota to reset or raise it (github.com/settings/copilot), then resume the agent: culture resume <nick>.");
    return withFailure(agentApiError(command, `${data.errorType}: ${data.message}${status}`, fix), failure);
  }
  return agentProtocolError(command, "the turn", new Error(`${data.errorType}: ${data.message}${status}`));
}

/**
 * The error for a failed `client.start()`. The SDK reports a runtime that died during the
 * handshake as "CLI server exited with code N\nstderr: ..."; that becomes E_AGENT_EXITED
 * (the stderr is in the cause); anything else E_AGENT_PROTOCOL.
 */
export function startError(command: readonly string[], err: unknown): CultureError {
  const message = errorMessage(err);
  const exited = /exited (?:unexpectedly )?with code (-?\d+|null)/.exec(message);
  if (exited) {
    const code = exited[1] === "null" || exited[1] === undefined ? 1 : Number(exited[1]);
    const error = agentExited(command, code, "startup (connect)");
    (error as { cause?: unknown }).cause = err;
    return error;
  }
  if (looksLikeAuthFailure(err)) return copilotAuthRequired(command, message, err);
  return agentProtocolError(command, "connect", err);
}

/**
 * The retry a failed model call (`model.call_failure`) means, or null. The runtime retries a
 * transient failure itself (runtime 1.0.85: 5 retries, about 1 s doubling, 16 s of waits in
 * all, then `session.error` "retried 5 times"), so culture only announces it (core's
 * transient-retry.ts) and adds no retries of its own. Its `errorMessage` is the API's error
 * body; its `type`/`code` say more than the status alone (a 429 `insufficient_quota` is fatal).
 */
export function callFailureRetry(data: { statusCode?: number; errorMessage?: string }): TransientFailure | null {
  const body = errorBody(data.errorMessage ?? "");
  const text = body.message ?? data.errorMessage ?? "";
  const failure = classifyAgentFailure({ status: data.statusCode ?? null, kind: body.code ?? body.type ?? null, text: `${text} ${body.code ?? ""}` });
  if (failure.class !== "transient") return null;
  return { reason: failure.reason, detail: `${data.statusCode ?? ""} ${failureLine(text)}` };
}

function errorBody(text: string): { message?: string; type?: string; code?: string } {
  try {
    const body = JSON.parse(text) as { message?: unknown; type?: unknown; code?: unknown; error?: { message?: unknown; type?: unknown; code?: unknown } };
    const e = body && typeof body === "object" && body.error && typeof body.error === "object" ? body.error : body;
    const str = (v: unknown) => (typeof v === "string" ? v : undefined);
    return { message: str(e.message), type: str(e.type), code: str(e.code) };
  } catch {
    return {};
  }
}

