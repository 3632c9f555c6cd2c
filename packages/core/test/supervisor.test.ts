// The supervisor end to end: a real WindowSupervisor with the real command evaluator running
// a scripted node process (test/fixtures/scripted-evaluator.mjs), or with no evaluator at all
// (deterministic signals). Time-based signals use an injected clock, never wall-clock waits.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentMessage, ContentBlock } from "../src/agent-message.js";
import { defineBackend } from "../src/backend.js";
import { supervisorSchema, type SupervisorConfig } from "../src/config/schema.js";
import { isCultureError } from "../src/errors.js";
import { createLogger, type Logger } from "../src/logger.js";
import type { Evaluator, WhisperAction } from "../src/supervisor-base.js";
import { createCommandEvaluator } from "../src/supervisor/command-evaluator.js";
import { createEvaluator } from "../src/supervisor/create-evaluator.js";
import { SUPERVISOR_SYSTEM_PROMPT } from "../src/supervisor/system-prompt.js";
import { WindowSupervisor } from "../src/supervisor/window-supervisor.js";
import { z } from "zod";

const FIXTURE = new URL("./fixtures/scripted-evaluator.mjs", import.meta.url).pathname;
const NICK = "spark-culture";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tempDir(verdicts: string[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), "culture-supervisor-"));
  writeFileSync(join(dir, "verdicts.txt"), verdicts.join("\n") + "\n");
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function config(overrides: Partial<SupervisorConfig> = {}): SupervisorConfig {
  return { ...supervisorSchema.parse({}), ...overrides };
}

function captureLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: createLogger({ level: "debug", write: (l) => lines.push(l) }), lines };
}

/** Polls until `cond` holds; bounded by the test's timeout, not by a threshold of ours. */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 10));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function calls(dir: string): number {
  const f = join(dir, "count");
  return existsSync(f) ? Number(readFileSync(f, "utf8")) : 0;
}

type Event = { kind: "whisper"; message: string; action: WhisperAction } | { kind: "escalation"; message: string };

/** A supervisor wired to record its whispers and escalations, stopped after the test. */
function supervise(opts: {
  config: SupervisorConfig | null;
  evaluator?: Evaluator | null;
  evaluatorName?: string | null;
  clock?: { now(): number };
  signalCheckIntervalMs?: number;
  logger?: Logger;
}) {
  const events: Event[] = [];
  const waiters: (() => void)[] = [];
  const sup = new WindowSupervisor({
    nick: NICK,
    config: opts.config,
    evaluator: opts.evaluator ?? null,
    ...(opts.evaluatorName !== undefined ? { evaluatorName: opts.evaluatorName } : {}),
    logger: opts.logger ?? createLogger({ level: "silent" }),
    ...(opts.clock ? { clock: opts.clock } : {}),
    signalCheckIntervalMs: opts.signalCheckIntervalMs ?? 3_600_000,
  });
  const push = (e: Event) => {
    events.push(e);
    for (const w of waiters.splice(0)) w();
  };
  sup.onWhisper = async (message, action) => push({ kind: "whisper", message, action });
  sup.onEscalation = async (message) => push({ kind: "escalation", message });
  cleanups.push(() => sup.stop());
  /** Resolves once `count` events have been recorded in total. */
  const eventCount = async (count: number) => {
    while (events.length < count) await new Promise<void>((r) => waiters.push(r));
  };
  return { sup, events, eventCount };
}

async function commandEvaluator(dir: string, logger: Logger = createLogger({ level: "silent" }), cfg: SupervisorConfig = config()) {
  return createEvaluator({ ...cfg, agent: "command", command: [process.execPath, FIXTURE, dir] }, {
    nick: NICK,
    directory: dir,
    env: process.env,
    logger,
  });
}

function message(...content: ContentBlock[]): AgentMessage {
  return { type: "assistant", content };
}
let toolId = 0;
function toolCall(name: string, input: unknown): AgentMessage {
  return message({ type: "tool_use", id: `toolu_${++toolId}`, name, input });
}
const say = (text: string) => message({ type: "text", text });

function fakeClock(start = 1_700_000_000_000) {
  return { t: start, now() { return this.t; } };
}

describe("WindowSupervisor with the command evaluator", () => {
  it("whispers on first detection, whispers harder on the second, escalates on the third, then pauses until resume", async () => {
    const dir = tempDir([
      "CORRECTION You've retried cmake 3 times. Ask #llama-cpp for help.",
      "CORRECTION Still retrying cmake.",
      "CORRECTION Retried cmake 5 times",
    ]);
    const { evaluator, name } = await commandEvaluator(dir);
    const { sup, events } = supervise({ config: config({ agent: "command" }), evaluator, evaluatorName: name });
    await sup.start();
    sup.noteTurnStart("benchmark nemotron");

    await sup.evaluateNow();
    expect(events).toEqual([{ kind: "whisper", action: "CORRECTION", message: "You've retried cmake 3 times. Ask #llama-cpp for help." }]);
    expect(sup.status().ladder_step).toBe(1);

    await sup.evaluateNow();
    expect(events[1]).toEqual({
      kind: "whisper",
      action: "CORRECTION",
      message: "Second warning: Still retrying cmake. If this does not change, humans will be alerted.",
    });

    await sup.evaluateNow();
    expect(events[2]).toEqual({ kind: "escalation", message: "Retried cmake 5 times" });
    expect(sup.escalated).toBe(true);
    expect(sup.status()).toMatchObject({ evaluator: "command", ladder_step: 3, evaluations: 3, evaluation_failures: 0, last_verdict: "CORRECTION" });

    // Escalated: evaluation is paused, the evaluator is not even asked.
    await sup.evaluateNow();
    for (let i = 0; i < 10; i++) await sup.observe(say(`working ${i}`));
    await sup.evaluateNow();
    expect(calls(dir)).toBe(3);
    expect(events).toHaveLength(3);

    sup.resume();
    expect(sup.escalated).toBe(false);
    expect(sup.status().ladder_step).toBe(0);
    await sup.evaluateNow(); // line 4: OK
    expect(calls(dir)).toBe(4);
    expect(sup.status()).toMatchObject({ ladder_step: 0, last_verdict: "OK", evaluations: 4 });
    expect(events).toHaveLength(3);
  });

  it("reads ESCALATION on a first observation as a CORRECTION, whispers THINK_DEEPER as such, and resets on OK", async () => {
    const dir = tempDir(["ESCALATION Humans must look at this", "**THINK_DEEPER**: This architecture decision deserves extended thinking", "ok", "Verdict: correction: Refocus on the task"]);
    const { evaluator } = await commandEvaluator(dir);
    const { sup, events } = supervise({ config: config({ agent: "command" }), evaluator });
    await sup.start();

    await sup.evaluateNow();
    expect(events).toEqual([{ kind: "whisper", action: "CORRECTION", message: "Humans must look at this" }]);
    await sup.evaluateNow();
    expect(events[1]).toEqual({
      kind: "whisper",
      action: "THINK_DEEPER",
      message: "Second warning: This architecture decision deserves extended thinking. If this does not change, humans will be alerted.",
    });
    await sup.evaluateNow();
    expect(sup.status().ladder_step).toBe(0);
    await sup.evaluateNow();
    // After the reset the next issue starts at the first rung again: no "Second warning".
    expect(events[2]).toEqual({ kind: "whisper", action: "CORRECTION", message: "Refocus on the task" });
    expect(events.some((e) => e.kind === "escalation")).toBe(false);
  });

  it("logs an unparsed answer and treats it as OK", async () => {
    const dir = tempDir(["CORRECTION first", "I think the agent is doing fine overall.", "CORRECTION again"]);
    const { logger, lines } = captureLogger();
    const { evaluator } = await commandEvaluator(dir);
    const { sup, events } = supervise({ config: config({ agent: "command" }), evaluator, logger });
    await sup.start();
    await sup.evaluateNow();
    await sup.evaluateNow();
    expect(lines.some((l) => l.includes("not a verdict") && l.includes("doing fine overall"))).toBe(true);
    expect(sup.status()).toMatchObject({ ladder_step: 0, last_verdict: "OK", evaluation_failures: 0 });
    await sup.evaluateNow();
    expect(events.map((e) => e.message)).toEqual(["first", "again"]);
  });

  it("tolerates an evaluator that crashes or hangs: logged, counted, the ladder untouched, the hung process killed", async () => {
    const dir = tempDir();
    const next = (verdict: string) => writeFileSync(join(dir, "next"), verdict);
    const { logger, lines } = captureLogger();
    // The supervisor reads timeout_seconds per evaluation: only the hanging call gets a short
    // one, so a slow machine cannot time out the others.
    const cfg = config({ agent: "command", timeout_seconds: 120 });
    const { evaluator } = await commandEvaluator(dir, logger, cfg);
    const { sup, events } = supervise({ config: cfg, evaluator, logger });
    await sup.start();

    next("CORRECTION before the failures");
    await sup.evaluateNow();
    expect(sup.status().ladder_step).toBe(1);

    next("CRASH");
    await sup.evaluateNow();
    expect(sup.status()).toMatchObject({ evaluation_failures: 1, ladder_step: 1, evaluations: 1 });
    expect(lines.some((l) => l.includes("exited with code 1") && l.includes("evaluator exploded: no model loaded"))).toBe(true);

    next("HANG");
    cfg.timeout_seconds = 0.5;
    await sup.evaluateNow();
    cfg.timeout_seconds = 120;
    expect(sup.status()).toMatchObject({ evaluation_failures: 2, ladder_step: 1, evaluations: 1 });
    expect(lines.some((l) => l.includes("longer than 0.5s"))).toBe(true);
    if (existsSync(join(dir, "hang.pid"))) {
      const pid = Number(readFileSync(join(dir, "hang.pid"), "utf8"));
      await until(() => !alive(pid));
    }

    next("CORRECTION after the failures");
    await sup.evaluateNow();
    // Failures did not climb the ladder: this is the second whisper, not an escalation.
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({ kind: "whisper", message: expect.stringMatching(/^Second warning: after the failures\./) });
    expect(sup.status()).toMatchObject({ evaluation_failures: 2, evaluations: 2, ladder_step: 2 });
  });

  it("evaluates every eval_interval observed messages in the background, never two at once", async () => {
    const dir = tempDir(["WAIT CORRECTION slow one", "WAIT OK"]);
    const { evaluator: real } = await commandEvaluator(dir);
    let inFlight = 0;
    let maxInFlight = 0;
    let started = 0;
    // Instrumentation around the real command evaluator: counts calls and overlap.
    const evaluator: Evaluator = {
      async evaluate(req) {
        started++;
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        try {
          return await real!.evaluate(req);
        } finally {
          inFlight--;
        }
      },
    };
    const { sup, events, eventCount } = supervise({ config: config({ agent: "command", eval_interval: 2 }), evaluator });
    await sup.start();

    await sup.observe(say("one"));
    expect(started).toBe(0);
    await sup.observe(say("two")); // 2nd message: the first evaluation starts, observe does not wait for it
    expect(started).toBe(1);
    await until(() => existsSync(join(dir, "prompt-1.txt"))); // the evaluator process is up and blocked
    for (let i = 0; i < 4; i++) await sup.observe(say(`more ${i}`)); // two more intervals: one evaluation is marked due
    expect(started).toBe(1);
    expect(events).toHaveLength(0);

    writeFileSync(join(dir, "release-1"), "");
    await eventCount(1);
    expect(events[0]).toMatchObject({ kind: "whisper", message: "slow one" });
    await until(() => started === 2);
    writeFileSync(join(dir, "release-2"), "");
    await sup.evaluateNow(); // waits for the running one (and runs one more: line 3, OK)
    expect(maxInFlight).toBe(1);
    expect(started).toBe(3);
    expect(existsSync(join(dir, "overlaps"))).toBe(false);
    expect(sup.status()).toMatchObject({ evaluations: 3, ladder_step: 0 });
  });

  it("stop() aborts a running evaluation and kills its process", async () => {
    const dir = tempDir(["HANG"]);
    const { evaluator } = await commandEvaluator(dir);
    const { sup } = supervise({ config: config({ agent: "command", timeout_seconds: 600 }), evaluator });
    await sup.start();
    const running = sup.evaluateNow();
    await until(() => existsSync(join(dir, "hang.pid")));
    const pid = Number(readFileSync(join(dir, "hang.pid"), "utf8"));
    await sup.stop();
    await running;
    await until(() => !alive(pid));
    expect(sup.status().evaluation_failures).toBe(0);
    // Stopped: nothing runs any more.
    await sup.evaluateNow();
    expect(calls(dir)).toBe(1);
  });

  it("sends the system prompt and a transcript of the window with the evidence", async () => {
    const dir = tempDir(["OK"]);
    const { evaluator } = await commandEvaluator(dir);
    const { sup } = supervise({ config: config({ agent: "command", window_size: 7, eval_interval: 100 }), evaluator });
    await sup.start();
    sup.noteTurnStart("fix   the\nbuild");
    await sup.observe(say("this message falls out of the window"));
    await sup.observe(message({ type: "thinking", thinking: "x".repeat(2000) }, { type: "text", text: "Let me run make." }));
    for (let i = 0; i < 3; i++) {
      await sup.observe(toolCall("Bash", i === 1 ? { timeout: 60, command: "make" } : { command: "make", timeout: 60 }));
      await sup.observe(message({ type: "tool_result", tool_use_id: `toolu_${toolId}`, content: [{ type: "text", text: "make: *** [all] Error 2" }], is_error: true }));
    }
    await sup.evaluateNow();

    const stdin = readFileSync(join(dir, "prompt-1.txt"), "utf8");
    expect(stdin.startsWith(`${SUPERVISOR_SYSTEM_PROMPT}\n\n`)).toBe(true);
    const prompt = stdin.slice(SUPERVISOR_SYSTEM_PROMPT.length + 2);
    expect(prompt).toContain(`Agent: ${NICK}`);
    expect(prompt).toContain('Current task: "fix the build" (in progress)');
    expect(prompt).toContain("the last 7 agent messages");
    expect(prompt).not.toContain("falls out of the window");
    expect(prompt).toContain("text: Let me run make.");
    expect(prompt).toMatch(/thinking \(abbreviated\): x{400}… \[1600 more characters\]/);
    expect(prompt).toContain('tool call: Bash {"command":"make","timeout":60}');
    expect(prompt).toContain("tool result (is_error: true): make: *** [all] Error 2");
    expect(prompt).toMatch(/Evidence[^\n]*\n- SPIRALING: the same tool call was made 3 times in one task in this window \(3 since the previous evaluation\): Bash \{"command":"make","timeout":60\}/);
    expect(readFileSync(join(dir, "env-1.txt"), "utf8")).toBe(SUPERVISOR_SYSTEM_PROMPT);
    expect(SUPERVISOR_SYSTEM_PROMPT).toContain("- ESCALATION <message> — humans need to be notified");
  });

  it("uses prompt_override instead of the specification's prompt", async () => {
    const dir = tempDir(["OK"]);
    const cfg = config({ agent: "command", prompt_override: "Be strict. Answer OK or CORRECTION <message>." });
    const { evaluator } = await commandEvaluator(dir, undefined, cfg);
    const { sup } = supervise({ config: cfg, evaluator });
    await sup.evaluateNow();
    expect(readFileSync(join(dir, "prompt-1.txt"), "utf8")).toMatch(/^Be strict\. Answer OK or CORRECTION <message>\.\n\nAgent: /);
    expect(readFileSync(join(dir, "env-1.txt"), "utf8")).toBe(cfg.prompt_override);
  });
});

describe("WindowSupervisor without an evaluator (deterministic signals)", () => {
  it("SPIRALING: 3 identical tool calls drive the ladder from whisper to escalation", async () => {
    const { sup, events, eventCount } = supervise({ config: null });
    await sup.start();
    sup.noteTurnStart("benchmark nemotron");
    const cmake = () => toolCall("Bash", { command: "cmake --build .", cwd: "/src" });
    const cmakeReordered = () => toolCall("Bash", { cwd: "/src", command: "cmake --build ." });

    // eval_interval defaults to 5: the 5th message triggers the first evaluation.
    await sup.observe(say("Let me build it."));
    await sup.observe(cmake());
    await sup.observe(say("That failed, trying again."));
    await sup.observe(cmakeReordered());
    await sup.observe(cmake());
    await eventCount(1);
    expect(events[0]).toMatchObject({ kind: "whisper", action: "CORRECTION" });
    expect(events[0]!.message).toMatch(/^You've made the same Bash call 3 times \(\{"command":"cmake --build \.","cwd":"\/src"\}\)/);

    for (let i = 0; i < 5; i++) await sup.observe(cmake());
    await eventCount(2);
    expect(events[1]!.message).toMatch(/^Second warning: You've made the same Bash call 8 times .* If this does not change, humans will be alerted\.$/);

    for (let i = 0; i < 5; i++) await sup.observe(cmake());
    await eventCount(3);
    expect(events[2]).toEqual({ kind: "escalation", message: expect.stringMatching(/^Retried the same Bash call \d+ times$/) });
    expect(sup.escalated).toBe(true);
    expect(sup.status()).toMatchObject({ evaluator: null, ladder_step: 3, evaluations: 3 });
  });

  it("does not whisper about varied work, and resets once the repetition stops", async () => {
    const { sup, events, eventCount } = supervise({ config: null });
    await sup.start();
    for (let i = 0; i < 5; i++) await sup.observe(toolCall("Read", { path: `/src/file-${i}.ts` }));
    await sup.evaluateNow();
    expect(events).toHaveLength(0);
    expect(sup.status()).toMatchObject({ last_verdict: "OK", ladder_step: 0 });

    for (let i = 0; i < 3; i++) await sup.observe(toolCall("Bash", { command: "npm test" }));
    await sup.evaluateNow();
    await eventCount(1);
    expect(sup.status().ladder_step).toBe(1);
    // New, different work: the old repeats are still in the window but no longer recent.
    for (let i = 0; i < 5; i++) await sup.observe(toolCall("Edit", { path: `/src/fix-${i}.ts` }));
    await sup.evaluateNow();
    expect(sup.status()).toMatchObject({ last_verdict: "OK", ladder_step: 0 });
    expect(events).toHaveLength(1);
  });

  it("does not count the same call in different turns: reading the channel at the start of every task is not a spiral", async () => {
    const { sup, events } = supervise({ config: config({ window_size: 20, eval_interval: 100 }) });
    await sup.start();
    for (let i = 0; i < 4; i++) {
      sup.noteTurnStart(`question ${i}`);
      await sup.observe(toolCall("Bash", { command: "culture channel read '#general'" }));
      await sup.observe(say(`answer ${i}`));
      sup.noteTurnEnd();
    }
    await sup.evaluateNow();
    expect(events).toHaveLength(0);
    expect(sup.status()).toMatchObject({ last_verdict: "OK", ladder_step: 0 });

    // The same call three times within one turn still is.
    sup.noteTurnStart("question 4");
    for (let i = 0; i < 3; i++) await sup.observe(toolCall("Bash", { command: "culture channel read '#general'" }));
    await sup.evaluateNow();
    expect(events).toHaveLength(1);
    expect(events[0]!.message).toMatch(/^You've made the same Bash call 3 times/);
  });

  it("STALLING: a turn without output for stall_seconds climbs the ladder once per silent period", async () => {
    const clock = fakeClock();
    const { sup, events } = supervise({ config: config({ stall_seconds: 60 }), clock });
    await sup.start();
    sup.noteTurnStart("build the thing");
    await sup.observe(say("starting the build"));

    clock.t += 59_000;
    await sup.checkSignals();
    expect(events).toHaveLength(0);

    clock.t += 2_000;
    await sup.checkSignals();
    expect(events).toEqual([
      { kind: "whisper", action: "CORRECTION", message: expect.stringMatching(/^No output for 61 seconds on task "build the thing"\./) },
    ]);
    await sup.checkSignals(); // same silent period: nothing new
    expect(events).toHaveLength(1);

    clock.t += 60_000;
    await sup.checkSignals();
    expect(events[1]!.message).toMatch(/^Second warning: No output for 2 minutes on task "build the thing"\..* If this does not change, humans will be alerted\.$/);

    clock.t += 60_000;
    await sup.checkSignals();
    expect(events[2]).toEqual({ kind: "escalation", message: "No output for 3 minutes" });
  });

  it("STALLING needs a turn in flight, and output restarts the silence", async () => {
    const clock = fakeClock();
    const { sup, events } = supervise({ config: config({ stall_seconds: 60 }), clock });
    await sup.start();
    sup.noteTurnStart("task");
    sup.noteTurnEnd();
    clock.t += 3_600_000;
    await sup.checkSignals();
    expect(events).toHaveLength(0);

    sup.noteTurnStart("next task");
    clock.t += 50_000;
    await sup.observe(say("progress"));
    clock.t += 50_000;
    await sup.checkSignals();
    expect(events).toHaveLength(0);
  });

  it("STALLING does not count time spent waiting for an operator's approval; the silence starts again after", async () => {
    const clock = fakeClock();
    const { sup, events } = supervise({ config: config({ stall_seconds: 60, checkin_minutes: 1e9 }), clock });
    await sup.start();
    sup.noteTurnStart("publish");
    await sup.observe(say("asking to publish"));
    sup.notePermissionWait(true);
    clock.t += 3_600_000;
    await sup.checkSignals();
    expect(events).toHaveLength(0);
    sup.notePermissionWait(false);
    clock.t += 59_000;
    await sup.checkSignals();
    expect(events).toHaveLength(0);
    clock.t += 2_000;
    await sup.checkSignals();
    expect(events[0]!.message).toMatch(/^No output for 61 seconds on task "publish"\./);
  });

  it("the signal timer runs on its own between start() and stop()", async () => {
    const clock = fakeClock();
    const { sup, events, eventCount } = supervise({ config: config({ stall_seconds: 60 }), clock, signalCheckIntervalMs: 5 });
    await sup.start();
    sup.noteTurnStart("long build");
    clock.t += 61_000;
    await eventCount(1);
    expect(events[0]).toMatchObject({ kind: "whisper", message: expect.stringContaining("No output for 61 seconds") });
  });

  it("CHECK-IN: advises reading the channels once per unread period, without climbing the ladder", async () => {
    const clock = fakeClock();
    const { sup, events } = supervise({ config: config({ checkin_minutes: 12, stall_seconds: 1e9 }), clock });
    await sup.start();
    sup.noteTurnStart("long refactor");
    clock.t += 11 * 60_000;
    await sup.checkSignals();
    expect(events).toHaveLength(0);

    clock.t += 60_000;
    await sup.checkSignals();
    expect(events).toEqual([
      {
        kind: "whisper",
        action: "CORRECTION",
        message: "You haven't checked your channels in 12 minutes. Consider doing a culture channel read <channel> to see if there's relevant input.",
      },
    ]);
    expect(sup.status().ladder_step).toBe(0);

    clock.t += 30 * 60_000;
    await sup.checkSignals();
    expect(events).toHaveLength(1); // at most once per unread period

    sup.noteChannelRead();
    clock.t += 12 * 60_000;
    await sup.checkSignals();
    expect(events).toHaveLength(2);
    expect(sup.status().ladder_step).toBe(0);
  });

  it("CHECK-IN counts only time spent working", async () => {
    const clock = fakeClock();
    const { sup, events } = supervise({ config: config({ checkin_minutes: 12, stall_seconds: 1e9 }), clock });
    await sup.start();
    clock.t += 60 * 60_000; // idle for an hour: no turn in flight
    await sup.checkSignals();
    sup.noteTurnStart("quick task");
    clock.t += 60_000;
    await sup.checkSignals();
    expect(events).toHaveLength(0);
    clock.t += 11 * 60_000; // 12 minutes of work since the last read
    await sup.checkSignals();
    expect(events).toHaveLength(1);
    expect(events[0]!.message).toContain("in 72 minutes"); // real time since the last read
  });
});

describe("createEvaluator and the command evaluator", () => {
  const ctx = { nick: NICK, directory: tmpdir(), env: process.env, logger: createLogger({ level: "silent" }) };

  it("makes no evaluator without a supervisor section or agent", async () => {
    expect(await createEvaluator(null, ctx)).toEqual({ evaluator: null, name: null });
    expect(await createEvaluator(config(), ctx)).toEqual({ evaluator: null, name: null });
  });

  it("refuses agent: command without a command", async () => {
    const err = await createEvaluator(config({ agent: "command" }), ctx).catch((e: unknown) => e);
    expect(isCultureError(err, "E_EVALUATOR_UNAVAILABLE")).toBe(true);
    expect((err as Error).message).toContain("supervisor.command is not set");
  });

  it("uses a backend's createEvaluator, and refuses a backend without one", async () => {
    const seen: unknown[] = [];
    const withEvaluator = defineBackend({
      name: "local",
      apiVersion: 1,
      configSchema: z.object({ endpoint: z.string().default("http://127.0.0.1:11434") }).strict(),
      defaults: { model: "tiny" },
      createRunner: () => {
        throw new Error("not used");
      },
      createEvaluator: (c) => {
        seen.push(c);
        return { evaluate: async () => "OK" };
      },
    });
    const without = defineBackend({ name: "plain", apiVersion: 1, configSchema: z.object({}).strict(), createRunner: () => { throw new Error("not used"); } });
    const loadBackend = async (name: string) => (name === "local" ? withEvaluator : without);

    const made = await createEvaluator(config({ agent: "local" }), { ...ctx, loadBackend });
    expect(made.name).toBe("local");
    expect(await made.evaluator!.evaluate({ systemPrompt: "s", prompt: "p", signal: new AbortController().signal })).toBe("OK");
    expect(seen[0]).toMatchObject({ nick: NICK, model: "tiny", options: { endpoint: "http://127.0.0.1:11434" }, env: { CULTURE_NICK: NICK } });

    // The supervised agent's own backend gets the agent's options.
    await createEvaluator(config({ agent: "local", model: "big" }), { ...ctx, agentBackend: withEvaluator, agentOptions: { endpoint: "http://gpu:1" } });
    expect(seen[1]).toMatchObject({ model: "big", options: { endpoint: "http://gpu:1" } });

    const err = await createEvaluator(config({ agent: "plain" }), { ...ctx, loadBackend }).catch((e: unknown) => e);
    expect(isCultureError(err, "E_EVALUATOR_UNAVAILABLE")).toBe(true);
    expect((err as Error).message).toContain('the backend "plain" does not provide an evaluator');
  });

  it("passes CULTURE_NICK to the command, reports a non-zero exit with its stderr, and a missing program", async () => {
    const { evaluator } = await createEvaluator(
      config({ agent: "command", command: [process.execPath, "-e", "console.log('CORRECTION for ' + process.env.CULTURE_NICK)"] }),
      ctx,
    );
    const signal = new AbortController().signal;
    expect(await evaluator!.evaluate({ systemPrompt: "s", prompt: "p", signal })).toBe(`CORRECTION for ${NICK}`);

    const failing = createCommandEvaluator({ command: [process.execPath, "-e", "console.error('model not found'); process.exit(3)"], logger: ctx.logger });
    const err = await failing.evaluate({ systemPrompt: "s", prompt: "p", signal }).catch((e: unknown) => e);
    expect(isCultureError(err, "E_EVALUATOR_FAILED")).toBe(true);
    expect((err as Error).message).toMatch(/exited with code 3[\s\S]*model not found/);

    const missing = createCommandEvaluator({ command: ["/nonexistent/culture-evaluator"], logger: ctx.logger });
    const err2 = await missing.evaluate({ systemPrompt: "s", prompt: "p", signal }).catch((e: unknown) => e);
    expect(isCultureError(err2, "E_EVALUATOR_FAILED")).toBe(true);
    expect((err2 as Error).message).toContain("could not be run");
  });
});
