/**
 * What a failed `session/prompt` means beyond a refused key: the failures only a person fixes
 * (a full context, a used-up quota, a missing model) carry core's classification, so the
 * daemon pauses the agent; anything else stays a protocol error of that turn.
 */
import * as acp from "@agentclientprotocol/sdk";
import { failureOf, isCultureError } from "@culture/core";
import { describe, expect, it } from "vitest";
import { promptError } from "../src/prompt-errors.js";

const command = ["gemini", "--acp"];

describe("promptError: fatal vs the rest", () => {
  it.each([
    [400, '{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}', "prompt_too_long"],
    [-32603, "Internal error: prompt is too long: 210000 tokens > 200000 maximum", "prompt_too_long"],
    [429, '{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED"}}', "out_of_credit"],
    [404, '{"error":{"code":404,"message":"models/gemini-9 is not found for API version v1beta","status":"NOT_FOUND"}}', "model_not_found"],
  ])("code %s %j pauses the agent (%s)", (code, message, reason) => {
    const mapped = promptError(new acp.RequestError(code, message), command);
    expect(isCultureError(mapped, "E_AGENT_API_ERROR")).toBe(true);
    expect(failureOf(mapped)).toEqual({ class: "fatal", reason });
    expect((mapped as Error).message).toMatch(/culture resume <nick>|restart the agent/);
  });

  it.each([
    [429, '{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}', { class: "transient", reason: "rate_limited" }],
    [503, "The model is overloaded. Please try again later.", { class: "transient", reason: "overloaded" }],
    [-32603, "Internal error: tools.0: unexpected field", null],
  ])("code %s %j only fails the turn (a transient one says so: the runner may retry it)", (code, message, failure) => {
    const mapped = promptError(new acp.RequestError(code, message), command);
    expect(isCultureError(mapped, "E_AGENT_PROTOCOL")).toBe(true);
    expect(failureOf(mapped)).toEqual(failure);
  });
});
