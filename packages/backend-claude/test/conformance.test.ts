import { describeBackendConformance } from "@culture/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import claudeBackend from "../src/index.js";
import { FAKE_CLAUDE } from "./fake-claude-harness.js";

describeBackendConformance(claudeBackend, {
  describe,
  it,
  expect,
  afterEach,
  validOptions: { executable: FAKE_CLAUDE, resume_on_restart: true, allowed_tools: ["Bash(git:*)"], env: { FAKE_CLAUDE_EXTRA: "1" } },
  invalidOptions: [
    { executable: "" },
    { executable: ["claude"] },
    { permission_mode: "yolo" },
    { permision_mode: "default" },
    { resume_on_restart: "yes" },
    { allowed_tools: "Bash" },
    { disallowed_tools: [""] },
    { env: { FOO: 1 } },
    { api_retries: -1 },
    { api_retry_delay_seconds: 0 },
  ],
  prompt: "Reply with the word pong.",
  crash: (runner) => runner.sendPrompt("crash now"),
});
