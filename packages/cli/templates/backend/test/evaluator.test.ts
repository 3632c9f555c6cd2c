// The supervisor's evaluator runs the agent CLI once: the prompt in, the verdict out.
import { silentLogger, supervisorSchema } from "@culture/core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import backend from "../src/index.js";

let directory: string | undefined;
afterEach(() => {
  if (directory) rmSync(directory, { recursive: true, force: true });
});

it("createEvaluator runs the agent command once and returns its verdict", async () => {
  directory = mkdtempSync(join(tmpdir(), "culture-backend-test-"));
  const evaluator = backend.createEvaluator!({
    nick: "test-agent",
    supervisor: supervisorSchema.parse({ agent: backend.name }),
    model: null,
    directory,
    options: backend.configSchema.parse({}),
    env: process.env,
    logger: silentLogger,
  });
  const verdict = await evaluator.evaluate({
    systemPrompt: "You are a supervisor.",
    prompt: "The agent said: pong.",
    signal: AbortSignal.timeout(15_000),
  });
  expect(verdict).toBe("OK");
});
