import { describeBackendConformance } from "@culture/core/testing";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import acpBackend from "../src/index.js";

const FAKE_AGENT = fileURLToPath(new URL("./fixtures/fake-acp-agent.mjs", import.meta.url));

describeBackendConformance(acpBackend, {
  describe,
  it,
  expect,
  afterEach,
  validOptions: { acp_command: [process.execPath, FAKE_AGENT] },
  invalidOptions: [
    { acp_command: [] },
    { acp_command: "opencode acp" },
    { acp_command: [""] },
    { acp_comand: ["opencode", "acp"] },
    { permission: "sometimes" },
    { env: { FOO: 1 } },
  ],
  prompt: "Reply with the word pong.",
  crash: (runner) => runner.sendPrompt("crash now"),
});
