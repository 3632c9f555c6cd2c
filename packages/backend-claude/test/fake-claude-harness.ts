/**
 * Test harness around the fake Claude Code CLI (fixtures/fake-claude.mjs): a runner context
 * that points the real SDK at it, the log of what the fake received (one JSON line per event
 * in FAKE_CLAUDE_LOG), and recorded runner callbacks.
 */
import { createLogger, type Logger, type RunnerContext, type Whisper } from "@culture/core";
import { createTestRunnerContext } from "@culture/core/testing";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { claudeOptionsSchema, type ClaudeOptions } from "../src/claude-options.js";
import type { ClaudeRunner } from "../src/claude-runner.js";

/** The fake CLI. */
export const FAKE_CLAUDE = fileURLToPath(new URL("./fixtures/fake-claude.mjs", import.meta.url));

/** One event the fake logged. */
export interface FakeEvent {
  pid: number;
  event: string;
  argv?: string[];
  cwd?: string;
  culture_nick?: string | null;
  extra_env?: string | null;
  client_app?: string | null;
  text?: string;
  request?: Record<string, unknown>;
  answer?: { response?: { hookSpecificOutput?: { additionalContext?: string } } };
  code?: number;
}

/** A temp world for one test. */
export interface Harness {
  root: string;
  directory: string;
  logFile: string;
  stateDir: string;
  /** The runner's log lines. */
  lines: string[];
  logger: Logger;
  events(): FakeEvent[];
  /** The events of one kind. */
  eventsOf(kind: string): FakeEvent[];
  /** A runner context for the fake; `claude` merges over the default options, `extraEnv` over the env. */
  context(overrides?: Partial<RunnerContext<ClaudeOptions>> & { extraEnv?: Record<string, string>; claude?: Partial<ClaudeOptions> }): RunnerContext<ClaudeOptions>;
  cleanup(): void;
}

/** Makes a {@link Harness}. */
export function createHarness(): Harness {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "culture-claude-")));
  const directory = join(root, "project");
  const logFile = join(root, "fake.log");
  const stateDir = join(root, "state");
  const lines: string[] = [];
  const logger = createLogger({ level: "debug", write: (line) => lines.push(line) });
  mkdirSync(directory, { recursive: true });
  const events = (): FakeEvent[] =>
    existsSync(logFile)
      ? readFileSync(logFile, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as FakeEvent)
      : [];
  return {
    root,
    directory,
    logFile,
    stateDir,
    lines,
    logger,
    events,
    eventsOf: (kind) => events().filter((e) => e.event === kind),
    context: (overrides = {}) => {
      const { extraEnv, claude, ...rest } = overrides;
      const options = claudeOptionsSchema.parse({ executable: FAKE_CLAUDE, api_retry_delay_seconds: 0.01, ...claude });
      return createTestRunnerContext<ClaudeOptions>({
        directory,
        logger,
        systemPrompt: "SYSTEM: you are a test agent on IRC",
        ...rest,
        options,
        env: {
          ...process.env,
          CULTURE_NICK: "spark-test",
          FAKE_CLAUDE_LOG: logFile,
          FAKE_CLAUDE_STATE: stateDir,
          ...extraEnv,
        },
      });
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** A `takeWhispers` that hands out `whispers` once, then nothing; counts its calls. */
export function whispersOnce(whispers: Whisper[]): { take: () => Whisper[]; calls: () => number } {
  let calls = 0;
  let pending = [...whispers];
  return {
    take: () => {
      calls++;
      const out = pending;
      pending = [];
      return out;
    },
    calls: () => calls,
  };
}

/** What a promise settled with: its value, or its error. */
export function settled<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

// Shared with every backend suite (recorded callbacks, polling, a zombie-aware liveness check).
export { recordRunner as record, pollUntil as eventually } from "@culture/core/testing";
export { isProcessAlive as processAlive } from "@culture/core";
