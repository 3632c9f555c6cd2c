/**
 * A Copilot `session.error` in core's terms: a full context or a used-up quota pauses the agent
 * (core's classifier marks the error), a refused sign-in stays E_AGENT_AUTH, and anything else
 * fails its turn only.
 */
import { failureOf, isCultureError } from "@culture/core";
import { describe, expect, it } from "vitest";
import { callFailureRetry, sessionError } from "../src/copilot-errors.js";

const command = ["copilot", "--headless"];

describe("sessionError: fatal vs the rest", () => {
  it.each([
    [{ errorType: "context_limit", message: "prompt token count of 130000 exceeds the limit of 128000", statusCode: 400 }, "prompt_too_long"],
    [{ errorType: "quota", message: "You have exceeded your premium request allowance", statusCode: 402 }, "out_of_credit"],
    [{ errorType: "query", message: "The requested model is not supported.", statusCode: 400 }, "model_not_found"],
  ])("%j pauses the agent (%s)", (data, reason) => {
    const error = sessionError(command, data);
    expect(isCultureError(error, "E_AGENT_API_ERROR")).toBe(true);
    expect(failureOf(error)).toEqual({ class: "fatal", reason });
  });

  it("keeps a refused sign-in as E_AGENT_AUTH, and a rate limit or an odd error as the turn's failure", () => {
    expect(isCultureError(sessionError(command, { errorType: "authentication", message: "Not authenticated", statusCode: 401 }), "E_AGENT_AUTH")).toBe(true);
    for (const data of [
      { errorType: "rate_limit", message: "Sorry, you have been rate-limited.", statusCode: 429 },
      { errorType: "query", message: "tool call failed", statusCode: 400 },
    ]) {
      const error = sessionError(command, data);
      expect(isCultureError(error, "E_AGENT_PROTOCOL")).toBe(true);
      expect(failureOf(error)).toBeNull();
    }
  });
});

describe("callFailureRetry: which failed model calls (model.call_failure) the runtime retries, for the asker", () => {
  // `errorMessage` as runtime 1.0.85 sends it: the API's error object, as JSON.
  const body = (message: string, type: string, code: string | null) => JSON.stringify({ message, type, param: null, code });

  it.each([
    [429, body("Rate limit reached for gpt-4.1", "rate_limit_error", "rate_limit_exceeded"), "rate_limited"],
    [503, body("scripted 503", "server_error", null), "overloaded"],
    [500, body("boom", "server_error", null), "server_error"],
    [undefined, "fetch failed: ECONNRESET", "connection"],
  ])("HTTP %s %s: %s, announced", (statusCode, errorMessage, reason) => {
    expect(callFailureRetry({ statusCode, errorMessage })).toMatchObject({ reason });
  });

  it.each([
    [401, body("Incorrect API key provided", "invalid_request_error", "invalid_api_key")],
    [429, body("You exceeded your current quota", "insufficient_quota", "insufficient_quota")],
    [400, body("prompt is too long", "invalid_request_error", "context_length_exceeded")],
    [400, body("tools.0: unexpected field", "invalid_request_error", null)],
  ])("HTTP %s %s: not a delay, never announced", (statusCode, errorMessage) => {
    expect(callFailureRetry({ statusCode, errorMessage })).toBeNull();
  });

  it("says the status and the API's message, on one line", () => {
    expect(callFailureRetry({ statusCode: 429, errorMessage: body("slow\n down", "rate_limit_error", "rate_limit_exceeded") })).toEqual({ reason: "rate_limited", detail: "429 slow down" });
  });
});
