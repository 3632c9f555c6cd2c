// The checks every culture backend must pass, shipped by culture itself (@culture/core/testing):
// start -> prompt -> messages -> stop, restart, idempotent stop, crash -> onExit, the skill file.
import { describeBackendConformance } from "@culture/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import backend, { AgentCliRunner } from "../src/index.js";

describeBackendConformance(backend, {
  describe,
  it,
  expect,
  afterEach,
  // An agent entry's fields. {} runs the stand-in agent (agent.mjs); use your agent's command
  // here once it speaks the protocol, or keep the stand-in and test your agent separately.
  validOptions: {},
  invalidOptions: [{ command: [] }, { command: "my-agent --json" }, { comand: ["my-agent"] }, { stop_grace_ms: -1 }],
  crash: (runner) => {
    const pid = (runner as AgentCliRunner).pid;
    if (pid !== null) process.kill(pid, "SIGKILL");
  },
});
