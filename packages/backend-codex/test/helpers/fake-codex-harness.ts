/**
 * Test harness around the fake Codex CLI: a temp world (the agent's directory, a `bin/codex`
 * wrapper that runs the fake with this Node, the fake's message log and thread state), a
 * runner context pointing at it, and recorded runner callbacks.
 */
import { createLogger, type Logger, type RunnerContext, type Whisper } from "@culture/core";
import { createTestRunnerContext } from "@culture/core/testing";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { codexOptionsSchema, type CodexOptions } from "../../src/codex-options.js";

/** The fake's script. */
export const FAKE_CODEX = fileURLToPath(new URL("../fixtures/fake-codex.mjs", import.meta.url));

/** Writes `<dir>/codex`, a shell wrapper that runs the fake with this Node; returns its path. */
export function writeFakeCodexBin(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "codex");
  writeFileSync(path, `#!/bin/sh\nexec "${process.execPath}" "${FAKE_CODEX}" "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

/** One message the fake received. */
export interface FakeEvent {
  pid: number;
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string };
}

/** A temp world for one test. */
export interface Harness {
  root: string;
  directory: string;
  bin: string;
  codex: string;
  logFile: string;
  stateDir: string;
  lines: string[];
  logger: Logger;
  events(): FakeEvent[];
  /** The requests (and notifications) the fake received with this method. */
  calls(method: string): FakeEvent[];
  /** A runner context for the fake; `codex` fields and `extraEnv` merge over the defaults. */
  context(overrides?: Partial<RunnerContext<CodexOptions>> & { extraEnv?: Record<string, string>; codex?: Partial<CodexOptions> }): RunnerContext<CodexOptions>;
  /** The environment the fake runs with (PATH starts with the wrapper's folder). */
  env(extra?: Record<string, string>): Record<string, string | undefined>;
  cleanup(): void;
}

/** Makes a {@link Harness}. */
export function createHarness(): Harness {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "culture-codex-")));
  const directory = join(root, "project");
  const bin = join(root, "bin");
  const logFile = join(root, "fake.log");
  const stateDir = join(root, "state");
  const lines: string[] = [];
  const logger = createLogger({ level: "debug", write: (line) => lines.push(line) });
  mkdirSync(directory, { recursive: true });
  const codex = writeFakeCodexBin(bin);
  const env = (extra: Record<string, string> = {}) => ({
    ...process.env,
    PATH: `${bin}${delimiter}${process.env.PATH ?? ""}`,
    CULTURE_NICK: "spark-test",
    FAKE_CODEX_LOG: logFile,
    FAKE_CODEX_STATE: stateDir,
    ...extra,
  });
  const events = () =>
    existsSync(logFile)
      ? readFileSync(logFile, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as FakeEvent)
      : [];
  return {
    root,
    directory,
    bin,
    codex,
    logFile,
    stateDir,
    lines,
    logger,
    events,
    calls: (method) => events().filter((e) => e.method === method),
    env,
    context: (overrides = {}) => {
      const { extraEnv, codex: codexOptions, ...rest } = overrides;
      return createTestRunnerContext<CodexOptions>({
        directory,
        logger,
        systemPrompt: "SYSTEM: you are a test agent",
        ...rest,
        options: codexOptionsSchema.parse({ ...codexOptions }),
        env: env(extraEnv),
      });
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** A `takeWhispers` that hands out `whispers` on its `after`-th call (1-based), once. */
export function whispersOnCall(after: number, whispers: Whisper[]): { take: () => Whisper[]; calls: () => number } {
  let calls = 0;
  return {
    take: () => (++calls === after ? whispers : []),
    calls: () => calls,
  };
}

// Shared with every backend suite (recorded callbacks, polling, a zombie-aware liveness check).
export { recordRunner as record, pollUntil as eventually } from "@culture/core/testing";
export { isProcessAlive as processAlive } from "@culture/core";
