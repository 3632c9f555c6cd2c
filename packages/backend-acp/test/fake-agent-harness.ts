/**
 * Test harness around the fake ACP agent: a runner context pointing at it, a log of what the
 * fake received (it appends one JSON line per request to FAKE_ACP_LOG), and recorded runner
 * callbacks.
 */
import { createLogger, type Logger, type RunnerContext } from "@culture/core";
import { createTestRunnerContext } from "@culture/core/testing";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { acpOptionsSchema, type AcpOptions } from "../src/acp-options.js";
import type { AcpRunner } from "../src/acp-runner.js";

/** The fake agent's script. */
export const FAKE_AGENT = fileURLToPath(new URL("./fixtures/fake-acp-agent.mjs", import.meta.url));

/** One request the fake received. */
export interface FakeEvent {
  pid: number;
  method: string;
  params: Record<string, unknown> & { text?: string; sessionId?: string };
}

/** A temp world for one test: the agent's directory, the fake's log and state, log lines. */
export interface Harness {
  directory: string;
  root: string;
  logFile: string;
  stateDir: string;
  lines: string[];
  logger: Logger;
  events(): FakeEvent[];
  /** A runner context for the fake agent; `options` and `env` merge over the defaults. */
  context(overrides?: Partial<RunnerContext<AcpOptions>> & { extraEnv?: Record<string, string>; acp?: Partial<AcpOptions> }): RunnerContext<AcpOptions>;
  cleanup(): void;
}

/** Makes a {@link Harness}. */
export function createHarness(): Harness {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "culture-acp-")));
  const directory = join(root, "project");
  const logFile = join(root, "fake.log");
  const stateDir = join(root, "state");
  const lines: string[] = [];
  const logger = createLogger({ level: "debug", write: (line) => lines.push(line) });
  mkdirSync(directory, { recursive: true });
  return {
    directory,
    root,
    logFile,
    stateDir,
    lines,
    logger,
    events: () =>
      existsSync(logFile)
        ? readFileSync(logFile, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as FakeEvent)
        : [],
    context: (overrides = {}) => {
      const { extraEnv, acp, ...rest } = overrides;
      const options = acpOptionsSchema.parse({ acp_command: [process.execPath, FAKE_AGENT], ...acp });
      return createTestRunnerContext<AcpOptions>({
        directory,
        logger,
        systemPrompt: "SYSTEM: you are a test agent",
        ...rest,
        options,
        env: {
          ...process.env,
          CULTURE_NICK: "spark-test",
          FAKE_ACP_LOG: logFile,
          FAKE_ACP_STATE: stateDir,
          ...extraEnv,
        },
      });
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

// Shared with every backend suite (recorded callbacks, polling, a zombie-aware liveness check).
export { recordRunner as record, pollUntil as eventually } from "@culture/core/testing";
export { isProcessAlive as processAlive } from "@culture/core";
