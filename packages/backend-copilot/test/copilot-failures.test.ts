/**
 * A Copilot `session.error` in core's terms: a full context or a used-up quota pauses the agent
 * (core's classifier marks the error), a refused sign-in stays E_AGENT_AUTH, and anything else
 * fails its turn only.
 */
import { failureOf, isCultureError } from "@culture/core";
import { describe, expect, it } from "vitest";
import { sessionError } from "../src/copilot-errors.js";

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
