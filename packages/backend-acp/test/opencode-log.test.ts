import { describe, expect, it } from "vitest";
import { openCodeRetry, openCodeStreamError } from "../src/opencode-log.js";

// Lines OpenCode 1.18.33 wrote with --print-logs --log-level ERROR against the scripted API.
const line = (error: string, session = "ses_de1eaaf6bffebM7Dk4294F4Y9S") =>
  `timestamp=2026-11-27T17:37:26.472Z level=ERROR run=1ec8dba0 message="stream error" providerID=local modelID=scripted-model session.id=${session} small=false agent=build mode=primary error.error="${error}"`;

describe("OpenCode's retries read from its log (opencode-log.ts)", () => {
  it("reads a failed model call: its session and the API's words", () => {
    expect(openCodeStreamError(line("AI_APICallError: Rate limit reached for requests"))).toEqual({ sessionId: "ses_de1eaaf6bffebM7Dk4294F4Y9S", text: "Rate limit reached for requests" });
    expect(openCodeStreamError(line('AI_APICallError: say \\"hi\\"'))?.text).toBe('say "hi"');
  });

  it.each([
    ["AI_APICallError: Rate limit reached for requests", "rate_limited"],
    ["AI_APICallError: Service Unavailable", "overloaded"],
    ["AI_APICallError: Internal Server Error", "server_error"],
    ["AI_APICallError: Cannot connect to API: ECONNREFUSED", "connection"],
  ])("%s is a retry (%s)", (error, reason) => {
    expect(openCodeRetry(line(error), "ses_de1eaaf6bffebM7Dk4294F4Y9S")).toMatchObject({ reason });
  });

  it("is no retry: a refused key, a full context, an unknown error, another session's call, any other line", () => {
    const session = "ses_de1eaaf6bffebM7Dk4294F4Y9S";
    expect(openCodeRetry(line("AI_APICallError: Incorrect API key provided"), session)).toBeNull();
    expect(openCodeRetry(line("AI_APICallError: This model's maximum context length is 8192 tokens"), session)).toBeNull();
    expect(openCodeRetry(line("AI_APICallError: tools.0: unexpected field"), session)).toBeNull();
    expect(openCodeRetry(line("AI_APICallError: Service Unavailable", "ses_other"), session)).toBeNull();
    expect(openCodeRetry(line("AI_APICallError: Service Unavailable").replace("level=ERROR", "level=WARN"), session)).toBeNull();
    expect(openCodeRetry('timestamp=x level=ERROR message="failed to initialize fff" error="Service Unavailable"', session)).toBeNull();
    expect(openCodeRetry("Service Unavailable", session)).toBeNull();
  });
});
