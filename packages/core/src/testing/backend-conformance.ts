/**
 * The checks every backend must pass, shipped by the host (ESLint's RuleTester): a backend's
 * own test file calls `describeBackendConformance(backend, { describe, it, expect, ... })`
 * with its test runner's functions, so core depends on no test framework. The shape check is
 * the loader's own {@link assertBackendDefinition}, so the kit and the loader cannot disagree.
 *
 * Session ids: by default a backend has sessions, and `sessionId` must be a non-empty string
 * while the runner is running, from the end of its first turn at the latest (agents often
 * report their session with the first reply). A backend whose agent has no sessions passes
 * `sessions: false`; `sessionId` may then be null.
 *
 * Exits: `onExit` must get a non-zero code when the agent crashes, and `isRunning()` must be
 * false by then. A requested `stop()` is not a crash: if a runner reports it at all, it
 * reports 0.
 */
import { rmSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { AgentMessage } from "../agent-message.js";
import type { AgentRunnerBase } from "../agent-runner.js";
import type { BackendDefinition, RunnerContext } from "../backend.js";
import { assertBackendDefinition } from "../discovery/assert-backend.js";
import { createTestRunnerContext } from "./test-runner-context.js";

/** The subset of a test runner's `expect` the kit uses (vitest's and jest's fit). */
export type ConformanceExpect = (actual: unknown, message?: string) => {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
};

/** A test runner's `it`/`test` (vitest's and jest's fit): name, body, optional timeout in ms. */
export type ConformanceIt = ((name: string, fn: () => Promise<void> | void, timeout?: number) => unknown) & {
  skip?: (name: string, fn: () => Promise<void> | void) => unknown;
};

/** Options of {@link describeBackendConformance}. */
export interface ConformanceOptions {
  describe: (name: string, fn: () => void) => unknown;
  it: ConformanceIt;
  expect: ConformanceExpect;
  /** Accepted so a runner's full set can be passed; the kit needs no per-test setup today. */
  beforeEach?: (fn: () => Promise<void> | void) => unknown;
  /** When given, runners a failed check left running are stopped after each test. */
  afterEach?: (fn: () => Promise<void> | void) => unknown;
  /** Backend fields (an agent entry's) the configSchema must accept; the runners are made with them. */
  validOptions: unknown;
  /** Values the configSchema must reject, each on its own. */
  invalidOptions: unknown[];
  /**
   * Overrides of the runner context (env, directory, model...). Default: {@link createTestRunnerContext}.
   * `options` is always `validOptions` parsed by the backend's configSchema.
   */
  context?: Partial<RunnerContext>;
  /** The prompt sent in the turn checks. Default: "Reply with the word pong." */
  prompt?: string;
  /**
   * Makes the running agent crash (kill its child process, send a prompt that crashes it...).
   * The crash check is skipped only when this is not given.
   */
  crash?: (runner: AgentRunnerBase) => Promise<void> | undefined | void;
  /** Whether the backend has sessions (see the module comment). Default true. */
  sessions?: boolean;
  /** How long one step (start, a turn, stop, the crash's onExit) may take. Default 15000 ms. */
  timeoutMs?: number;
}

/**
 * Registers the conformance checks for `backend` with the given test functions: shape and API
 * version; the options schema accepts and rejects; start -> sendPrompt -> onMessage ->
 * sendPrompt resolves -> stop; start again after stop; stop() before start and twice;
 * isRunning() and sessionId at the right times; onExit non-zero on a crash; the skill file.
 */
export function describeBackendConformance(backend: BackendDefinition, options: ConformanceOptions): void {
  const { describe, it, expect } = options;
  const stepMs = options.timeoutMs ?? 15_000;
  const testMs = stepMs * 6 + 5_000;
  const prompt = options.prompt ?? "Reply with the word pong.";
  const label = typeof backend?.name === "string" ? backend.name : "(unnamed)";
  const live = new Set<AgentRunnerBase>();

  const within = <T>(promise: Promise<T>, what: string): Promise<T> => withTimeout(promise, stepMs, what);

  /** Makes a runner with recording callbacks, runs `body`, then stops it and removes its temp dir. */
  const withRunner = async (body: (runner: AgentRunnerBase, record: Recording) => Promise<void>): Promise<void> => {
    const parsed = backend.configSchema.safeParse(options.validOptions);
    if (!parsed.success) throw new Error(`configSchema rejected validOptions, so no runner can be made: ${parsed.error.message}`);
    const ctx = createTestRunnerContext({ ...options.context, options: parsed.data });
    const ownDir = options.context?.directory === undefined;
    const runner = backend.createRunner(ctx);
    if (!runner || typeof runner.start !== "function") throw new Error(`createRunner() returned ${String(runner)}, not a runner`);
    live.add(runner);
    const record = recordCallbacks(runner);
    try {
      await body(runner, record);
    } finally {
      try {
        await within(Promise.resolve(runner.stop()), "stop() (cleanup)");
      } finally {
        live.delete(runner);
        if (ownDir) rmSync(ctx.directory, { recursive: true, force: true });
      }
    }
  };

  /** Sends the prompt and checks the turn: messages while it runs, well-formed, then it resolves. */
  const turn = async (runner: AgentRunnerBase, record: Recording, what: string): Promise<AgentMessage[]> => {
    const first = record.messages.length;
    record.inTurn = true;
    try {
      await within(Promise.resolve(runner.sendPrompt(prompt)), `${what}: sendPrompt(${JSON.stringify(prompt)})`);
    } finally {
      record.inTurn = false;
    }
    const messages = record.messages.slice(first);
    if (messages.length === 0) {
      throw new Error(
        `${what}: sendPrompt() resolved, but onMessage was never called during the turn. ` +
          `Every turn must deliver at least one AgentMessage through onMessage before its sendPrompt() resolves.`,
      );
    }
    const problems = messages.flatMap((m, i) => agentMessageProblems(m).map((p) => `message ${i + 1}: ${p}`));
    expect(problems, `${what}: every message must have the AgentMessage shape`).toEqual([]);
    return messages;
  };

  const checkSession = (runner: AgentRunnerBase, what: string) => {
    const id = runner.sessionId;
    if (options.sessions === false) {
      expect(id === null || typeof id === "string", `${what}: sessionId must be a string or null, got ${JSON.stringify(id)}`).toBe(true);
    } else {
      expect(
        typeof id === "string" && id.length > 0,
        `${what}: sessionId must be a non-empty string while running (pass sessions: false if the backend has none), got ${JSON.stringify(id)}`,
      ).toBe(true);
    }
  };

  describe(`backend "${label}" conformance`, () => {
    options.afterEach?.(async () => {
      for (const runner of live) await Promise.resolve(runner.stop()).catch(() => undefined);
      live.clear();
    });

    it("is a backend definition for this core's API version", () => {
      assertBackendDefinition(backend, `The backend "${label}"`);
    });

    it("configSchema accepts validOptions", () => {
      const result = backend.configSchema.safeParse(options.validOptions);
      expect(result.success, `configSchema rejected validOptions: ${result.success ? "" : result.error.message}`).toBe(true);
    });

    it("configSchema rejects each of invalidOptions", () => {
      const accepted = options.invalidOptions
        .map((value, i) => ({ i, value, ok: backend.configSchema.safeParse(value).success }))
        .filter((r) => r.ok)
        .map((r) => `invalidOptions[${r.i}] = ${JSON.stringify(r.value)}`);
      expect(accepted, "configSchema accepted values it must reject").toEqual([]);
    });

    it(
      "start -> sendPrompt -> onMessage -> sendPrompt resolves -> stop",
      () =>
        withRunner(async (runner, record) => {
          expect(runner.isRunning(), "isRunning() before start()").toBe(false);
          await within(Promise.resolve(runner.start()), "start()");
          expect(runner.isRunning(), "isRunning() after start() resolved").toBe(true);
          await turn(runner, record, "first turn");
          expect(runner.isRunning(), "isRunning() after a turn").toBe(true);
          checkSession(runner, "after the first turn");
          await within(Promise.resolve(runner.stop()), "stop()");
          expect(runner.isRunning(), "isRunning() after stop() resolved").toBe(false);
          expect(record.lateMessages, "onMessage calls after sendPrompt() resolved (a turn's messages must arrive before it resolves)").toBe(0);
          expect(
            record.exits.filter((code) => code !== 0),
            "onExit codes during a requested stop() (a requested stop is not a crash: report 0 or nothing)",
          ).toEqual([]);
        }),
      testMs,
    );

    it(
      "starts again after stop",
      () =>
        withRunner(async (runner, record) => {
          await within(Promise.resolve(runner.start()), "first start()");
          await turn(runner, record, "turn before the restart");
          await within(Promise.resolve(runner.stop()), "stop()");
          expect(runner.isRunning(), "isRunning() after stop()").toBe(false);
          await within(Promise.resolve(runner.start()), "start() after stop()");
          expect(runner.isRunning(), "isRunning() after the second start()").toBe(true);
          await turn(runner, record, "turn after the restart");
          checkSession(runner, "after the restart");
        }),
      testMs,
    );

    it(
      "stop() is idempotent: before start, and twice after",
      () =>
        withRunner(async (runner) => {
          await within(Promise.resolve(runner.stop()), "stop() before start()");
          expect(runner.isRunning(), "isRunning() after stop() before start()").toBe(false);
          await within(Promise.resolve(runner.start()), "start()");
          await within(Promise.resolve(runner.stop()), "first stop()");
          await within(Promise.resolve(runner.stop()), "second stop()");
          expect(runner.isRunning(), "isRunning() after stop() twice").toBe(false);
        }),
      testMs,
    );

    const crash = options.crash;
    const crashName = "calls onExit with a non-zero code when the agent crashes";
    if (crash) {
      it(
        crashName,
        () =>
          withRunner(async (runner, record) => {
            await within(Promise.resolve(runner.start()), "start()");
            const exited = record.nextExit();
            // Not awaited: a crash triggered by a prompt may never resolve that prompt's turn.
            void Promise.resolve()
              .then(() => crash(runner))
              .catch(() => undefined);
            const code = await within(exited, "onExit after the crash");
            expect(code !== 0, `onExit after a crash must get a non-zero code, got ${code}`).toBe(true);
            expect(runner.isRunning(), "isRunning() once onExit was called for a crash").toBe(false);
          }),
        testMs,
      );
    } else {
      it.skip?.(`${crashName} (no crash option given)`, () => undefined);
    }

    const skill = backend?.skill;
    if (skill) {
      it("ships its skill file", () => {
        const file = fileURLToPath(skill.path);
        let size = -1;
        try {
          const stat = statSync(file);
          size = stat.isFile() ? stat.size : -1;
        } catch {
          size = -1;
        }
        expect(size > 0, `skill.path must be a non-empty file: ${file}`).toBe(true);
      });
    }
  });
}

/** What the kit records from a runner's callbacks. */
interface Recording {
  messages: AgentMessage[];
  exits: number[];
  /** onMessage calls that came while no sendPrompt was pending, after at least one turn. */
  lateMessages: number;
  inTurn: boolean;
  /** Resolves with the code of the next onExit call. */
  nextExit(): Promise<number>;
}

function recordCallbacks(runner: AgentRunnerBase): Recording {
  const waiters: ((code: number) => void)[] = [];
  const record: Recording = {
    messages: [],
    exits: [],
    lateMessages: 0,
    inTurn: false,
    nextExit: () => new Promise<number>((resolve) => waiters.push(resolve)),
  };
  runner.onMessage = async (message) => {
    if (!record.inTurn && record.messages.length > 0) record.lateMessages++;
    record.messages.push(message);
  };
  runner.onExit = async (code) => {
    record.exits.push(code);
    for (const resolve of waiters.splice(0)) resolve(code);
  };
  return record;
}

/** Why `value` is not an {@link AgentMessage} (empty when it is one). */
export function agentMessageProblems(value: unknown): string[] {
  if (value === null || typeof value !== "object") return [`not an object: ${JSON.stringify(value)}`];
  const msg = value as Record<string, unknown>;
  const problems: string[] = [];
  if (msg.type !== "assistant") problems.push(`type must be "assistant", got ${JSON.stringify(msg.type)}`);
  if (msg.model !== undefined && typeof msg.model !== "string") problems.push(`model must be a string when set`);
  if (msg.usage !== undefined) {
    const usage = msg.usage as Record<string, unknown> | null;
    if (!usage || typeof usage.inputTokens !== "number" || typeof usage.outputTokens !== "number") {
      problems.push(`usage must be { inputTokens: number, outputTokens: number } when set`);
    }
  }
  if (!Array.isArray(msg.content)) return [...problems, `content must be an array of blocks`];
  msg.content.forEach((block: unknown, i) => {
    const b = (block ?? {}) as Record<string, unknown>;
    const at = `content[${i}]`;
    switch (b.type) {
      case "text":
        if (typeof b.text !== "string") problems.push(`${at}: a text block needs text: string`);
        break;
      case "tool_use":
        if (typeof b.id !== "string" || typeof b.name !== "string" || !("input" in b)) {
          problems.push(`${at}: a tool_use block needs id: string, name: string and input`);
        }
        break;
      case "tool_result":
        if (typeof b.tool_use_id !== "string" || !("content" in b)) problems.push(`${at}: a tool_result block needs tool_use_id: string and content`);
        break;
      case "thinking":
        if (typeof b.thinking !== "string") problems.push(`${at}: a thinking block needs thinking: string (not "text")`);
        break;
      default:
        problems.push(`${at}: unknown block type ${JSON.stringify(b.type)} (text, tool_use, tool_result, thinking)`);
    }
  });
  return problems;
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
