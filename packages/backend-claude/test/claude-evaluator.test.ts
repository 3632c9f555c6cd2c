import { isCultureError, supervisorSchema } from "@culture/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createClaudeEvaluator } from "../src/claude-evaluator.js";
import { createHarness, eventually, processAlive, settled, type Harness } from "./fake-claude-harness.js";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => h.cleanup());

function evaluator(extraEnv: Record<string, string> = {}, model: string | null = null) {
  const ctx = h.context({ extraEnv });
  return createClaudeEvaluator({
    nick: ctx.nick,
    supervisor: supervisorSchema.parse({ agent: "claude", thinking: "none" }),
    model,
    directory: ctx.directory,
    options: ctx.options,
    env: ctx.env,
    logger: ctx.logger,
  });
}

describe("createClaudeEvaluator", () => {
  it("asks a one-turn, tool-less query with the supervisor's system prompt and model, and returns its text", async () => {
    const verdict = await evaluator({}, "claude-haiku-4-5").evaluate({ systemPrompt: "JUDGE", prompt: "the transcript", signal: new AbortController().signal });
    expect(verdict).toBe("I heard: the transcript");
    const [spawn] = h.eventsOf("spawn");
    expect(spawn!.argv).toEqual(
      expect.arrayContaining(["--max-turns=1", "--tools=", "--strict-mcp-config", "--no-session-persistence", "--model=claude-haiku-4-5", "--thinking=disabled"]),
    );
    expect(spawn!.argv!.some((a) => a.startsWith("--permission-mode") || a.startsWith("--allowedTools"))).toBe(false);
    // The supervisor's prompt replaces Claude Code's own.
    expect(h.eventsOf("initialize")[0]!.request).toMatchObject({ systemPrompt: ["JUDGE"] });
    expect(h.eventsOf("initialize")[0]!.request!.appendSystemPrompt).toBeUndefined();
    await eventually(() => !processAlive(spawn!.pid));
  });

  it("uses a fresh process per evaluation", async () => {
    const e = evaluator();
    await e.evaluate({ systemPrompt: "", prompt: "one", signal: new AbortController().signal });
    await e.evaluate({ systemPrompt: "", prompt: "two", signal: new AbortController().signal });
    expect(new Set(h.eventsOf("spawn").map((s) => s.pid)).size).toBe(2);
  });

  it("honours the abort signal: rejects with its reason and ends the CLI", async () => {
    const controller = new AbortController();
    const outcome = settled(evaluator().evaluate({ systemPrompt: "", prompt: "hang", signal: controller.signal }));
    await eventually(() => h.eventsOf("user").length > 0);
    controller.abort(new Error("evaluation timed out"));
    const result = await outcome;
    expect(result.ok).toBe(false);
    expect(((result as { error: Error }).error).message).toBe("evaluation timed out");
    const pid = h.eventsOf("spawn")[0]!.pid;
    await eventually(() => !processAlive(pid));
  });

  it("reports a Claude Code that is not signed in as E_AGENT_AUTH", async () => {
    const result = await settled(evaluator({ FAKE_CLAUDE_AUTH_ERROR: "1" }).evaluate({ systemPrompt: "", prompt: "x", signal: new AbortController().signal }));
    expect(isCultureError((result as { error: unknown }).error, "E_AGENT_AUTH")).toBe(true);
  });
});
