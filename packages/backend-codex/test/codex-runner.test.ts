import { CHANNEL_RULE_FILE, CHANNEL_RULE_NOTE } from "../src/channel-access.js";
import { isCultureError, type AgentMessage, type ContentBlock } from "@culture/core";
import { createTestRunnerContext } from "@culture/core/testing";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { IRC_TOOL_TIMEOUT_SEC } from "../src/irc-mcp-server.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CodexRunner, type CodexRunnerSettings } from "../src/codex-runner.js";
import { createHarness, eventually, processAlive, record, whispersOnCall, type Harness } from "./helpers/fake-codex-harness.js";

let h: Harness;
const runners: CodexRunner[] = [];

beforeEach(() => {
  h = createHarness();
});

afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.stop();
  h.cleanup();
});

type ContextOverrides = Parameters<Harness["context"]>[0];

function makeRunner(overrides: ContextOverrides = {}, settings: CodexRunnerSettings = {}): CodexRunner {
  const runner = new CodexRunner(h.context(overrides), { stopGraceMs: 1_000, ...settings });
  runners.push(runner);
  return runner;
}

/** Starts a runner and sends one prompt; returns what the turn produced. */
async function oneTurn(prompt: string, overrides: ContextOverrides = {}, settings: CodexRunnerSettings = {}) {
  const runner = makeRunner(overrides, settings);
  const rec = record(runner);
  await runner.start();
  await runner.sendPrompt(prompt);
  return { runner, rec };
}

function blocks(messages: AgentMessage[]): ContentBlock[] {
  return messages.flatMap((m) => m.content);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => null,
    (err: unknown) => err,
  );
}

describe("CodexRunner: normalization", () => {
  it("accumulates the streamed reply into one text message with the thread's model", async () => {
    const { rec } = await oneTurn("hello there");
    // The turn's usage (thread/tokenUsage/updated) follows as a message of its own, content-less,
    // and how full the context window is after that call (core's context care).
    expect(rec.messages).toEqual([
      { type: "assistant", model: "gpt-fake-codex", content: [{ type: "text", text: "I heard: hello there" }] },
      { type: "assistant", model: "gpt-fake-codex", content: [], usage: { inputTokens: 20, outputTokens: 10, cacheReadTokens: 0, reasoningTokens: 0 } },
      { type: "assistant", content: [], context: { usedTokens: 30, windowTokens: 200_000 } },
    ]);
    // The fake streamed it in three deltas before the completed item.
    expect(h.calls("turn/start")).toHaveLength(1);
  });

  it("uses the streamed deltas when the completed agent message has no text", async () => {
    const { rec } = await oneTurn("deltas only please");
    expect(rec.texts()).toEqual(["I heard: deltas only please"]);
  });

  it("turns reasoning into a thinking block", async () => {
    const { rec } = await oneTurn("think hard");
    expect(blocks(rec.messages)).toEqual([
      { type: "thinking", thinking: "Let me think.\n\nThen answer." },
      { type: "text", text: "Thought about it." },
    ]);
  });

  it("reports commands, file changes and MCP calls as tool_use + tool_result, as each item completes", async () => {
    const { rec } = await oneTurn("items");
    const kinds = rec.messages.map((m) => m.content.map((b) => b.type).join("+"));
    expect(kinds).toEqual(["thinking", "tool_use+tool_result", "tool_use+tool_result", "tool_use+tool_result", "tool_use+tool_result", "text", "", ""]);
    expect(rec.messages[0]!.content).toEqual([{ type: "thinking", thinking: "raw reasoning" }]);
    expect(rec.messages[1]!.content).toEqual([
      { type: "tool_use", id: "cmd_ok", name: "shell", input: { command: "ls -a", cwd: h.directory } },
      { type: "tool_result", tool_use_id: "cmd_ok", content: { output: ".\n..\n", exitCode: 0, status: "completed" } },
    ]);
    expect(rec.messages[2]!.content).toEqual([
      { type: "tool_use", id: "patch_1", name: "apply_patch", input: { changes: [{ path: "notes.txt", kind: "add", diff: "+hello\n" }] } },
      { type: "tool_result", tool_use_id: "patch_1", content: { status: "completed", files: ["notes.txt"] } },
    ]);
    expect(rec.messages[3]!.content).toEqual([
      { type: "tool_use", id: "mcp_1", name: "mcp__docs__search", input: { q: "irc" } },
      { type: "tool_result", tool_use_id: "mcp_1", content: { content: [{ type: "text", text: "found" }], structuredContent: null } },
    ]);
    expect(rec.messages[4]!.content[1]).toEqual({
      type: "tool_result",
      tool_use_id: "cmd_bad",
      content: { output: "", exitCode: 1, status: "failed" },
      is_error: true,
    });
    expect(rec.texts()).toEqual(["all items done"]);
  });

  it("does not end a turn on error notifications with willRetry: true", async () => {
    const { rec } = await oneTurn("retry errors");
    expect(rec.texts()).toEqual(["I heard: retry errors"]);
    expect(h.lines.some((l) => l.includes("codex is retrying: Reconnecting... 2/5"))).toBe(true);
  });
});

describe("CodexRunner: thread and turns", () => {
  it("initializes, then starts a thread with the directory, the agent prompt, approval never and the sandbox", async () => {
    await oneTurn("hi", { systemPrompt: "SYSTEM-MARKER be helpful" });
    const events = h.events();
    expect(events.map((e) => e.method ?? "(response)")).toEqual(["initialize", "initialized", "thread/start", "turn/start"]);
    expect(events[0]!.params).toMatchObject({ clientInfo: { name: "culture" } });
    expect(events[2]!.params).toEqual({
      cwd: h.directory,
      developerInstructions: `SYSTEM-MARKER be helpful\n\n${CHANNEL_RULE_NOTE}`,
      approvalPolicy: "never",
      sandbox: "workspace-write",
      // No login shell (PATH stays the daemon's); culture channel reaches the socket through an
      // exec rule, not network; `culture mcp` is the thread's MCP server (irc_tools: both).
      config: {
        allow_login_shell: false,
        "mcp_servers.culture.command": "culture",
        "mcp_servers.culture.args": ["mcp", "--nick", "test-agent"],
        "mcp_servers.culture.env": expect.objectContaining({ CULTURE_NICK: "spark-test" }),
        "mcp_servers.culture.tool_timeout_sec": IRC_TOOL_TIMEOUT_SEC,
        "mcp_servers.culture.default_tools_approval_mode": "approve",
      },
    });
    // JSON-RPC without the "jsonrpc" field, numbered requests.
    expect(events.some((e) => "jsonrpc" in e)).toBe(false);
    expect(events.filter((e) => e.id !== undefined).map((e) => typeof e.id)).toEqual(["number", "number", "number"]);
  });

  it("sends one text input per prompt, with the thinking level as effort", async () => {
    const { runner, rec } = await oneTurn("which model", { thinking: "max", model: "gpt-5-codex" });
    expect(h.calls("thread/start")[0]!.params).toMatchObject({ model: "gpt-5-codex" });
    expect(h.calls("turn/start")[0]!.params).toEqual({
      threadId: runner.sessionId,
      input: [{ type: "text", text: "which model", text_elements: [] }],
      effort: "xhigh",
    });
    expect(rec.texts()).toEqual(["model=gpt-5-codex effort=xhigh"]);
  });

  it("irc_tools: mcp — the MCP server only: no exec rule, no prompt note, no network even with channel_access: network", async () => {
    const codexHome = join(h.root, "codex-home");
    const agent = { ...createTestRunnerContext().agent, irc_tools: "mcp" as const };
    await oneTurn("hi", { agent, extraEnv: { CODEX_HOME: codexHome }, codex: { channel_access: "network" } });
    const params = h.calls("thread/start")[0]!.params as { developerInstructions: string; config: Record<string, unknown> };
    expect(params.developerInstructions).toBe("SYSTEM: you are a test agent");
    expect(params.config).toMatchObject({ allow_login_shell: false, "mcp_servers.culture.command": "culture" });
    expect(Object.keys(params.config).some((k) => k.startsWith("sandbox_workspace_write"))).toBe(false);
    expect(existsSync(join(codexHome, "rules", CHANNEL_RULE_FILE))).toBe(false);
  });

  it("irc_tools: cli — no MCP server; the exec rule and its prompt note as before", async () => {
    const codexHome = join(h.root, "codex-home");
    const agent = { ...createTestRunnerContext().agent, irc_tools: "cli" as const };
    await oneTurn("hi", { agent, extraEnv: { CODEX_HOME: codexHome } });
    const params = h.calls("thread/start")[0]!.params as { developerInstructions: string; config: Record<string, unknown> };
    expect(params.config).toEqual({ allow_login_shell: false });
    expect(params.developerInstructions).toBe(`SYSTEM: you are a test agent\n\n${CHANNEL_RULE_NOTE}`);
    expect(existsSync(join(codexHome, "rules", CHANNEL_RULE_FILE))).toBe(true);
  });

  it("passes the configured codex_sandbox", async () => {
    await oneTurn("hi", { codex: { codex_sandbox: "read-only" } });
    expect(h.calls("thread/start")[0]!.params).toMatchObject({ sandbox: "read-only" });
  });

  it("runs the app-server in the agent's directory with the daemon's environment plus `env`", async () => {
    const { runner, rec } = await oneTurn("exec pwd", { codex: { env: { FAKE_EXTRA: "from-config" } } });
    await runner.sendPrompt(`exec printf '%s %s' "$CULTURE_NICK" "$FAKE_EXTRA"`);
    expect(rec.texts()).toEqual([h.directory, "spark-test from-config"]);
  });

  it("answers approval requests (approve) in both protocol generations", async () => {
    const { rec } = await oneTurn("approvals");
    expect(rec.texts()).toEqual(['approvals: accept,accept,approved,approved,{"network":{"enabled":true}}']);
  });

  it("answers requests it does not know with a JSON-RPC error instead of leaving them hanging", async () => {
    const { rec } = await oneTurn("unknown request");
    expect(rec.texts()).toEqual(["unknown request: error -32601"]);
  });

  it("logs lines that are not valid protocol messages, with the line, and carries on", async () => {
    const { runner, rec } = await oneTurn("bad lines");
    expect(rec.texts()).toEqual(["I heard: bad lines"]);
    const errors = h.lines.filter((l) => l.includes("ERROR") && l.includes("protocol error"));
    expect(errors.some((l) => l.includes("not JSON") && l.includes("this is not json"))).toBe(true);
    expect(errors.some((l) => l.includes("not JSON-RPC") && l.includes("hello"))).toBe(true);
    expect(errors.some((l) => l.includes("item/completed") && l.includes('\\"threadId\\":42'))).toBe(true);
    expect(runner.isRunning()).toBe(true);
    await runner.sendPrompt("still there?");
    expect(rec.texts().at(-1)).toBe("I heard: still there?");
  });

  it("runs start()'s initial prompt as a turn", async () => {
    const runner = makeRunner();
    const rec = record(runner);
    await runner.start("you were restarted");
    expect(rec.texts()).toEqual(["I heard: you were restarted"]);
  });

  it("serializes prompts: a second sendPrompt waits for the first turn", async () => {
    const runner = makeRunner();
    const rec = record(runner);
    await runner.start();
    await Promise.all([runner.sendPrompt("one"), runner.sendPrompt("two"), runner.sendPrompt("three")]);
    expect(rec.texts()).toEqual(["I heard: one", "I heard: two", "I heard: three"]);
  });
});

describe("CodexRunner: resume", () => {
  it("resumes the previous thread after a restart (thread/resume), keeping its id", async () => {
    const first = makeRunner();
    record(first);
    await first.start();
    await first.sendPrompt("remember me");
    const threadId = first.sessionId!;
    await first.stop();

    const second = makeRunner({ previousSessionId: threadId });
    const rec = record(second);
    await second.start("carry on");
    expect(second.sessionId).toBe(threadId);
    const resumes = h.calls("thread/resume");
    expect(resumes).toHaveLength(1);
    expect(resumes[0]!.params).toMatchObject({ threadId, cwd: h.directory, approvalPolicy: "never", developerInstructions: `SYSTEM: you are a test agent\n\n${CHANNEL_RULE_NOTE}` });
    expect(h.calls("thread/start")).toHaveLength(1); // only the first runner's
    expect(rec.texts()).toEqual(["I heard: carry on"]);
  });

  it("starts a new thread when the previous one cannot be resumed", async () => {
    const runner = makeRunner({ previousSessionId: "thr_gone" });
    await runner.start();
    expect(h.calls("thread/resume")).toHaveLength(1);
    expect(h.calls("thread/start")).toHaveLength(1);
    expect(runner.sessionId).not.toBe("thr_gone");
    expect(h.lines.some((l) => l.includes("could not resume the previous Codex thread") && l.includes("thr_gone"))).toBe(true);
  });
});

describe("CodexRunner: interrupt, steer, compact, clear", () => {
  it("interrupt() ends the turn as interrupted through turn/interrupt", async () => {
    const runner = makeRunner();
    const rec = record(runner);
    await runner.start();
    const turn = runner.sendPrompt("hang");
    await eventually(() => h.calls("turn/start").length === 1);
    await runner.interrupt();
    await turn; // resolves: an interrupted turn is an ended turn
    const [interrupt] = h.calls("turn/interrupt");
    expect(interrupt!.params).toEqual({ threadId: runner.sessionId, turnId: expect.stringMatching(/^turn_/) });
    expect(rec.texts()).toEqual([]);
    await runner.sendPrompt("after");
    expect(rec.texts()).toEqual(["I heard: after"]);
  });

  it("delivers whispers into the running turn with turn/steer when an item completes", async () => {
    const whispers = whispersOnCall(2, [{ action: "CORRECTION", message: "stop looping" }]);
    const { rec } = await oneTurn("steer me", { takeWhispers: whispers.take });
    const [steer] = h.calls("turn/steer");
    expect(steer!.params).toEqual({
      threadId: expect.stringMatching(/^thr_/),
      input: [{ type: "text", text: "[SUPERVISOR/CORRECTION] stop looping", text_elements: [] }],
      expectedTurnId: expect.stringMatching(/^turn_/),
    });
    expect(rec.texts()).toEqual(["steered: [SUPERVISOR/CORRECTION] stop looping"]);
    expect(whispers.calls()).toBeGreaterThanOrEqual(2);
  });

  it("opens the next turn with whispers whose steer came too late", async () => {
    // Taken when the reply item completes: the fake ends the turn before the steer arrives.
    const whispers = whispersOnCall(1, [{ action: "THINK_DEEPER", message: "check the tests" }]);
    const { runner, rec } = await oneTurn("first", { takeWhispers: whispers.take });
    expect(h.calls("turn/steer")).toHaveLength(1);
    await runner.sendPrompt("second");
    expect(h.calls("turn/start")[1]!.params!.input).toEqual([
      { type: "text", text: "[SUPERVISOR/THINK_DEEPER] check the tests", text_elements: [] },
      { type: "text", text: "second", text_elements: [] },
    ]);
    expect(rec.texts()).toEqual(["I heard: first", "I heard: [SUPERVISOR/THINK_DEEPER] check the tests\nsecond"]);
  });

  it("compact() runs thread/compact/start and waits for the compaction turn", async () => {
    const runner = makeRunner();
    const rec = record(runner);
    await runner.start();
    await runner.compact();
    expect(h.calls("thread/compact/start")[0]!.params).toEqual({ threadId: runner.sessionId });
    expect(rec.messages).toEqual([]);
    await runner.sendPrompt("after compaction");
    expect(rec.texts()).toEqual(["I heard: after compaction"]);
  });

  it("compact() during a turn is queued behind it instead of blocking", async () => {
    const runner = makeRunner();
    record(runner);
    await runner.start();
    const turn = runner.sendPrompt("hang");
    await eventually(() => h.calls("turn/start").length === 1);
    await runner.compact(); // resolves at once
    expect(h.calls("thread/compact/start")).toHaveLength(0);
    await runner.interrupt();
    await turn;
    await eventually(() => h.calls("thread/compact/start").length === 1);
  });

  it("clear() starts a new thread", async () => {
    const { runner, rec } = await oneTurn("before");
    const before = runner.sessionId;
    await runner.clear();
    expect(runner.sessionId).not.toBe(before);
    expect(h.calls("thread/start")[1]!.params).toMatchObject({ sessionStartSource: "clear", developerInstructions: `SYSTEM: you are a test agent\n\n${CHANNEL_RULE_NOTE}` });
    await runner.sendPrompt("after");
    expect(h.calls("turn/start")[1]!.params).toMatchObject({ threadId: runner.sessionId });
    expect(rec.texts()).toEqual(["I heard: before", "I heard: after"]);
  });
});

describe("CodexRunner: errors", () => {
  it("reports a missing codex as E_AGENT_COMMAND_NOT_FOUND naming `executable`", async () => {
    const err = await rejection(makeRunner({ codex: { executable: "/nonexistent/bin/codex" } }).start());
    expect(isCultureError(err, "E_AGENT_COMMAND_NOT_FOUND")).toBe(true);
    expect((err as Error).message).toContain("/nonexistent/bin/codex app-server");
    expect((err as Error).message).toContain("executable");
    const notOnPath = await rejection(makeRunner({ extraEnv: { PATH: "/nonexistent" } }).start());
    expect(isCultureError(notOnPath, "E_AGENT_COMMAND_NOT_FOUND")).toBe(true);
  });

  it("rejects start() with E_AGENT_AUTH naming `codex login` when thread/start is refused as unauthorized", async () => {
    const err = await rejection(makeRunner({ extraEnv: { FAKE_CODEX_AUTH: "thread-start" } }).start());
    expect(isCultureError(err, "E_AGENT_AUTH")).toBe(true);
    expect((err as Error).message).toContain("codex login");
    const pid = h.events()[0]!.pid;
    await eventually(() => !processAlive(pid));
  });

  it("rejects the prompt with E_AGENT_AUTH when the turn fails unauthorized", async () => {
    const runner = makeRunner({ extraEnv: { FAKE_CODEX_AUTH: "turn" } });
    const rec = record(runner);
    await runner.start();
    const err = await rejection(runner.sendPrompt("hello"));
    expect(isCultureError(err, "E_AGENT_AUTH")).toBe(true);
    expect((err as Error).message).toContain("codex login");
    expect(rec.exits).toEqual([]);
  });

  it("rejects with E_AGENT_AUTH when turn/start itself is refused as unauthorized", async () => {
    const runner = makeRunner({ extraEnv: { FAKE_CODEX_AUTH: "turn-start" } });
    await runner.start();
    const err = await rejection(runner.sendPrompt("hello"));
    expect(isCultureError(err, "E_AGENT_AUTH")).toBe(true);
  });

  it("retries a turn that failed with a transient error, with backoff", async () => {
    const { rec } = await oneTurn("transient 2", {}, { retry: { attempts: 3, baseDelayMs: 5 } });
    expect(rec.texts()).toEqual(["recovered after 2 failures"]);
    expect(h.calls("turn/start")).toHaveLength(3);
  });

  it("an interrupt while the turn waits to be tried again ends it as interrupted: no retry starts", async () => {
    const runner = makeRunner({}, { retry: { attempts: 3, baseDelayMs: 600_000, maxDelayMs: 600_000 } });
    const rec = record(runner);
    await runner.start();
    const turn = runner.sendPrompt("transient 2");
    await eventually(() => h.lines.some((l) => l.includes("trying again in 600000 ms")));
    await runner.interrupt();
    await turn; // resolves, as an interrupted turn does (it waited 10 minutes before)
    expect(h.calls("turn/start")).toHaveLength(1);
    expect(rec.texts()).toEqual([]);
    expect(runner.isRunning()).toBe(true);
    await runner.sendPrompt("still there?");
    expect(rec.texts()).toEqual(["I heard: still there?"]);
  });

  it("a stop while the turn waits to be tried again ends the wait: the turn is rejected at once", async () => {
    const runner = makeRunner({}, { retry: { attempts: 3, baseDelayMs: 600_000, maxDelayMs: 600_000 } });
    await runner.start();
    const turn = rejection(runner.sendPrompt("transient 2"));
    await eventually(() => h.lines.some((l) => l.includes("trying again in 600000 ms")));
    await runner.stop();
    expect(await turn).toBeInstanceOf(Error);
    expect(h.calls("turn/start")).toHaveLength(1);
  });

  it("gives up after the configured retries with E_AGENT_PROTOCOL", async () => {
    const runner = makeRunner({}, { retry: { attempts: 1, baseDelayMs: 5 } });
    await runner.start();
    const err = await rejection(runner.sendPrompt("transient 5"));
    expect(isCultureError(err, "E_AGENT_PROTOCOL")).toBe(true);
    expect((err as Error).message).toContain("stream disconnected");
    expect(h.calls("turn/start")).toHaveLength(2);
  });

  it("retries requests the server refuses as overloaded (-32001)", async () => {
    const { rec } = await oneTurn("busy?", { extraEnv: { FAKE_CODEX_OVERLOADED: "2" } }, { retry: { baseDelayMs: 5 } });
    expect(rec.texts()).toEqual(["I heard: busy?"]);
    expect(h.calls("turn/start")).toHaveLength(3);
  });

  it("rejects a turn that failed for good with E_AGENT_PROTOCOL, and keeps running", async () => {
    const runner = makeRunner();
    await runner.start();
    const err = await rejection(runner.sendPrompt("fail hard"));
    expect(isCultureError(err, "E_AGENT_PROTOCOL")).toBe(true);
    expect((err as Error).message).toContain("malformed");
    expect(h.calls("turn/start")).toHaveLength(1);
    expect(runner.isRunning()).toBe(true);
  });

  it("calls onExit with the code when the app-server crashes, and rejects the turn", async () => {
    const runner = makeRunner();
    const rec = record(runner);
    await runner.start();
    const err = await rejection(runner.sendPrompt("crash 7"));
    expect(isCultureError(err, "E_AGENT_EXITED")).toBe(true);
    await eventually(() => rec.exits.length === 1);
    expect(rec.exits).toEqual([7]);
    expect(runner.isRunning()).toBe(false);
  });

  it("stop() is idempotent, is not an exit, and kills an app-server that ignores end of input", async () => {
    const runner = makeRunner({ extraEnv: { FAKE_CODEX_STUBBORN: "1" } }, { stopGraceMs: 200 });
    const rec = record(runner);
    await runner.start();
    const pid = h.events()[0]!.pid;
    await Promise.all([runner.stop(), runner.stop()]);
    await runner.stop();
    expect(processAlive(pid)).toBe(false);
    expect(rec.exits).toEqual([]);
    expect(runner.isRunning()).toBe(false);
    expect(h.lines.some((l) => l.includes("sending SIGKILL"))).toBe(true);
  });
});
