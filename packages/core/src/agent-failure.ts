/**
 * One classifier for what went wrong when an agent's model call failed, so every backend
 * treats the same failure the same way. A backend only reads its own error shape (an HTTP
 * status, the provider's or agent's error kind, the text) into {@link AgentFailureFacts};
 * this file says whether waiting can help:
 *
 * - **fatal**: nothing but a person fixes it (the key was refused, the prompt no longer fits
 *   the context window, the model does not exist, the account is out of credit). The daemon
 *   pauses the agent with the reason in status, #alerts and the webhook, and tells the asker,
 *   instead of restarting it in a loop (daemon/runner-keeper.ts).
 * - **transient**: trying again later may work (rate limited, overloaded, a 5xx, a dropped
 *   connection). The backend retries with backoff and says so (`RunnerContext.retrying`), and
 *   the asker hears of a long delay.
 * - **unknown**: neither; the turn fails and the agent takes the next request.
 */
import { CultureError, isCultureError } from "./errors.js";

/** Why a model call failed, in culture's words. */
export type AgentFailureReason =
  | "auth"
  | "prompt_too_long"
  | "model_not_found"
  | "out_of_credit"
  | "rate_limited"
  | "overloaded"
  | "server_error"
  | "connection"
  | "unknown";

/** What a backend read from its agent's failure. Every field is optional. */
export interface AgentFailureFacts {
  /** The model API's HTTP status, when the agent passed it on. */
  status?: number | null;
  /** The provider's or agent's error kind (`authentication_error`, `overloaded_error`, `rate_limit`, `serverOverloaded`, `contextWindowExceeded` ...). */
  kind?: string | null;
  /** The error text. */
  text?: string | null;
}

/** What the classifier decided. */
export interface AgentFailure {
  class: "fatal" | "transient" | "unknown";
  reason: AgentFailureReason;
}

/** The reasons that pause the agent. */
export const FATAL_REASONS: readonly AgentFailureReason[] = ["auth", "prompt_too_long", "model_not_found", "out_of_credit"];

// Kinds are compared without case, `_`, `-` or spaces: `rate_limit_error`, `rateLimit`, `RATE_LIMIT`.
const KINDS: Record<string, AgentFailureReason> = {
  authenticationerror: "auth",
  authenticationfailed: "auth",
  authentication: "auth",
  authorization: "auth",
  unauthorized: "auth",
  unauthenticated: "auth",
  permissionerror: "auth",
  oauthorgnotallowed: "auth",
  cloudcredentialerror: "auth",
  invalidapikey: "auth",
  accountonhold: "auth",
  verificationrequired: "auth",
  contextwindowexceeded: "prompt_too_long",
  contextlengthexceeded: "prompt_too_long",
  requesttoolarge: "prompt_too_long",
  prompttoolong: "prompt_too_long",
  contextlimit: "prompt_too_long",
  modelnotfound: "model_not_found",
  notfounderror: "model_not_found",
  billingerror: "out_of_credit",
  insufficientquota: "out_of_credit",
  usagelimitexceeded: "out_of_credit",
  quotaexceeded: "out_of_credit",
  quota: "out_of_credit",
  ratelimit: "rate_limited",
  ratelimiterror: "rate_limited",
  ratelimited: "rate_limited",
  ratelimitexceeded: "rate_limited",
  overloaded: "overloaded",
  overloadederror: "overloaded",
  serveroverloaded: "overloaded",
  servererror: "server_error",
  apierror: "server_error",
  internalservererror: "server_error",
  timeouterror: "server_error",
  httpconnectionfailed: "connection",
  responsestreamconnectionfailed: "connection",
  responsestreamdisconnected: "connection",
  connectionerror: "connection",
};

const AUTH_TEXT =
  /invalid (?:x-)?api[ _-]?key|incorrect api key|api key (?:is )?(?:not valid|invalid|expired|revoked)|not logged in|please run \/login|oauth token (?:has )?(?:expired|revoked)|token (?:has been )?revoked|authentication(?:_| )(?:error|failed|required)|unauthori[sz]ed|could not resolve authentication/i;
const CONTEXT_TEXT = /prompt is too long|context (?:window|length)(?: exceeded| limit|.*exceed)|input is too long|exceeds? the (?:maximum )?context|maximum context length|too many tokens|exceeds the maximum number of tokens|request too large/i;
const CREDIT_TEXT = /credit balance|insufficient[_ ]quota|out of credits?|exceeded your current quota|quota exceeded|billing|usage limit|hit your limit|payment required/i;
const MODEL_TEXT = /model\S*(?:[: ]\S+)? (?:was |is )?not found|model .{0,80}does not exist|model .{0,40}is not supported|unknown model|no such model|model_not_found|invalid model/i;
const OVERLOADED_TEXT = /overloaded|service unavailable|capacity/i;
const RATE_TEXT = /rate.?limit|too many requests/i;
const CONNECTION_TEXT = /ECONNRESET|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|EPIPE|socket hang up|fetch failed|network error|connection (?:error|reset|refused|closed)|stream disconnected/i;
const SERVER_TEXT = /internal server error|bad gateway|gateway timeout|API Error: 5\d\d|request timed out/i;

/** Sorts one failure (see the module comment). Never throws. */
export function classifyAgentFailure(facts: AgentFailureFacts): AgentFailure {
  const status = typeof facts.status === "number" && Number.isFinite(facts.status) ? facts.status : null;
  const kindReason = facts.kind ? (KINDS[facts.kind.toLowerCase().replace(/[\s_-]/g, "")] ?? null) : null;
  const text = facts.text ?? "";
  const fatal = (reason: AgentFailureReason): AgentFailure => ({ class: "fatal", reason });
  const transient = (reason: AgentFailureReason): AgentFailure => ({ class: "transient", reason });

  // What the words say first where a status is shared: a 429 "insufficient_quota" is out of
  // credit, a 400 "prompt is too long" is a full context, a 404 "model not found" a bad model.
  if (kindReason === "auth" || status === 401 || status === 403 || AUTH_TEXT.test(text)) return fatal("auth");
  if (kindReason === "prompt_too_long" || status === 413 || CONTEXT_TEXT.test(text)) return fatal("prompt_too_long");
  if (kindReason === "out_of_credit" || status === 402 || CREDIT_TEXT.test(text)) return fatal("out_of_credit");
  if (kindReason === "model_not_found" || MODEL_TEXT.test(text) || (status === 404 && /model/i.test(text))) return fatal("model_not_found");
  if (kindReason === "rate_limited" || status === 429 || RATE_TEXT.test(text)) return transient("rate_limited");
  if (kindReason === "overloaded" || status === 529 || status === 503 || OVERLOADED_TEXT.test(text)) return transient("overloaded");
  if (kindReason === "connection" || CONNECTION_TEXT.test(text)) return transient("connection");
  if (kindReason === "server_error" || status === 408 || (status !== null && status >= 500) || SERVER_TEXT.test(text)) return transient("server_error");
  return { class: "unknown", reason: "unknown" };
}

/** A short phrase for a reason, for status lines and receipts. */
export function failureReasonText(reason: AgentFailureReason): string {
  switch (reason) {
    case "auth":
      return "the model API refused the agent's credentials";
    case "prompt_too_long":
      return "the prompt no longer fits the model's context window";
    case "model_not_found":
      return "the model does not exist or is not available";
    case "out_of_credit":
      return "the account is out of credit or over its usage limit";
    case "rate_limited":
      return "the model API is rate limiting";
    case "overloaded":
      return "the model API is overloaded";
    case "server_error":
      return "the model API had a server error";
    case "connection":
      return "the connection to the model API failed";
    default:
      return "an unknown error";
  }
}

/** An agent's or model API's error words on one line, cut to 200 characters (for an error or a notice). */
export function failureLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}

/** What a person does about a fatal failure's context being full (every backend says the same). */
export const CONTEXT_FULL_FIX = "Compact or clear the agent's context (CULTURE_NICK=<nick> culture channel compact, or clear), then resume it: culture resume <nick>.";

/**
 * What a person does about a fatal failure other than auth, in the words every backend uses;
 * `creditFix`: the backend's own words for a used-up credit or quota (where to raise it).
 */
export function fatalFailureFix(reason: AgentFailureReason, creditFix: string): string {
  if (reason === "prompt_too_long") return CONTEXT_FULL_FIX;
  if (reason === "out_of_credit") return creditFix;
  return "Check `model:` of the agent in agents.yaml, then restart the agent.";
}

/**
 * The classified failure an error carries (`details.failure`, set by {@link withFailure}), or
 * for E_AGENT_AUTH `auth`; null for other errors.
 */
export function failureOf(err: unknown): AgentFailure | null {
  if (!isCultureError(err)) return null;
  const f = err.details?.failure as Partial<AgentFailure> | undefined;
  if (f && (f.class === "fatal" || f.class === "transient" || f.class === "unknown") && typeof f.reason === "string") return { class: f.class, reason: f.reason };
  if (err.code === "E_AGENT_AUTH") return { class: "fatal", reason: "auth" };
  return null;
}

/** Marks an error with its classified failure (returns the same error). */
export function withFailure<E extends CultureError>(err: E, failure: AgentFailure): E {
  (err as { details: Record<string, unknown> }).details = { ...(err.details ?? {}), failure: { class: failure.class, reason: failure.reason } };
  return err;
}
