import { describeBackendConformance } from "@culture/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import copilotBackend from "../src/index.js";
import { FAKE_RUNTIME } from "./fake-runtime-harness.js";

describeBackendConformance(copilotBackend, {
  describe,
  it,
  expect,
  afterEach,
  validOptions: { executable: FAKE_RUNTIME },
  invalidOptions: [
    { executable: "" },
    { executable: 3 },
    { executible: "copilot" },
    { env: { FOO: 1 } },
    { env: "FOO=1" },
  ],
  prompt: "Reply with the word pong.",
  crash: (runner) => runner.sendPrompt("crash now"),
});
