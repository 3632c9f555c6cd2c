// The conformance kit, run for real on the echo backend (a real child process), and run on
// deliberately broken backends to show it fails with clear messages. The echo backend imports
// @culture/core, which resolves to packages/core/dist: build first.
import { fileURLToPath } from "node:url";
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { describe, expect, it, afterEach } from "vitest";
import { z } from "zod";
import { AgentRunnerBase } from "../src/agent-runner.js";
import type { BackendDefinition } from "../src/backend.js";
import { loadBackend } from "../src/discovery/load-backend.js";
import { createTestRunnerContext, describeBackendConformance, type ConformanceOptions } from "../src/testing/index.js";

const here = dirname(fileURLToPath(import.meta.url));
const echo = await loadBackend("./fixtures/echo-backend", { configDir: here });
type EchoRunner = AgentRunnerBase & { pid: number | null };

describeBackendConformance(echo.definition, {
  describe,
  it,
  expect,
  afterEach,
  validOptions: { prefix: "echo: ", stop_grace_ms: 1000 },
  invalidOptions: [{ prefix: 42 }, { stop_grace_ms: -1 }, { prefx: "typo" }],
  crash: (runner) => {
    process.kill((runner as EchoRunner).pid ?? 0, "SIGKILL");
  },
});

describe("echo backend with a crash triggered by a prompt", () => {
  describeBackendConformance(echo.definition, {
    describe,
    it,
    expect,
    validOptions: {},
    invalidOptions: [],
    prompt: "@test-agent hello",
    // The agent exits 1 mid-turn: that turn's sendPrompt rejects, onExit(1) follows.
    crash: (runner) => runner.sendPrompt("[IRC @mention in #general] <alice> @test-agent crash"),
  });
});

// --- the kit on broken backends ---

const SKIPPED = Symbol("skipped");
type Collected = Map<string, (() => Promise<void> | void) | typeof SKIPPED>;

/** Runs the kit with a collecting describe/it, so each check's outcome can be asserted. */
function collect(backend: BackendDefinition, overrides: Partial<ConformanceOptions> = {}): Collected {
  const tests: Collected = new Map();
  const fakeIt = Object.assign((name: string, fn: () => Promise<void> | void) => void tests.set(name, fn), {
    skip: (name: string) => void tests.set(name, SKIPPED),
  });
  describeBackendConformance(backend, {
    describe: (_name, fn) => fn(),
    it: fakeIt,
    expect,
    validOptions: {},
    invalidOptions: [{ nope: 1 }],
    timeoutMs: 400,
    ...overrides,
  });
  return tests;
}

/** The error message of one collected check, or null when it passed. */
async function outcome(tests: Collected, nameStart: string): Promise<string | null> {
  const entry = [...tests].find(([name]) => name.startsWith(nameStart));
  if (!entry) throw new Error(`no check named ${nameStart}...; have: ${[...tests.keys()].join(" | ")}`);
  const fn = entry[1];
  if (fn === SKIPPED) return "skipped";
  try {
    await fn();
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** An in-process runner whose behaviour each test picks; it is broken in exactly one way. */
class ScriptedRunner extends AgentRunnerBase {
  running = false;
  constructor(
    private readonly behave: {
      emit?: boolean;
      resolveTurn?: boolean;
      session?: string | null;
      exitOnStop?: number | null;
      crashable?: boolean;
    },
  ) {
    super();
  }
  async start(): Promise<void> {
    this.running = true;
  }
  async stop(): Promise<void> {
    const was = this.running;
    this.running = false;
    if (was && this.behave.exitOnStop != null) await this.onExit?.(this.behave.exitOnStop);
  }
  async sendPrompt(text: string): Promise<void> {
    if (this.behave.emit !== false) await this.onMessage?.({ type: "assistant", content: [{ type: "text", text }] });
    if (this.behave.resolveTurn === false) await new Promise(() => undefined);
  }
  isRunning(): boolean {
    return this.running;
  }
  get sessionId(): string | null {
    return this.behave.session === undefined ? "session-1" : this.behave.session;
  }
  crash(): void {
    this.running = false;
    if (this.behave.crashable !== false) void this.onExit?.(1);
  }
}

function scripted(behave: ConstructorParameters<typeof ScriptedRunner>[0], extra: Partial<BackendDefinition> = {}): BackendDefinition {
  return {
    name: "scripted",
    apiVersion: 1,
    configSchema: z.object({}).strict(),
    createRunner: () => new ScriptedRunner(behave),
    ...extra,
  };
}

describe("the conformance kit fails clearly on broken backends", () => {
  it("passes a well-behaved in-process backend (the baseline for the cases below)", async () => {
    const tests = collect(scripted({}), { crash: (r) => (r as ScriptedRunner).crash() });
    for (const name of tests.keys()) expect(await outcome(tests, name), name).toBeNull();
  });

  it("sendPrompt that never emits: the turn check says onMessage was never called", async () => {
    const tests = collect(scripted({ emit: false }));
    expect(await outcome(tests, "start -> sendPrompt")).toContain("onMessage was never called during the turn");
    expect(await outcome(tests, "starts again after stop")).toContain("onMessage was never called");
  });

  it("sendPrompt that never resolves: the turn check names the step and the timeout", async () => {
    const tests = collect(scripted({ resolveTurn: false }));
    expect(await outcome(tests, "start -> sendPrompt")).toContain(`first turn: sendPrompt("Reply with the word pong.") did not settle within 400 ms`);
  });

  it("no sessionId while running: fails unless the kit is told the backend has no sessions", async () => {
    expect(await outcome(collect(scripted({ session: null })), "start -> sendPrompt")).toContain("sessionId must be a non-empty string while running");
    expect(await outcome(collect(scripted({ session: null }), { sessions: false }), "start -> sendPrompt")).toBeNull();
  });

  it("a crash that never reaches onExit: the crash check times out waiting for it", async () => {
    const tests = collect(scripted({ crashable: false }), { crash: (r) => (r as ScriptedRunner).crash() });
    expect(await outcome(tests, "calls onExit with a non-zero code")).toContain("onExit after the crash did not settle within 400 ms");
  });

  it("the crash check is skipped only when no crash option is given", async () => {
    expect(await outcome(collect(scripted({})), "calls onExit with a non-zero code")).toBe("skipped");
  });

  it("a requested stop reported as a crash fails the turn check", async () => {
    const tests = collect(scripted({ exitOnStop: 143 }));
    expect(await outcome(tests, "start -> sendPrompt")).toContain("a requested stop is not a crash");
  });

  it("a schema that accepts what it should reject, or rejects validOptions", async () => {
    const loose = collect(scripted({}, { configSchema: z.object({}).passthrough() }));
    expect(await outcome(loose, "configSchema rejects each")).toContain(`invalidOptions[0] = {"nope":1}`);
    const strict = collect(scripted({}), { validOptions: { extra: true } });
    expect(await outcome(strict, "configSchema accepts validOptions")).toContain("configSchema rejected validOptions");
  });

  it("shape and API version go through the loader's assertBackendDefinition", async () => {
    const future = collect(scripted({}, { apiVersion: 2 }));
    expect(await outcome(future, "is a backend definition")).toContain("written for backend API version 2");
    const shapeless = collect({ ...scripted({}), createRunner: undefined } as unknown as BackendDefinition);
    expect(await outcome(shapeless, "is a backend definition")).toContain("it has no createRunner function");
  });

  it("a skill path that does not exist fails the skill check", async () => {
    const tests = collect(scripted({}, { skill: { path: new URL("file:///nonexistent/culture/SKILL.md") } }));
    expect(await outcome(tests, "ships its skill file")).toContain("skill.path must be a non-empty file: /nonexistent/culture/SKILL.md");
    const ok = collect(scripted({}, { skill: { path: new URL(import.meta.url) } }));
    expect(await outcome(ok, "ships its skill file")).toBeNull();
  });
});

describe("createTestRunnerContext", () => {
  it("builds a complete context with a temp directory, fresh hooks and no whispers", () => {
    const ctx = createTestRunnerContext({ nick: "spark-test" });
    expect(ctx.nick).toBe("spark-test");
    expect(ctx.agent.nick).toBe("spark-test");
    expect(ctx.directory).toContain("culture-test-");
    expect(ctx.env.CULTURE_NICK).toBe("spark-test");
    expect(ctx.takeWhispers()).toEqual([]);
    expect(typeof ctx.hooks.beforePrompt.promise).toBe("function");
    expect(ctx.previousSessionId).toBeNull();
    expect(ctx.agent.directory).toBe(ctx.directory);
    rmSync(ctx.directory, { recursive: true, force: true });
  });
});
