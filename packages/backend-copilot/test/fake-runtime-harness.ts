/**
 * Test harness around the fake Copilot runtime: a runner context pointing at it, a log of what
 * the fake received (it appends one JSON line per message to FAKE_COPILOT_LOG), and recorded
 * runner callbacks.
 */
import { createLogger, type Logger, type RunnerContext, type Whisper } from "@culture/core";
import { createTestRunnerContext } from "@culture/core/testing";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { copilotOptionsSchema, type CopilotOptions } from "../src/copilot-options.js";
import type { CopilotRunner } from "../src/copilot-runner.js";

/** The fake runtime (an executable script: the SDK spawns it directly). */
export const FAKE_RUNTIME = fileURLToPath(new URL("./fixtures/fake-copilot.mjs", import.meta.url));
// The SDK runs anything but a `.js` path directly, so the fake must stay executable.
chmodSync(FAKE_RUNTIME, 0o755);

/** One line of the fake's log. */
export interface FakeLogEntry {
  pid: number;
  kind: "start" | "recv" | "permission" | "hook" | string;
  method?: string;
  params?: Record<string, unknown> & { prompt?: string; sessionId?: string };
  args?: string[];
  cwd?: string;
  hookType?: string;
  response?: { output?: { additionalContext?: string } } | null;
  result?: { kind?: string };
}

/** A temp world for one test: the agent's directory, the fake's log and state, log lines. */
export interface Harness {
  directory: string;
  root: string;
  logFile: string;
  stateDir: string;
  lines: string[];
  logger: Logger;
  /** Whispers the runner's takeWhispers() hands out (each once). */
  whispers: Whisper[];
  log(): FakeLogEntry[];
  /** The requests the fake received with this method. */
  received(method: string): FakeLogEntry[];
  /** A runner context for the fake; `copilot` merges over the default options. */
  context(
    overrides?: Partial<RunnerContext<CopilotOptions>> & { extraEnv?: Record<string, string>; copilot?: Partial<CopilotOptions> },
  ): RunnerContext<CopilotOptions>;
  /** The environment the fake runs with (log + state). */
  env(extra?: Record<string, string>): Record<string, string | undefined>;
  cleanup(): void;
}

/** Makes a {@link Harness}. */
export function createHarness(): Harness {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "culture-copilot-")));
  const directory = join(root, "project");
  const logFile = join(root, "fake.log");
  const stateDir = join(root, "state");
  const lines: string[] = [];
  const whispers: Whisper[] = [];
  const logger = createLogger({ level: "debug", write: (line) => lines.push(line) });
  mkdirSync(directory, { recursive: true });
  const log = (): FakeLogEntry[] =>
    existsSync(logFile)
      ? readFileSync(logFile, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as FakeLogEntry)
      : [];
  const env = (extra: Record<string, string> = {}) => ({
    ...process.env,
    CULTURE_NICK: "spark-test",
    FAKE_COPILOT_LOG: logFile,
    FAKE_COPILOT_STATE: stateDir,
    ...extra,
  });
  return {
    directory,
    root,
    logFile,
    stateDir,
    lines,
    logger,
    whispers,
    log,
    received: (method) => log().filter((e) => e.kind === "recv" && e.method === method),
    env,
    context: (overrides = {}) => {
      const { extraEnv, copilot, ...rest } = overrides;
      const options = copilotOptionsSchema.parse({ executable: FAKE_RUNTIME, ...copilot });
      return createTestRunnerContext<CopilotOptions>({
        directory,
        logger,
        systemPrompt: "SYSTEM: you are a test agent",
        takeWhispers: () => whispers.splice(0),
        ...rest,
        options,
        env: env(extraEnv),
      });
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

// Shared with every backend suite (recorded callbacks, polling, a zombie-aware liveness check).
export { recordRunner as record, pollUntil as eventually } from "@culture/core/testing";
export { isProcessAlive as processAlive } from "@culture/core";
