import { isCultureError } from "@culture/core";
import { describe, expect, it } from "vitest";
import { classifyTurnFailure, startupFailure } from "../src/claude-errors.js";
import type { TurnResult } from "../src/sdk-message-normalizer.js";

const CMD = ["claude"];
const result = (text: string, status: number | null = null, subtype = "success"): TurnResult => ({ subtype, isError: true, text, errors: [], apiErrorStatus: status, sessionId: null, modelUsage: null });

describe("classifyTurnFailure", () => {
  it.each([
    ["authentication_failed", "Invalid API key · Please run /login", 401, "E_AGENT_AUTH"],
    [null, "Not logged in · Please run /login", null, "E_AGENT_AUTH"],
    ["oauth_org_not_allowed", "Your organization does not allow OAuth", 403, "E_AGENT_AUTH"],
    ["invalid_request", "Prompt is too long", 400, "E_AGENT_API_ERROR"],
    ["rate_limit", "Claude AI usage limit reached|1767225600", 429, "E_AGENT_API_ERROR"],
    ["billing_error", "Credit balance is too low", 400, "E_AGENT_API_ERROR"],
    ["model_not_found", "model: claude-nope", 404, "E_AGENT_API_ERROR"],
    ["invalid_request", "something odd", 400, "E_AGENT_API_ERROR"],
  ])("%s / %j is fatal: %s", (error, text, status, code) => {
    const failure = classifyTurnFailure(result(text, status), error ? { error, text } : null, CMD);
    expect(failure.kind).toBe("fatal");
    expect(failure.kind === "fatal" && isCultureError(failure.error, code as "E_AGENT_AUTH")).toBe(true);
  });

  it.each([
    ["overloaded", 'API Error: 529 {"type":"error","error":{"type":"overloaded_error"}}', 529],
    ["rate_limit", "API Error: 429 rate_limit_error", 429],
    ["server_error", "API Error: 500 Internal server error", 500],
    ["unknown", "API Error: Connection error.", null],
    [null, "API Error: Request timed out.", null],
  ])("%s / %j is transient", (error, text, status) => {
    expect(classifyTurnFailure(result(text, status), error ? { error, text } : null, CMD)).toMatchObject({ kind: "transient", detail: text });
  });

  it("uses the result's errors when there is no text", () => {
    const failure = classifyTurnFailure({ ...result(""), subtype: "error_during_execution", errors: ["tool exploded"] }, null, CMD);
    expect(failure.kind === "fatal" && failure.error.message).toContain("tool exploded");
  });
});

describe("startupFailure", () => {
  it("names the fixes for Claude Code's refusal of bypass mode as root", () => {
    const error = startupFailure(CMD, 1, ["--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons"]);
    expect(isCultureError(error, "E_AGENT_START_REFUSED")).toBe(true);
    expect(error.message).toContain("IS_SANDBOX");
  });

  it("is E_AGENT_EXITED otherwise", () => {
    expect(isCultureError(startupFailure(CMD, 9, ["segfault"]), "E_AGENT_EXITED")).toBe(true);
  });
});
