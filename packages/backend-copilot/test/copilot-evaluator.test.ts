import { isCultureError, silentLogger, type EvaluatorContext } from "@culture/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCopilotEvaluator } from "../src/copilot-evaluator.js";
import { copilotOptionsSchema, type CopilotOptions } from "../src/copilot-options.js";
import { createHarness, eventually, FAKE_RUNTIME, processAlive, type Harness } from "./fake-runtime-harness.js";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => h.cleanup());

function context(env: Record<string, string> = {}, model: string | null = "fake-small"): EvaluatorContext<CopilotOptions> {
  return {
    nick: "spark-test",
    supervisor: {
      agent: "copilot",
      model,
      thinking: "medium",
      window_size: 20,
      eval_interval: 5,
      escalation_threshold: 3,
      prompt_override: null,
      command: null,
    } as EvaluatorContext["supervisor"],
    model,
    directory: h.directory,
    options: copilotOptionsSchema.parse({ executable: FAKE_RUNTIME }),
    env: h.env(env),
    logger: silentLogger,
  };
}

describe("Copilot evaluator", () => {
  it("asks a fresh session with the supervisor's prompt as the whole system message, no tools, and returns its reply", async () => {
    const evaluator = createCopilotEvaluator(context({ FAKE_COPILOT_VERDICT: "CORRECTION stop looping" }));
    const verdict = await evaluator.evaluate({ systemPrompt: "You are the supervisor.", prompt: "Agent: spark-test ...", signal: new AbortController().signal });
    expect(verdict).toBe("CORRECTION stop looping");
    const [create] = h.received("session.create");
    expect(create!.params).toMatchObject({
      model: "fake-small",
      systemMessage: { mode: "replace", content: "You are the supervisor." },
      availableTools: [],
    });
    expect(h.received("session.send").map((e) => e.params!.prompt)).toEqual(["Agent: spark-test ..."]);
    // The evaluation session is deleted and its runtime stopped.
    expect(h.received("session.delete")).toHaveLength(1);
    const [start] = h.log().filter((e) => e.kind === "start");
    await eventually(() => !processAlive(start!.pid));
  });

  it("starts a new runtime per evaluation", async () => {
    const evaluator = createCopilotEvaluator(context());
    for (let i = 0; i < 2; i++) await evaluator.evaluate({ systemPrompt: "s", prompt: `p${i}`, signal: new AbortController().signal });
    expect(new Set(h.log().filter((e) => e.kind === "start").map((e) => e.pid)).size).toBe(2);
  });

  it("reports a signed-out runtime as E_AGENT_AUTH", async () => {
    const evaluator = createCopilotEvaluator(context({ FAKE_COPILOT_AUTH: "none" }));
    const err = await evaluator.evaluate({ systemPrompt: "s", prompt: "p", signal: new AbortController().signal }).catch((e: unknown) => e);
    expect(isCultureError(err, "E_AGENT_AUTH")).toBe(true);
  });

  it("honours the abort signal: rejects and kills the runtime", async () => {
    const evaluator = createCopilotEvaluator(context({ FAKE_COPILOT_VERDICT: "HANG" }));
    const controller = new AbortController();
    const pending = evaluator.evaluate({ systemPrompt: "s", prompt: "p", signal: controller.signal }).catch((e: unknown) => e);
    await eventually(() => h.received("session.send").length === 1);
    controller.abort();
    const err = await pending;
    expect((err as Error).name).toBe("AbortError");
    const [start] = h.log().filter((e) => e.kind === "start");
    await eventually(() => !processAlive(start!.pid));
  });
});
