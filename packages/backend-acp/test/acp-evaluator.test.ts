import { createTestRunnerContext } from "@culture/core/testing";
import { isCultureError } from "@culture/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAcpEvaluator } from "../src/acp-evaluator.js";
import { createHarness, eventually, processAlive, type Harness } from "./fake-agent-harness.js";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => h.cleanup());

function evaluator(extraEnv: Record<string, string> = {}, model: string | null = null) {
  const ctx = h.context({ extraEnv });
  return createAcpEvaluator({
    nick: ctx.nick,
    supervisor: {} as never,
    model,
    directory: ctx.directory,
    options: ctx.options,
    env: ctx.env,
    logger: ctx.logger,
  });
}

describe("createAcpEvaluator", () => {
  it("asks a fresh session with the system prompt and the prompt, returns the text, and ends the process", async () => {
    const verdict = await evaluator().evaluate({ systemPrompt: "JUDGE", prompt: "transcript", signal: new AbortController().signal });
    expect(verdict).toBe("I heard: JUDGE\n\ntranscript");
    const events = h.events();
    expect(events.map((e) => e.method)).toEqual(["initialize", "session/new", "session/prompt"]);
    // The evaluator may not touch files: no fs capability is advertised.
    expect(events[0]!.params).toMatchObject({ clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } } });
    expect(processAlive(events[0]!.pid)).toBe(false);
  });

  it("uses a new process per evaluation and sets the supervisor model", async () => {
    const e = evaluator({}, "fake-large");
    expect(await e.evaluate({ systemPrompt: "", prompt: "which model", signal: new AbortController().signal })).toBe("model: fake-large");
    await e.evaluate({ systemPrompt: "", prompt: "again", signal: new AbortController().signal });
    expect(new Set(h.events().map((ev) => ev.pid)).size).toBe(2);
  });

  it("refuses permission requests", async () => {
    const verdict = await evaluator().evaluate({ systemPrompt: "", prompt: "permission", signal: new AbortController().signal });
    expect(verdict).toBe("permission: reject");
  });

  it("honours the abort signal: rejects and kills the agent", async () => {
    const controller = new AbortController();
    const pending = evaluator().evaluate({ systemPrompt: "", prompt: "hang", signal: controller.signal });
    const outcome = pending.then(
      () => "resolved",
      (err: unknown) => err,
    );
    await eventually(() => h.events().some((e) => e.method === "session/prompt"));
    controller.abort(new Error("evaluation timed out"));
    expect(((await outcome) as Error).message).toBe("evaluation timed out");
    const pid = h.events()[0]!.pid;
    await eventually(() => !processAlive(pid));
  });

  it("reports an agent that needs signing in as E_AGENT_AUTH", async () => {
    const error = await evaluator({ FAKE_ACP_AUTH_REQUIRED: "1" })
      .evaluate({ systemPrompt: "", prompt: "x", signal: new AbortController().signal })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(isCultureError(error, "E_AGENT_AUTH")).toBe(true);
  });
});
