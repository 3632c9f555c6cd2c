import { describeBackendConformance } from "@culture/core/testing";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import codexBackend from "../src/index.js";
import { writeFakeCodexBin } from "./helpers/fake-codex-harness.js";

// The fake codex CLI, behind a `codex` wrapper in a folder of its own.
const CODEX = writeFakeCodexBin(mkdtempSync(join(tmpdir(), "culture-codex-bin-")));

describeBackendConformance(codexBackend, {
  describe,
  it,
  expect,
  afterEach,
  validOptions: { executable: CODEX },
  invalidOptions: [
    { executable: "" },
    { executable: ["codex"] },
    { sandbox: "yolo" },
    { sandbx: "read-only" },
    { env: { FOO: 1 } },
    { acp_command: ["codex"] },
  ],
  prompt: "Reply with the word pong.",
  crash: (runner) => runner.sendPrompt("crash now"),
});
