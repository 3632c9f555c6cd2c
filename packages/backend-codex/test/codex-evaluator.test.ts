import { isCultureError } from "@culture/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCodexEvaluator } from "../src/codex-evaluator.js";
import { createHarness, eventually, processAlive, type Harness } from "./helpers/fake-codex-harness.js";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => h.cleanup());

function evaluator(extraEnv: Record<string, string> = {}, model: string | null = null) {
  const ctx = h.context({ extraEnv });
  return createCodexEvaluator({
    nick: ctx.nick,
    supervisor: {} as never,
    model,
    directory: ctx.directory,
    options: ctx.options,
    env: ctx.env,
    logger: ctx.logger,
  });
}

const signal = () => new AbortController().signal;

describe("createCodexEvaluator", () => {
  it("asks an ephemeral, read-only thread with the supervisor's prompt and model; returns the reply and ends the process", async () => {
    const verdict = await evaluator({}, "gpt-5-mini").evaluate({ systemPrompt: "JUDGE", prompt: "transcript", signal: signal() });
    expect(verdict).toBe("I heard: transcript");
    const events = h.events();
    expect(events.map((e) => e.method)).toEqual(["initialize", "initialized", "thread/start", "turn/start"]);
    expect(events[2]!.params).toEqual({
      model: "gpt-5-mini",
      cwd: h.directory,
      developerInstructions: "JUDGE",
      approvalPolicy: "never",
      sandbox: "read-only",
      config: { allow_login_shell: false },
      ephemeral: true,
    });
    await eventually(() => !processAlive(events[0]!.pid));
  });

  it("uses a new process per evaluation", async () => {
    const e = evaluator();
    await e.evaluate({ systemPrompt: "", prompt: "one", signal: signal() });
    await e.evaluate({ systemPrompt: "", prompt: "two", signal: signal() });
    expect(new Set(h.events().map((ev) => ev.pid)).size).toBe(2);
  });

  it("declines every approval request: the supervisor judges, it does not act", async () => {
    const verdict = await evaluator().evaluate({ systemPrompt: "", prompt: "approvals", signal: signal() });
    expect(verdict).toBe("approvals: decline,decline,denied,denied,{}");
  });

  it("honours the abort signal: rejects, interrupts the turn and kills the process", async () => {
    const controller = new AbortController();
    const outcome = evaluator()
      .evaluate({ systemPrompt: "", prompt: "hang", signal: controller.signal })
      .then(
        () => "resolved",
        (err: unknown) => err,
      );
    await eventually(() => h.calls("turn/start").length === 1);
    // Let the turn/start answer reach the evaluator, so it knows the turn id.
    await new Promise((r) => setTimeout(r, 50));
    controller.abort(new Error("evaluation timed out"));
    expect(((await outcome) as Error).message).toBe("evaluation timed out");
    expect(h.calls("turn/interrupt")).toHaveLength(1);
    const pid = h.events()[0]!.pid;
    await eventually(() => !processAlive(pid));
  });

  it("reports a Codex that is not signed in as E_AGENT_AUTH", async () => {
    const err = await evaluator({ FAKE_CODEX_AUTH: "turn" })
      .evaluate({ systemPrompt: "", prompt: "x", signal: signal() })
      .catch((e: unknown) => e);
    expect(isCultureError(err, "E_AGENT_AUTH")).toBe(true);
    expect((err as Error).message).toContain("codex login");
  });
});
