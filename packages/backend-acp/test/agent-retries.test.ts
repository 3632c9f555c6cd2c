import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { acpOptionsSchema } from "../src/acp-options.js";
import { acpRetryPolicy, transientPromptFailure } from "../src/agent-retries.js";

describe("culture's retries of an ACP turn (agent-retries.ts)", () => {
  const defaults = acpOptionsSchema.parse({});

  it.each([
    ["OpenCode", 0],
    ["opencode", 0],
    ["gemini-cli", 0],
    ["Gemini-CLI", 0],
    ["cline", 3],
    ["gemini-cli-fork", 3],
    [undefined, 3],
  ] as const)("api_retries: auto gives %s %i retries (agents that retry by themselves get none on top)", (name, retries) => {
    expect(defaults.api_retries).toBe("auto");
    expect(acpRetryPolicy(defaults, name)).toEqual({ retries, baseDelayMs: 5_000, maxDelayMs: 60_000 });
  });

  it("a number applies to every agent, the ones that retry by themselves too", () => {
    const options = acpOptionsSchema.parse({ api_retries: 2, api_retry_delay_seconds: 0.5 });
    expect(acpRetryPolicy(options, "gemini-cli")).toEqual({ retries: 2, baseDelayMs: 500, maxDelayMs: 60_000 });
    expect(acpRetryPolicy(acpOptionsSchema.parse({ api_retries: 0 }), "cline").retries).toBe(0);
  });

  it.each([[-1], [21], [1.5], ["3"], ["never"]])("refuses api_retries: %j", (value) => {
    expect(acpOptionsSchema.safeParse({ api_retries: value }).success).toBe(false);
  });

  it("reads a transient failure from the agent's error (Gemini CLI's HTTP status as the code), and nothing else", () => {
    expect(transientPromptFailure(new acp.RequestError(429, "Resource has been exhausted"))).toEqual({ reason: "rate_limited", detail: "429 Resource has been exhausted" });
    expect(transientPromptFailure(new acp.RequestError(503, "scripted 503"))).toMatchObject({ reason: "overloaded" });
    expect(transientPromptFailure(new acp.RequestError(-32603, "Internal error: Rate limit reached for requests"))).toMatchObject({ reason: "rate_limited" });
    // Fatal or unknown: never retried.
    expect(transientPromptFailure(new acp.RequestError(401, "API key not valid"))).toBeNull();
    expect(transientPromptFailure(new acp.RequestError(429, "You exceeded your current quota"))).toBeNull();
    expect(transientPromptFailure(new acp.RequestError(-32603, "Internal error: tools.0: unexpected field"))).toBeNull();
    expect(transientPromptFailure(new Error("503 but not the agent's answer"))).toBeNull();
  });
});
