/**
 * What a failed `session/prompt` means. ACP has no error code for "the model API refused the
 * key", and the real agents say it differently: Gemini CLI 0.61.0 answers with the HTTP status
 * as the JSON-RPC code (401) and the API's error body as the message; OpenCode 1.18.33 answers
 * -32603 "Internal error: <the provider's message>" with `data.errorName: "APIError"` and no
 * status. A refused key is fatal (one alert, the circuit open, no restart loop: the daemon
 * handles E_AGENT_AUTH so); anything else stays a protocol error of that turn.
 */
import * as acp from "@agentclientprotocol/sdk";
import { agentApiError, agentModelAuthFailed, agentProtocolError, classifyAgentFailure, failureLine, fatalFailureFix, withFailure, type CultureError } from "@culture/core";

const AUTH_STATUS = new Set([401, 403]);
const AUTH_TEXT =
  /\b40[13]\b|unauthori[sz]ed|unauthenticated|permission[_ ]denied|(?:invalid|incorrect|missing|wrong|expired) (?:x-)?api[ _-]?key|api key (?:is )?(?:not valid|invalid|expired)|authentication (?:failed|error|required)/i;

/** Maps a `session/prompt` failure to culture's error (E_AGENT_AUTH or E_AGENT_PROTOCOL); other errors are returned as they are. */
export function promptError(err: unknown, command: readonly string[]): unknown {
  if (!(err instanceof acp.RequestError)) return err;
  if (isModelAuthFailure(err)) return modelAuthError(err, command);
  // A full context, a used-up quota or a missing model: only a person fixes them, the daemon
  // pauses the agent (core's agent-failure.ts). Gemini CLI passes the HTTP status as the code.
  const status = err.code >= 400 && err.code < 600 ? err.code : null;
  const failure = classifyAgentFailure({ status, text: `${err.message} ${safeJson(err.data)}` });
  if (failure.class === "fatal" && failure.reason !== "auth") {
    const fix = fatalFailureFix(failure.reason, "Add credit or wait for the provider's quota to reset, then resume the agent: culture resume <nick>.");
    return withFailure(agentApiError(command, failureLine(apiMessage(err.message)), fix), failure);
  }
  const error = agentProtocolError(command, "session/prompt", err);
  // A transient one carries its class: the runner retries it (agent-retries.ts), the daemon sees why.
  return failure.class === "transient" ? withFailure(error, failure) : error;
}

/** True when a `session/prompt` error says the model API refused the agent's credentials. */
export function isModelAuthFailure(err: acp.RequestError): boolean {
  return AUTH_STATUS.has(err.code) || AUTH_TEXT.test(err.message) || AUTH_TEXT.test(safeJson(err.data));
}

function modelAuthError(err: acp.RequestError, command: readonly string[]): CultureError {
  const detail = `${AUTH_STATUS.has(err.code) ? `HTTP ${err.code}: ` : ""}${failureLine(apiMessage(err.message))}`;
  return agentModelAuthFailed(
    command,
    detail,
    "Fix the API key or provider settings the agent uses (OpenCode: the provider in opencode.json or `opencode auth login`; " +
      "Gemini CLI: GEMINI_API_KEY in the agent's env:), then resume it: culture resume <nick>, or `@<nick> resume` on IRC.",
    err,
  );
}

/** The `message` of a JSON API error body inside the text, else the text. */
function apiMessage(text: string): string {
  const start = text.indexOf("{");
  if (start >= 0) {
    try {
      const body = JSON.parse(text.slice(start)) as { error?: { message?: unknown } };
      if (typeof body.error?.message === "string") return body.error.message;
    } catch {
      // not JSON: the text itself
    }
  }
  return text;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}
