/**
 * The Copilot runner through the real @github/copilot-sdk against the fake runtime (a real
 * process speaking the SDK's LSP-framed JSON-RPC).
 */
import { isCultureError, type AgentMessage } from "@culture/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CopilotRunner, type CopilotRunnerSettings } from "../src/copilot-runner.js";
import { createHarness, eventually, FAKE_RUNTIME, processAlive, record, type Harness } from "./fake-runtime-harness.js";

let h: Harness;
const runners: CopilotRunner[] = [];

beforeEach(() => {
  h = createHarness();
});

afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.stop();
  h.cleanup();
});

function makeRunner(overrides: Parameters<Harness["context"]>[0] = {}, settings: CopilotRunnerSettings = {}): CopilotRunner {
  const runner = new CopilotRunner(h.context(overrides), settings);
  runners.push(runner);
  return runner;
}

async function oneTurn(prompt: string, overrides: Parameters<Harness["context"]>[0] = {}) {
  const runner = makeRunner(overrides);
  const rec = record(runner);
  await runner.start();
  await runner.sendPrompt(prompt);
  return { runner, rec };
}

function blocks<T extends AgentMessage["content"][number]["type"]>(messages: AgentMessage[], type: T) {
  return messages.flatMap((m) => m.content.filter((b) => b.type === type)) as Extract<AgentMessage["content"][number], { type: T }>[];
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (err: unknown) => err,
  );
}

describe("CopilotRunner: messages", () => {
  it("reports assistant.message as one text message with the model, and resolves at session.idle", async () => {
    const { rec } = await oneTurn("hello there");
    expect(rec.messages).toEqual([{ type: "assistant", model: "fake-small", content: [{ type: "text", text: "I heard: hello there" }] }]);
  });

  it("puts the reasoning before the text as a thinking block", async () => {
    const { rec } = await oneTurn("think hard");
    expect(rec.messages.map((m) => m.content)).toEqual([
      [
        { type: "thinking", thinking: "Let me think." },
        { type: "text", text: "Thought about it." },
      ],
    ]);
  });

  it("reports a tool call and its result as they happen, once each, between the texts", async () => {
    const { rec } = await oneTurn("tool please");
    expect(rec.messages.map((m) => m.content.map((b) => b.type).join("+"))).toEqual(["text", "tool_use", "tool_result", "text"]);
    const [use] = blocks(rec.messages, "tool_use");
    const [result] = blocks(rec.messages, "tool_result");
    expect(use).toEqual({ type: "tool_use", id: "call-1", name: "bash", input: { command: "cat notes.txt" } });
    expect(result).toEqual({ type: "tool_result", tool_use_id: "call-1", content: "the notes" });
    expect(rec.texts()).toEqual(["Let me look.", "Done: the notes"]);
  });

  it("reports a tool call it learns of only through the postToolUse hook (the supervisor still sees it)", async () => {
    const { rec } = await oneTurn("hookonly");
    expect(rec.messages.map((m) => m.content)).toEqual([
      [
        { type: "tool_use", id: "hook-1", name: "view", input: { path: "README.md" } },
        { type: "tool_result", tool_use_id: "hook-1", content: "# readme" },
      ],
      [{ type: "text", text: "Read: # readme" }],
    ]);
  });

  it("approves the runtime's permission requests (the agent runs unattended)", async () => {
    await oneTurn("tool please");
    const answers = h.log().filter((e) => e.kind === "permission");
    expect(answers.map((a) => a.result)).toEqual([{ kind: "approve-once" }]);
  });

  it("marks a failed tool call's result as an error (postToolUseFailure)", async () => {
    const { rec } = await oneTurn("fail");
    expect(blocks(rec.messages, "tool_result")).toEqual([{ type: "tool_result", tool_use_id: "call-2", content: "no such file", is_error: true }]);
    expect(h.log().filter((e) => e.kind === "hook").map((e) => e.hookType)).toEqual(["postToolUseFailure"]);
  });

  it("sums the turn's assistant.usage events onto its last message", async () => {
    const { rec } = await oneTurn("usage please");
    expect(rec.messages).toHaveLength(1);
    expect(rec.messages[0]!.usage).toEqual({ inputTokens: 20, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });
  });

  it("keeps a sub-agent's text out of the agent's reply", async () => {
    const { rec } = await oneTurn("subagent");
    expect(rec.texts()).toEqual(["Main agent reply."]);
  });
});

describe("CopilotRunner: session", () => {
  it("starts the runtime headless over stdio in the agent's directory", async () => {
    await oneTurn("hi");
    const [start] = h.log().filter((e) => e.kind === "start");
    expect(start!.args).toEqual(["--headless", "--no-auto-update", "--stdio"]);
    expect(start!.cwd).toBe(h.directory);
    expect(h.received("connect")).toHaveLength(1);
  });

  it("creates the session with the model, the system prompt appended, the directory, hooks and permissions", async () => {
    await oneTurn("hi", { model: "fake-small", systemPrompt: "SYSTEM-MARKER be helpful" });
    const [create] = h.received("session.create");
    expect(create!.params).toMatchObject({
      model: "fake-small",
      systemMessage: { mode: "append", content: "SYSTEM-MARKER be helpful" },
      workingDirectory: h.directory,
      hooks: true,
      requestPermission: true,
      clientName: "culture",
    });
    // The system prompt is a system message, never a turn.
    expect(h.received("session.send").map((e) => e.params!.prompt)).toEqual(["hi"]);
  });

  it("sends one session.send per prompt with the exact text", async () => {
    const { runner } = await oneTurn("[IRC @mention in #test] <alice> hello there");
    await runner.sendPrompt("[IRC DM] <bob> psst");
    expect(h.received("session.send").map((e) => e.params!.prompt)).toEqual(["[IRC @mention in #test] <alice> hello there", "[IRC DM] <bob> psst"]);
  });

  it("runs start()'s initial prompt as the first turn", async () => {
    const runner = makeRunner();
    const rec = record(runner);
    await runner.start("you were restarted");
    expect(rec.texts()).toEqual(["I heard: you were restarted"]);
  });

  it("gives the runtime the daemon's environment plus env (so its shell can run culture channel)", async () => {
    const { runner, rec } = await oneTurn("exec pwd", { copilot: { env: { FAKE_EXTRA: "from-config" } } });
    await runner.sendPrompt("exec printf '%s %s' \"$CULTURE_NICK\" \"$FAKE_EXTRA\"");
    expect(rec.texts()).toEqual([h.directory, "spark-test from-config"]);
  });

  it("maps thinking to a reasoning effort the model supports, and sends none to a model without one", async () => {
    await oneTurn("hi", { model: "fake-reasoner", thinking: "high" });
    await oneTurn("hi", { model: "fake-reasoner", thinking: "max" });
    await oneTurn("hi", { model: "fake-small", thinking: "high" });
    await oneTurn("hi", { model: "fake-reasoner", thinking: "none" });
    expect(h.received("session.create").map((e) => e.params!.reasoningEffort)).toEqual(["high", "high", undefined, undefined]);
  });

  it("resumes the previous session after a restart (ctx.previousSessionId)", async () => {
    const first = makeRunner();
    await first.start();
    await first.sendPrompt("history");
    const id = first.sessionId;
    await first.stop();
    const second = makeRunner({ previousSessionId: id });
    const rec = record(second);
    await second.start();
    expect(second.sessionId).toBe(id);
    expect(h.received("session.resume").map((e) => e.params!.sessionId)).toEqual([id]);
    await second.sendPrompt("history");
    expect(rec.texts()).toEqual([`history: 2 prompts in session ${id}`]);
  });

  it("starts a new session when the previous one cannot be resumed, and says why", async () => {
    const runner = makeRunner({ previousSessionId: "no-such-session" });
    await runner.start();
    expect(runner.sessionId).not.toBe("no-such-session");
    expect(h.received("session.create")).toHaveLength(1);
    expect(h.lines.some((l) => l.includes("could not resume the previous Copilot session") && l.includes("Session not found"))).toBe(true);
  });

  it("compacts the session on request", async () => {
    const { runner } = await oneTurn("hi");
    await runner.compact();
    expect(h.received("session.history.compact")).toHaveLength(1);
  });
});

describe("CopilotRunner: supervisor", () => {
  it("delivers queued whispers at the next tool boundary as the hook's additional context, once", async () => {
    const runner = makeRunner();
    const rec = record(runner);
    await runner.start();
    h.whispers.push({ action: "CORRECTION", message: "stop re-reading notes.txt" }, { action: "THINK_DEEPER", message: "why does it fail?" });
    await runner.sendPrompt("tool");
    await runner.sendPrompt("tool");
    const hooks = h.log().filter((e) => e.kind === "hook");
    expect(hooks.map((e) => e.response?.output?.additionalContext)).toEqual([
      "[SUPERVISOR/CORRECTION] stop re-reading notes.txt\n[SUPERVISOR/THINK_DEEPER] why does it fail?",
      undefined,
    ]);
    expect(rec.texts()).toContain("Done: the notes | context: [SUPERVISOR/CORRECTION] stop re-reading notes.txt\n[SUPERVISOR/THINK_DEEPER] why does it fail?");
    expect(h.whispers).toEqual([]);
  });
});

describe("CopilotRunner: interrupts and errors", () => {
  it("interrupt() aborts the turn; its sendPrompt resolves and the agent keeps serving", async () => {
    const runner = makeRunner();
    const rec = record(runner);
    await runner.start();
    const turn = runner.sendPrompt("hang");
    await eventually(() => h.received("session.send").length === 1);
    await runner.interrupt();
    await turn;
    expect(h.received("session.abort")).toHaveLength(1);
    await runner.sendPrompt("after");
    expect(rec.texts()).toEqual(["I heard: after"]);
  });

  it("rejects a turn that ends in session.error with E_AGENT_PROTOCOL, and keeps running", async () => {
    const runner = makeRunner();
    const rec = record(runner);
    await runner.start();
    const err = await rejection(runner.sendPrompt("error"));
    expect(isCultureError(err, "E_AGENT_PROTOCOL")).toBe(true);
    expect((err as Error).message).toContain("query: the model call failed (HTTP 500)");
    expect(h.lines.some((l) => l.includes("Copilot session error: the model call failed"))).toBe(true);
    expect(runner.isRunning()).toBe(true);
    await runner.sendPrompt("after");
    expect(rec.texts()).toEqual(["I heard: after"]);
  });

  it("fails the turn on a session.error that no idle follows, once nothing else happens", async () => {
    const runner = makeRunner({}, { errorSettleMs: 100 });
    await runner.start();
    const err = await rejection(runner.sendPrompt("stall"));
    expect(isCultureError(err, "E_AGENT_PROTOCOL")).toBe(true);
    expect((err as Error).message).toContain("the model call failed for good");
  });

  it("does not let a failed turn's late session.idle end the next turn", async () => {
    const runner = makeRunner({}, { errorSettleMs: 100 });
    const rec = record(runner);
    await runner.start();
    const err = await rejection(runner.sendPrompt("lateidle"));
    expect((err as Error).message).toContain("idle follows late");
    await runner.sendPrompt("after");
    expect(rec.texts()).toEqual(["I heard: after"]);
  });

  it("logs a session.error the agent recovers from, and the turn succeeds", async () => {
    const { rec } = await oneTurn("recover");
    expect(rec.texts()).toEqual(["Recovered after a retry."]);
    expect(h.lines.some((l) => l.includes("rate limited, retrying"))).toBe(true);
  });

  it("rejects with E_AGENT_AUTH naming the fixes when the runtime is signed out during a turn", async () => {
    const runner = makeRunner();
    await runner.start();
    const err = await rejection(runner.sendPrompt("signout"));
    expect(isCultureError(err, "E_AGENT_AUTH")).toBe(true);
    expect((err as Error).message).toContain("requires authentication");
    expect((err as Error).message).toContain("/login");
    expect((err as Error).message).toContain("GH_TOKEN");
  });

  it("start() throws E_AGENT_AUTH when the runtime is not signed in, and leaves no process", async () => {
    const runner = makeRunner({ extraEnv: { FAKE_COPILOT_AUTH: "none" } });
    const err = await rejection(runner.start());
    expect(isCultureError(err, "E_AGENT_AUTH")).toBe(true);
    expect((err as Error).message).toContain(FAKE_RUNTIME);
    expect(h.received("session.create")).toHaveLength(0);
    const [start] = h.log().filter((e) => e.kind === "start");
    await eventually(() => !processAlive(start!.pid));
    expect(runner.isRunning()).toBe(false);
  });

  it("does not ask for a GitHub sign-in when a bring-your-own-key provider is configured", async () => {
    const runner = makeRunner({ extraEnv: { FAKE_COPILOT_AUTH: "none", COPILOT_PROVIDER_BASE_URL: "http://127.0.0.1:1" } });
    await runner.start();
    expect(runner.isRunning()).toBe(true);
    expect(h.received("auth.getStatus")).toHaveLength(0);
  });

  it("throws E_AGENT_COMMAND_NOT_FOUND naming executable when it does not exist", async () => {
    const runner = makeRunner({ copilot: { executable: "/nonexistent/copilot" } });
    const err = await rejection(runner.start());
    expect(isCultureError(err, "E_AGENT_COMMAND_NOT_FOUND")).toBe(true);
    expect((err as Error).message).toContain("/nonexistent/copilot");
    expect((err as Error).message).toContain("executable");
  });
});

describe("CopilotRunner: exits", () => {
  it("reports a runtime crash to onExit with its code and fails the turn with E_AGENT_EXITED", async () => {
    const runner = makeRunner();
    const rec = record(runner);
    await runner.start();
    const err = await rejection(runner.sendPrompt("crash"));
    expect(isCultureError(err, "E_AGENT_EXITED")).toBe(true);
    await eventually(() => rec.exits.length === 1);
    expect(rec.exits).toEqual([3]);
    expect(runner.isRunning()).toBe(false);
    // The session id survives, for the restart to resume.
    expect(runner.sessionId).toBeTruthy();
  });

  it("stop() shuts the runtime down through the SDK, is idempotent, and is not reported as an exit", async () => {
    const { runner, rec } = await oneTurn("hi");
    const [start] = h.log().filter((e) => e.kind === "start");
    await Promise.all([runner.stop(), runner.stop()]);
    await runner.stop();
    expect(h.received("session.detach")).toHaveLength(1);
    expect(h.received("runtime.shutdown")).toHaveLength(1);
    expect(processAlive(start!.pid)).toBe(false);
    expect(rec.exits).toEqual([]);
    expect(runner.isRunning()).toBe(false);
  });

  it("stop() during a turn rejects that turn", async () => {
    const runner = makeRunner();
    await runner.start();
    const turn = rejection(runner.sendPrompt("hang"));
    await eventually(() => h.received("session.send").length === 1);
    await runner.stop();
    expect(String(await turn)).toContain("stopped during the turn");
  });

  it("kills a runtime that ignores the shutdown after the grace period", async () => {
    const runner = makeRunner({ extraEnv: { FAKE_COPILOT_STUBBORN: "1" } }, { stopGraceMs: 300 });
    const rec = record(runner);
    await runner.start();
    const [start] = h.log().filter((e) => e.kind === "start");
    await runner.stop();
    expect(processAlive(start!.pid)).toBe(false);
    expect(h.lines.some((l) => l.includes("did not shut down within 300 ms"))).toBe(true);
    expect(rec.exits).toEqual([]);
  });
});
