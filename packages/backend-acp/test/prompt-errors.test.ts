import * as acp from "@agentclientprotocol/sdk";
import { isCultureError } from "@culture/core";
import { describe, expect, it } from "vitest";
import { promptError } from "../src/prompt-errors.js";

const command = ["opencode", "acp"];

describe("promptError (what a failed session/prompt means)", () => {
  it("Gemini CLI 0.61.0: the HTTP status as the JSON-RPC code, the API's error body as the message", () => {
    const err = new acp.RequestError(401, '{"error":{"code":401,"message":"API key not valid.","status":"UNAUTHENTICATED"}}');
    const mapped = promptError(err, ["gemini", "--acp"]);
    expect(isCultureError(mapped, "E_AGENT_AUTH")).toBe(true);
    expect((mapped as Error).message).toContain("the model API refused its credentials (HTTP 401: API key not valid.)");
    expect((mapped as Error).message).toContain("culture resume <nick>");
  });

  it("OpenCode 1.18.33: -32603 with the provider's message and no status", () => {
    const err = new acp.RequestError(-32603, "Internal error: Incorrect API key provided: dummy.", { service: "session", errorName: "APIError" });
    expect(isCultureError(promptError(err, command), "E_AGENT_AUTH")).toBe(true);
  });

  it("any other error answer stays a protocol error of the turn", () => {
    // (A full context, a used-up quota or a missing model pause the agent: prompt-failures.test.ts.)
    const err = new acp.RequestError(-32603, "Internal error: tool schema rejected", { errorName: "APIError" });
    expect(isCultureError(promptError(err, command), "E_AGENT_PROTOCOL")).toBe(true);
    const plain = new Error("boom");
    expect(promptError(plain, command)).toBe(plain);
  });
});
