/**
 * ClaudeRunner through the real Claude Agent SDK against the fake Claude Code CLI: what the
 * CLI is started with, one long-lived session, normalization, whispers at tool boundaries,
 * interrupts, retries of temporary API errors, fatal errors, crashes and resume, and stop.
 */
import { isCultureError, type AgentMessage } from "@culture/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ClaudeRunner } from "../src/claude-runner.js";
import { FAKE_CLAUDE, createHarness, eventually, processAlive, record, settled, whispersOnce, type Harness } from "./fake-claude-harness.js";

let h: Harness;
const runners: ClaudeRunner[] = [];
beforeEach(() => {
  h = createHarness();
});
afterEach(async () => {
  for (const r of runners.splice(0)) await r.stop();
  h.cleanup();
});

function runner(overrides: Parameters<Harness["context"]>[0] = {}, settings: ConstructorParameters<typeof ClaudeRunner>[1] = { stopGraceMs: 2000 }): ClaudeRunner {
  const r = new ClaudeRunner(h.context(overrides), settings);
  runners.push(r);
  return r;
}

const blocks = (messages: AgentMessage[]) => messages.flatMap((m) => m.content);

describe("ClaudeRunner: starting Claude Code", () => {
  it("starts the CLI in the agent's directory with culture's settings and the system prompt appended to Claude Code's", async () => {
    const r = runner({ model: "claude-opus-4-6", thinking: "high", claude: { env: { FAKE_CLAUDE_EXTRA: "from-options" } } });
    await r.start();
    expect(r.isRunning()).toBe(true);
    const [spawn] = h.eventsOf("spawn");
    expect(spawn!.cwd).toBe(h.directory);
    expect(spawn!.argv).toEqual(
      expect.arrayContaining([
        "--input-format",
        "stream-json",
        "--model=claude-opus-4-6",
        "--effort=high",
        "--permission-mode=bypassPermissions",
        "--allow-dangerously-skip-permissions",
      ]),
    );
    expect(spawn!.argv!.some((a) => a.startsWith("--resume"))).toBe(false);
    // The agent's environment: the daemon's (with CULTURE_NICK) plus the agent's env:.
    expect(spawn).toMatchObject({ culture_nick: "spark-test", extra_env: "from-options" });
    expect(spawn!.client_app).toMatch(/^culture\//);
    const [init] = h.eventsOf("initialize");
    expect(init!.request).toMatchObject({ appendSystemPrompt: "SYSTEM: you are a test agent on IRC" });
    expect(Object.keys(init!.request!.hooks as object).sort()).toEqual(["PostToolUse", "PostToolUseFailure"]);
  });

  it("maps thinking none to disabled thinking, and passes the permission mode and tool lists", async () => {
    const r = runner({
      thinking: "none",
      claude: { permission_mode: "acceptEdits", allowed_tools: ["Bash(git:*)", "Read"], disallowed_tools: ["WebFetch"] },
    });
    const rec = record(r);
    await r.start();
    await r.sendPrompt("which model");
    expect(rec.texts()).toEqual([
      "model=claude-fake-default effort=- thinking=disabled permission=acceptEdits skip=false allowed=Bash(git:*),Read,mcp__culture disallowed=WebFetch",
    ]);
  });

  it("reports a missing executable as E_AGENT_COMMAND_NOT_FOUND naming the executable key", async () => {
    const r = runner({ claude: { executable: "/nonexistent/claude" } });
    const outcome = await settled(r.start());
    expect(outcome.ok).toBe(false);
    const error = (outcome as { error: Error }).error;
    expect(isCultureError(error, "E_AGENT_COMMAND_NOT_FOUND")).toBe(true);
    expect(error.message).toContain("executable");
    expect(r.isRunning()).toBe(false);
  });

  it("refuses bypass permissions as root with a message naming the fixes; IS_SANDBOX=1 in env: lets it start", async () => {
    const refused = runner({ extraEnv: { FAKE_CLAUDE_ROOT_REFUSAL: "1" } });
    const outcome = await settled(refused.start());
    const error = (outcome as { error: Error }).error;
    expect(isCultureError(error, "E_AGENT_START_REFUSED")).toBe(true);
    expect(error.message).toContain("as root");
    expect(error.message).toContain('IS_SANDBOX: "1"');
    expect(error.message).toContain("permission_mode");
    expect(refused.isRunning()).toBe(false);
    // Claude Code's stderr went to the log.
    expect(h.lines.some((l) => l.includes("cannot be used with root/sudo privileges"))).toBe(true);

    const sandboxed = runner({ extraEnv: { FAKE_CLAUDE_ROOT_REFUSAL: "1" }, claude: { env: { IS_SANDBOX: "1" } } });
    await sandboxed.start();
    expect(sandboxed.isRunning()).toBe(true);
  });

  it("reports a CLI that exits at startup as E_AGENT_EXITED", async () => {
    const r = runner({ extraEnv: { FAKE_CLAUDE_EXIT_AT_START: "2" } });
    const error = ((await settled(r.start())) as { error: Error }).error;
    expect(isCultureError(error, "E_AGENT_EXITED")).toBe(true);
    expect(error.message).toContain("code 2 during startup");
  });

  it("names the claude it found on PATH in its errors, not the SDK's bundled CLI", async () => {
    const bin = join(h.root, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "claude"), `#!/bin/sh\nexec '${process.execPath}' '${FAKE_CLAUDE}' "$@"\n`);
    chmodSync(join(bin, "claude"), 0o755);
    const r = runner({ claude: { executable: null }, extraEnv: { PATH: bin, FAKE_CLAUDE_EXIT_AT_START: "2" } });
    const error = ((await settled(r.start())) as { error: Error }).error;
    expect(isCultureError(error, "E_AGENT_EXITED")).toBe(true);
    expect(error.message).toContain(`The agent "${join(bin, "claude")} (the claude on PATH)" exited with code 2 during startup`);
    expect(error.message).not.toContain("bundled");
  });
});

describe("ClaudeRunner: turns", () => {
  it("keeps one Claude Code process for the whole session and takes the session id from system/init", async () => {
    const r = runner();
    const rec = record(r);
    expect(r.sessionId).toBe(null);
    await r.start();
    await r.sendPrompt("hello");
    const id = r.sessionId;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await r.sendPrompt("again");
    expect(rec.texts()).toEqual(["I heard: hello", "I heard: again"]);
    expect(h.eventsOf("spawn")).toHaveLength(1);
    expect(h.eventsOf("user").map((e) => e.text)).toEqual(["hello", "again"]);
    expect(r.sessionId).toBe(id);
  });

  it("normalizes text, thinking, tool calls and tool results, and sends the initial prompt as the first turn", async () => {
    const r = runner();
    const rec = record(r);
    await r.start("think first");
    await r.sendPrompt("tools 2");
    expect(blocks(rec.messages).map((b) => b.type)).toEqual(["thinking", "text", "tool_use", "tool_result", "tool_use", "tool_result", "text"]);
    expect(rec.messages[0]).toEqual({
      type: "assistant",
      model: "claude-fake-default",
      content: [{ type: "thinking", thinking: "Let me think about this." }],
    });
    const [use, result] = blocks(rec.messages).slice(2, 4);
    expect(use).toMatchObject({ type: "tool_use", name: "Bash", input: { command: "echo 1" } });
    expect(result).toEqual({ type: "tool_result", tool_use_id: (use as { id: string }).id, content: "1" });
    expect(rec.texts().at(-1)).toBe("ran 2 tools");
  });

  it("runs a shell command the way the agent's Bash tool does", async () => {
    const r = runner();
    const rec = record(r);
    await r.start();
    await r.sendPrompt('exec echo "$CULTURE_NICK says hi"');
    expect(rec.texts()).toEqual(["spark-test says hi"]);
  });

  it("logs and skips messages it does not know, without failing the turn", async () => {
    const r = runner();
    const rec = record(r);
    await r.start();
    await r.sendPrompt("unknown things");
    expect(rec.texts()).toEqual(["still here"]);
    expect(blocks(rec.messages).map((b) => b.type)).toEqual(["text"]);
    expect(h.lines.some((l) => l.includes('culture does not know: message type "fancy_new_thing"'))).toBe(true);
    expect(h.lines.some((l) => l.includes('culture does not know: system message subtype "brand_new_subtype"'))).toBe(true);
  });

  it("delivers queued whispers at the next tool boundary through the PostToolUse hook's additionalContext", async () => {
    const whispers = whispersOnce([{ action: "CORRECTION", message: "Stop re-running the same test." }]);
    const r = runner({ takeWhispers: whispers.take });
    const rec = record(r);
    await r.start();
    await r.sendPrompt("tools 2");
    expect(rec.texts()).toEqual(["ran 2 tools; context: [SUPERVISOR/CORRECTION] Stop re-running the same test."]);
    const hooks = h.eventsOf("hook");
    expect(hooks.map((e) => e.answer?.response?.hookSpecificOutput?.additionalContext ?? null)).toEqual([
      "[SUPERVISOR/CORRECTION] Stop re-running the same test.",
      null,
    ]);
    expect(whispers.calls()).toBe(2);
  });

  it("interrupts a turn with the SDK's interrupt: sendPrompt resolves and the session goes on", async () => {
    const r = runner();
    const rec = record(r);
    await r.start();
    const turn = settled(r.sendPrompt("hang on"));
    await eventually(() => rec.texts().includes("working on it..."));
    await r.interrupt();
    expect(await turn).toEqual({ ok: true, value: undefined });
    expect(h.eventsOf("interrupt")).toHaveLength(1);
    await r.sendPrompt("still there?");
    expect(rec.texts().at(-1)).toBe("I heard: still there?");
    expect(rec.exits).toEqual([]);
  });

  it("queues /compact and /clear as turns of their own after the current one, and reports nothing from them", async () => {
    const r = runner();
    const rec = record(r);
    await r.start();
    const turn = r.sendPrompt("hang until interrupted");
    await eventually(() => rec.texts().includes("working on it..."));
    // Asked from inside the turn (as `culture channel compact` is): it must not wait for the turn.
    await r.compact();
    await r.clear();
    expect(h.eventsOf("user").map((e) => e.text)).toEqual(["hang until interrupted"]);
    await r.interrupt();
    await turn;
    await r.sendPrompt("after");
    expect(h.eventsOf("user").map((e) => e.text)).toEqual(["hang until interrupted", "/compact", "/clear", "after"]);
    expect(rec.texts()).toEqual(["working on it...", "I heard: after"]);
    expect(h.lines.some((l) => l.includes("Claude Code compacted its context"))).toBe(true);
  });
});

describe("ClaudeRunner: API errors", () => {
  it("retries a turn that failed with a temporary API error, without relaying the error text or counting a crash", async () => {
    const r = runner({ claude: { api_retries: 3 } });
    const rec = record(r);
    await r.start();
    await r.sendPrompt("transient 2 then fine");
    expect(h.eventsOf("user").map((e) => e.text)).toEqual(Array(3).fill("transient 2 then fine"));
    expect(rec.texts()).toEqual(["I heard: transient 2 then fine"]);
    expect(rec.exits).toEqual([]);
    expect(h.lines.filter((l) => l.includes("a temporary API error ended the turn; retrying it"))).toHaveLength(2);
  });

  it("an interrupt while the turn waits to be retried ends it: no retry starts, and the next prompt runs", async () => {
    const r = runner({ claude: { api_retries: 3, api_retry_delay_seconds: 300 } });
    const rec = record(r);
    await r.start();
    const turn = r.sendPrompt("transient 2 then fine");
    await eventually(() => h.lines.some((l) => l.includes("a temporary API error ended the turn; retrying it")));
    await r.interrupt();
    await turn;
    expect(h.eventsOf("user").map((e) => e.text)).toEqual(["transient 2 then fine"]);
    await r.sendPrompt("after");
    expect(rec.texts()).toEqual(["I heard: after"]);
  });

  it("gives up after api_retries with E_AGENT_API_ERROR; the session stays up", async () => {
    const r = runner({ claude: { api_retries: 1 } });
    const rec = record(r);
    await r.start();
    const error = ((await settled(r.sendPrompt("transient 9"))) as { error: Error }).error;
    expect(isCultureError(error, "E_AGENT_API_ERROR")).toBe(true);
    expect(error.message).toContain("after 1 retry");
    expect(error.message).toContain("Overloaded");
    expect(h.eventsOf("user")).toHaveLength(2);
    expect(r.isRunning()).toBe(true);
    expect(rec.exits).toEqual([]);
  });

  it("rejects an unauthenticated turn with E_AGENT_AUTH naming claude login and ANTHROPIC_API_KEY, without retrying", async () => {
    const r = runner({ extraEnv: { FAKE_CLAUDE_AUTH_ERROR: "1" } });
    const rec = record(r);
    await r.start();
    const error = ((await settled(r.sendPrompt("hello"))) as { error: Error }).error;
    expect(isCultureError(error, "E_AGENT_AUTH")).toBe(true);
    expect(error.message).toContain("claude login");
    expect(error.message).toContain("ANTHROPIC_API_KEY");
    expect(h.eventsOf("user")).toHaveLength(1);
    // The synthetic "Invalid API key" text is not the agent speaking.
    expect(rec.messages).toEqual([]);
  });

  it("rejects 'Prompt is too long' and billing errors with the fix in the message", async () => {
    const r = runner();
    await r.start();
    const tooLong = ((await settled(r.sendPrompt("too long"))) as { error: Error }).error;
    expect(isCultureError(tooLong, "E_AGENT_API_ERROR")).toBe(true);
    expect(tooLong.message).toContain("context is full");
    expect(tooLong.message).toContain("culture channel compact");
    const billing = ((await settled(r.sendPrompt("billing"))) as { error: Error }).error;
    expect(isCultureError(billing, "E_AGENT_API_ERROR")).toBe(true);
    expect(billing.message).toContain("billing");
    expect(h.eventsOf("user")).toHaveLength(2);
  });
});

describe("ClaudeRunner: exits, resume and stop", () => {
  it("reports a crash to onExit with its code, and a new runner resumes the same session", async () => {
    const first = runner();
    const rec = record(first);
    await first.start();
    await first.sendPrompt("hello");
    const id = first.sessionId!;
    const crashed = await settled(first.sendPrompt("exit 5"));
    expect(isCultureError((crashed as { error: Error }).error, "E_AGENT_EXITED")).toBe(true);
    await eventually(() => rec.exits.length > 0);
    expect(rec.exits).toEqual([5]);
    expect(first.isRunning()).toBe(false);
    expect(first.sessionId).toBe(id);

    const second = runner({ previousSessionId: id });
    const rec2 = record(second);
    await second.start();
    expect(second.sessionId).toBe(id);
    await second.sendPrompt("where were we");
    expect(second.sessionId).toBe(id);
    expect(rec2.texts()).toEqual(["I heard: where were we"]);
    expect(h.eventsOf("spawn")[1]!.argv).toContain(`--resume=${id}`);
  });

  it("does not resume with resume_on_restart: false", async () => {
    const r = runner({ previousSessionId: "0b6a3c1e-0000-4000-8000-000000000000", claude: { resume_on_restart: false } });
    await r.start();
    await r.sendPrompt("hi");
    expect(h.eventsOf("spawn")[0]!.argv!.some((a) => a.startsWith("--resume"))).toBe(false);
    expect(r.sessionId).not.toBe("0b6a3c1e-0000-4000-8000-000000000000");
  });

  it("starts a new session when Claude Code no longer has the one to resume", async () => {
    const r = runner({ previousSessionId: "5f1e0000-0000-4000-8000-00000000dead" });
    await r.start();
    await r.sendPrompt("hi");
    expect(r.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.sessionId).not.toBe("5f1e0000-0000-4000-8000-00000000dead");
    expect(h.eventsOf("spawn")).toHaveLength(2);
    expect(h.lines.some((l) => l.includes("no longer has the session to resume"))).toBe(true);
  });

  it("stops gracefully by ending the input: the CLI exits at EOF and onExit is not called", async () => {
    const r = runner();
    const rec = record(r);
    await r.start();
    await r.sendPrompt("hello");
    await r.stop();
    expect(r.isRunning()).toBe(false);
    expect(h.eventsOf("eof")).toHaveLength(1);
    expect(processAlive(h.eventsOf("spawn")[0]!.pid)).toBe(false);
    expect(rec.exits).toEqual([]);
    await r.stop();
  });

  it("aborts a CLI that ignores the end of its input, and fails the turn in flight", async () => {
    const r = runner({ extraEnv: { FAKE_CLAUDE_IGNORE_EOF: "1" } }, { stopGraceMs: 300 });
    const rec = record(r);
    await r.start();
    const turn = settled(r.sendPrompt("hang forever"));
    await eventually(() => rec.texts().includes("working on it..."));
    await r.stop();
    const outcome = await turn;
    expect(outcome.ok).toBe(false);
    expect(((outcome as { error: Error }).error).message).toContain("stopped during the turn");
    await eventually(() => !processAlive(h.eventsOf("spawn")[0]!.pid));
    expect(rec.exits).toEqual([]);
    expect(r.isRunning()).toBe(false);
  });
});
