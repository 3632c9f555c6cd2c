import { isCultureError, type AgentMessage, type PermissionRequest } from "@culture/core";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AcpRunner } from "../src/acp-runner.js";
import { noteSessionCreated, sessionLoadDelayMs } from "../src/session-load-quirks.js";
import { createHarness, eventually, processAlive, record, type Harness } from "./fake-agent-harness.js";

let h: Harness;
const runners: AcpRunner[] = [];

beforeEach(() => {
  h = createHarness();
});

afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.stop();
  h.cleanup();
});

function makeRunner(overrides: Parameters<Harness["context"]>[0] = {}, settings = {}): AcpRunner {
  const runner = new AcpRunner(h.context(overrides), settings);
  runners.push(runner);
  return runner;
}

/** Starts a runner and sends one prompt; returns what the turn produced. */
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

describe("AcpRunner: normalization", () => {
  it("joins the reply's chunks into one text message at the end of the turn", async () => {
    const { rec } = await oneTurn("hello there");
    expect(rec.texts()).toEqual(["I heard: hello there"]);
    expect(rec.messages).toHaveLength(1);
    expect(rec.messages[0]).toMatchObject({ type: "assistant", model: "fake-small" });
  });

  it("turns thought chunks into one thinking block", async () => {
    const { rec } = await oneTurn("think hard");
    expect(rec.messages).toHaveLength(1);
    expect(rec.messages[0]!.content).toEqual([
      { type: "thinking", thinking: "Let me think." },
      { type: "text", text: "Thought about it." },
    ]);
  });

  it("reports a tool call and its result as they happen, before the turn's text", async () => {
    const { rec } = await oneTurn("tool please");
    const kinds = rec.messages.map((m) => m.content.map((b) => b.type).join("+"));
    expect(kinds).toEqual(["tool_use", "tool_result", "text"]);
    const [use] = blocks(rec.messages, "tool_use");
    const [result] = blocks(rec.messages, "tool_result");
    expect(use).toMatchObject({ name: "Read notes.txt", input: { path: "notes.txt" } });
    expect(use!.id).toMatch(/^call-/);
    expect(result).toEqual({ type: "tool_result", tool_use_id: use!.id, content: { text: "the notes" } });
  });

  it("marks a failed tool call's result as an error", async () => {
    const { rec } = await oneTurn("tool fail");
    const [result] = blocks(rec.messages, "tool_result");
    expect(result).toMatchObject({ is_error: true, content: { error: "no such file" } });
  });

  it("reports usage from the prompt response", async () => {
    const { rec } = await oneTurn("usage please");
    expect(rec.messages.at(-1)!.usage).toEqual({ inputTokens: 20, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });
  });
});

describe("AcpRunner: session", () => {
  it("sends the system prompt as the first turn and never passes its reply to onMessage", async () => {
    const runner = makeRunner({ systemPrompt: "SYSTEM-MARKER be helpful" });
    const rec = record(runner);
    await runner.start();
    expect(rec.messages).toEqual([]);
    await runner.sendPrompt("after");
    const prompts = h.events().filter((e) => e.method === "session/prompt").map((e) => e.params.text);
    expect(prompts).toEqual(["SYSTEM-MARKER be helpful", "after"]);
    expect(JSON.stringify(rec.messages)).not.toContain("SYSTEM-MARKER");
    expect(rec.texts()).toEqual(["I heard: after"]);
  });

  it("initializes with protocol version 1 and advertises only the file system", async () => {
    await oneTurn("hi");
    const init = h.events().find((e) => e.method === "initialize")!;
    expect(init.params).toMatchObject({
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
    });
    const created = h.events().find((e) => e.method === "session/new")!;
    expect(created.params).toMatchObject({ cwd: h.directory, mcpServers: [{ name: "culture", args: ["mcp", "--nick", "test-agent"] }] });
  });

  it("registers `culture mcp` (absolute path, the agent's environment) in session/new unless irc_tools is cli", async () => {
    const bin = join(h.root, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "culture"), "#!/bin/sh\n", { mode: 0o755 });
    await oneTurn("hi", { extraEnv: { PATH: `${bin}:${process.env.PATH ?? ""}` }, acp: { env: { FAKE_EXTRA: "from-config" } } });
    const [server] = (h.events().find((e) => e.method === "session/new")!.params.mcpServers as Array<{ command: string; env: Array<{ name: string; value: string }> }>);
    expect(server!.command).toBe(join(bin, "culture"));
    expect(server!.env).toContainEqual({ name: "CULTURE_NICK", value: "spark-test" });
    expect(server!.env).toContainEqual({ name: "FAKE_EXTRA", value: "from-config" });

    const cli = h.context();
    const runner = makeRunner({ agent: { ...cli.agent, irc_tools: "cli" } });
    await runner.start();
    const created = h.events().filter((e) => e.method === "session/new").at(-1)!;
    expect(created.params).toEqual({ cwd: h.directory, mcpServers: [] });
  });

  it("runs start()'s initial prompt as a normal turn after the system prompt", async () => {
    const runner = makeRunner();
    const rec = record(runner);
    await runner.start("you were restarted");
    expect(rec.texts()).toEqual(["I heard: you were restarted"]);
  });

  it("runs the agent in its directory with the daemon's environment plus `env`", async () => {
    const { runner, rec } = await oneTurn("exec pwd", { acp: { env: { FAKE_EXTRA: "from-config" } } });
    await runner.sendPrompt("exec printf '%s %s' \"$CULTURE_NICK\" \"$FAKE_EXTRA\"");
    expect(rec.texts()).toEqual([h.directory, "spark-test from-config"]);
  });

  it("logs the agent's stderr line by line", async () => {
    await oneTurn("hi");
    expect(h.lines.some((l) => l.includes("fake-acp-agent: ready") && l.includes('stream="stderr"'))).toBe(true);
  });

  it("resumes with session/load after a restart and does not resend the system prompt", async () => {
    const first = makeRunner();
    await first.start();
    await first.sendPrompt("remember this");
    const sessionId = first.sessionId;
    await first.stop();

    const second = makeRunner({ previousSessionId: sessionId });
    const rec = record(second);
    await second.start();
    expect(second.sessionId).toBe(sessionId);
    // The history the agent replays during session/load is not a turn of this runner.
    expect(rec.messages).toEqual([]);
    await second.sendPrompt("and now");
    expect(rec.texts()).toEqual(["I heard: and now"]);

    const pids = [...new Set(h.events().map((e) => e.pid))];
    expect(pids).toHaveLength(2);
    const secondEvents = h.events().filter((e) => e.pid === pids[1]);
    expect(secondEvents.map((e) => e.method)).toEqual(["initialize", "session/load", "session/prompt"]);
    expect(secondEvents[1]!.params).toMatchObject({ sessionId, cwd: h.directory, mcpServers: [{ name: "culture", args: ["mcp", "--nick", "test-agent"] }] });
  });

  it("starts a new session (with the system prompt) when the agent cannot load sessions", async () => {
    const runner = makeRunner({ previousSessionId: "fake-old", extraEnv: { FAKE_ACP_NO_LOAD: "1" } });
    await runner.start();
    expect(h.events().map((e) => e.method)).toEqual(["initialize", "session/new", "session/prompt"]);
    expect(runner.sessionId).not.toBe("fake-old");
  });

  it("falls back to a new session when session/load fails", async () => {
    const runner = makeRunner({ previousSessionId: "fake-unknown" });
    await runner.start();
    expect(h.events().map((e) => e.method)).toEqual(["initialize", "session/load", "session/new", "session/prompt"]);
    expect(h.lines.some((l) => l.includes("could not resume the previous ACP session"))).toBe(true);
  });

  it("says in the daemon status that the history is lost when the previous session could not be resumed", async () => {
    const ctx = h.context({ previousSessionId: "fake-unknown" });
    const runner = new AcpRunner(ctx);
    runners.push(runner);
    await runner.start();
    const status = ctx.hooks.status.call({ description: "idle" } as never) as unknown as Record<string, string>;
    expect(status.history_lost).toMatch(/^session fake-unknown could not be resumed \(.+\); a new session started without its history$/);
    expect(status.description).toMatch(/^idle \(restarted without its history: /);
    // A runner that resumed its session adds nothing.
    const resumed = new AcpRunner({ ...ctx, previousSessionId: runner.sessionId });
    runners.push(resumed);
    await runner.stop();
    await resumed.start();
    expect(ctx.hooks.status.call({ description: "idle" } as never)).toEqual({ description: "idle" });
  });
});

describe("session-load quirks (Gemini CLI names session files by their creation minute)", () => {
  it("waits for the next minute only for gemini-cli, only in the session's creation minute", () => {
    const created = Date.UTC(2026, 10, 25, 4, 48, 34);
    noteSessionCreated("s1", created);
    expect(sessionLoadDelayMs("gemini-cli", "s1", created + 8_000)).toBe(18_000 + 250);
    expect(sessionLoadDelayMs("gemini-cli", "s1", created + 26_000)).toBe(0); // 04:49:00: a new minute
    expect(sessionLoadDelayMs("OpenCode", "s1", created + 8_000)).toBe(0);
    expect(sessionLoadDelayMs("gemini-cli", "unknown", created + 8_000)).toBe(0);
  });
});

describe("AcpRunner: model", () => {
  it("selects the configured model through the session's config option", async () => {
    const { runner, rec } = await oneTurn("which model", { model: "fake-large" });
    const set = h.events().filter((e) => e.method === "session/set_config_option");
    expect(set.map((e) => e.params)).toEqual([{ sessionId: runner.sessionId, configId: "model", value: "fake-large" }]);
    expect(rec.texts()).toEqual(["model: fake-large"]);
    expect(rec.messages[0]!.model).toBe("fake-large");
  });

  it("matches a model by its display name", async () => {
    const { rec } = await oneTurn("which model", { model: "Fake Large" });
    expect(rec.texts()).toEqual(["model: fake-large"]);
  });

  it("warns and keeps the agent's default when the model is not offered", async () => {
    const { rec } = await oneTurn("which model", { model: "gpt-9" });
    expect(h.events().some((e) => e.method === "session/set_config_option")).toBe(false);
    expect(h.lines.some((l) => l.includes("WARN") && l.includes('does not offer the model "gpt-9"'))).toBe(true);
    expect(rec.texts()).toEqual(["model: fake-small"]);
  });

  it("warns when the agent has no model selector", async () => {
    await oneTurn("hi", { model: "fake-large", extraEnv: { FAKE_ACP_NO_CONFIG: "1" } });
    expect(h.lines.some((l) => l.includes("WARN") && l.includes("offers no model selector"))).toBe(true);
  });
});

describe("AcpRunner: client side", () => {
  it("answers a permission request with a one-time allow by default", async () => {
    const { rec } = await oneTurn("permission please");
    expect(rec.texts()).toEqual(["permission: once"]);
  });

  it("answers with a reject option when permission is deny", async () => {
    const { rec } = await oneTurn("permission please", { acp: { permission: "deny" } });
    expect(rec.texts()).toEqual(["permission: reject"]);
  });

  it("with permissions mode ask, routes the request to the daemon and answers with the agent's allow_once", async () => {
    const asked: PermissionRequest[] = [];
    const { rec } = await oneTurn("permission please", {
      permissions: { mode: "ask", allow: [], deny: [], timeout_seconds: 600, on_timeout: "deny", protected: "ask", protected_paths: [] },
      requestPermission: async (request) => {
        asked.push(request);
        return { behavior: "allow", scope: "once", by: "olga" };
      },
    });
    expect(rec.texts()).toEqual(["permission: once"]);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ tool: "edit", kind: "edit", summary: "edit Edit main.ts" });
    expect(asked[0]!.signal).toBeInstanceOf(AbortSignal);
  });

  it("with permissions mode ask, a denial picks reject_once and its reason is the next prompt of the same turn", async () => {
    const { rec } = await oneTurn("permission please", {
      permissions: { mode: "ask", allow: [], deny: [], timeout_seconds: 600, on_timeout: "deny", protected: "ask", protected_paths: [] },
      requestPermission: async () => ({ behavior: "deny", reason: "not on a Friday", by: "olga" }),
    });
    const prompts = h.events().filter((e) => e.method === "session/prompt").map((e) => e.params.text);
    expect(prompts.at(-2)).toBe("permission please");
    expect(prompts.at(-1)).toMatch(/^\[culture\] Permission denied: edit Edit main\.ts \(edit\) was denied by olga: not on a Friday\./);
    expect(rec.texts()[0]).toBe("permission: reject");
  });

  it("withdraws an open request when the turn is interrupted: the signal aborts and the agent gets `cancelled`", async () => {
    const asked: PermissionRequest[] = [];
    const runner = makeRunner({
      permissions: { mode: "ask", allow: [], deny: [], timeout_seconds: 600, on_timeout: "deny", protected: "ask", protected_paths: [] },
      requestPermission: (request) => {
        asked.push(request);
        return new Promise(() => undefined); // nobody answers
      },
    });
    const rec = record(runner);
    await runner.start();
    const turn = runner.sendPrompt("permission please");
    await eventually(() => asked.length === 1);
    await runner.interrupt();
    await turn;
    expect(asked[0]!.signal!.aborted).toBe(true);
    expect(rec.texts()).toEqual(["permission: cancelled"]);
  });

  it("in bypass mode never calls requestPermission", async () => {
    let called = false;
    const { rec } = await oneTurn("permission please", {
      requestPermission: async () => {
        called = true;
        return { behavior: "deny", reason: "no", by: "test" };
      },
    });
    expect(rec.texts()).toEqual(["permission: once"]);
    expect(called).toBe(false);
  });

  it("in bypass mode with deny patterns, routes every request to the daemon (deny applies in every mode)", async () => {
    const asked: PermissionRequest[] = [];
    const { rec } = await oneTurn("permission please", {
      permissions: { mode: "bypass", allow: [], deny: ["Edit(main.ts)"], timeout_seconds: 600, on_timeout: "deny", protected: "ask", protected_paths: [] },
      requestPermission: async (request) => {
        asked.push(request);
        return { behavior: "deny", reason: "the permissions.deny pattern Edit(main.ts) forbids this", by: "policy" };
      },
    });
    expect(asked).toHaveLength(1);
    expect(rec.texts()[0]).toBe("permission: reject");
    const prompts = h.events().filter((e) => e.method === "session/prompt").map((e) => e.params.text);
    expect(prompts.at(-1)).toMatch(/was denied by policy: the permissions\.deny pattern Edit\(main\.ts\) forbids this/);
  });

  it("reads and writes files inside the agent's directory", async () => {
    writeFileSync(join(h.directory, "notes.txt"), "line one\nline two\n");
    const { runner, rec } = await oneTurn(`read ${join(h.directory, "notes.txt")}`);
    await runner.sendPrompt(`write ${join(h.directory, "sub", "new.txt")} fresh content`);
    expect(rec.texts()).toEqual(["content: line one\nline two\n", "written"]);
    expect(readFileSync(join(h.directory, "sub", "new.txt"), "utf8")).toBe("fresh content");
  });

  it("refuses paths outside the agent's directory, through .. and through symlinks", async () => {
    const outside = join(h.root, "secret.txt");
    writeFileSync(outside, "secret");
    symlinkSync(h.root, join(h.directory, "escape"));
    const { runner, rec } = await oneTurn(`read ${outside}`);
    await runner.sendPrompt(`read ${join(h.directory, "..", "secret.txt")}`);
    await runner.sendPrompt(`read ${join(h.directory, "escape", "secret.txt")}`);
    await runner.sendPrompt(`write ${join(h.directory, "escape", "planted.txt")} gotcha`);
    await runner.sendPrompt(`read relative.txt`);
    const texts = rec.texts();
    expect(texts).toHaveLength(5);
    for (const text of texts.slice(0, 4)) expect(text).toMatch(/^error -32602: .*outside the agent's directory/);
    expect(texts[4]).toMatch(/^error -32602: .*must be absolute/);
    expect(existsSync(join(h.root, "planted.txt"))).toBe(false);
  });

  it("answers requests it does not implement with method-not-found", async () => {
    const { rec } = await oneTurn("unknown-request");
    expect(rec.texts()).toEqual(["error -32601"]);
  });
});

describe("AcpRunner: lifecycle and errors", () => {
  it("interrupt() cancels the turn with session/cancel; sendPrompt resolves", async () => {
    const runner = makeRunner();
    const rec = record(runner);
    await runner.start();
    const turn = runner.sendPrompt("hang until cancelled");
    await eventually(() => h.events().some((e) => e.method === "session/prompt" && e.params.text === "hang until cancelled"));
    await runner.interrupt();
    await turn;
    expect(h.events().some((e) => e.method === "session/cancel" && e.params.sessionId === runner.sessionId)).toBe(true);
    expect(rec.texts()).toEqual(["Working on it..."]);
    expect(runner.isRunning()).toBe(true);
    await runner.sendPrompt("still there?");
    expect(rec.texts().at(-1)).toBe("I heard: still there?");
  });

  it("tries a turn again after a transient error answer (api_retries), and an interrupt during the wait ends it as cancelled", async () => {
    const fast = makeRunner({ acp: { api_retries: 2, api_retry_delay_seconds: 0.01 } });
    const quick = record(fast);
    await fast.start();
    await fast.sendPrompt("overloaded 2 then fine");
    expect(quick.texts()).toEqual(["I heard: overloaded 2 then fine"]);
    expect(h.events().filter((e) => e.method === "session/prompt" && e.params.text === "overloaded 2 then fine")).toHaveLength(3);
    await fast.stop();

    h.lines.length = 0;
    const runner = makeRunner({ acp: { api_retries: 2, api_retry_delay_seconds: 300 } });
    const rec = record(runner);
    await runner.start();
    const prompts = () => h.events().filter((e) => e.method === "session/prompt" && e.params.text === "overloaded 1 again").length;
    const turn = runner.sendPrompt("overloaded 1 again");
    await eventually(() => h.lines.some((l) => l.includes("retrying the turn")));
    await runner.interrupt();
    await turn; // resolves as a cancelled turn does (before, it failed with the 503 after the interrupt)
    expect(prompts()).toBe(1);
    expect(rec.texts()).toEqual([]);
    await runner.sendPrompt("still there?");
    expect(rec.texts()).toEqual(["I heard: still there?"]);
  });

  it("reports a crash to onExit with a non-zero code and rejects the pending prompt", async () => {
    const runner = makeRunner();
    const rec = record(runner);
    await runner.start();
    const error = await runner.sendPrompt("crash").then(
      () => null,
      (err: unknown) => err,
    );
    expect(isCultureError(error, "E_AGENT_EXITED")).toBe(true);
    await eventually(() => rec.exits.length > 0);
    expect(rec.exits).toEqual([3]);
    expect(runner.isRunning()).toBe(false);
  });

  it("throws E_AGENT_AUTH naming the command and its login methods when sign-in is required", async () => {
    const runner = makeRunner({ extraEnv: { FAKE_ACP_AUTH_REQUIRED: "1" } });
    const rec = record(runner);
    const error = await runner.start().then(
      () => null,
      (err: unknown) => err,
    );
    expect(isCultureError(error, "E_AGENT_AUTH")).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain("fake-acp-agent.mjs");
    expect(message).toContain("requires authentication");
    expect(message).toContain("Fake login [fake-login]");
    expect(message).toContain("--login");
    expect(runner.isRunning()).toBe(false);
    const pid = h.events()[0]!.pid;
    await eventually(() => !processAlive(pid));
    expect(rec.exits).toEqual([]);
  });

  it("names the command and acp_command when the command does not exist", async () => {
    const runner = makeRunner({ acp: { acp_command: ["no-such-acp-agent-xyz", "acp"] } });
    const error = await runner.start().then(
      () => null,
      (err: unknown) => err,
    );
    expect(isCultureError(error, "E_AGENT_COMMAND_NOT_FOUND")).toBe(true);
    expect((error as Error).message).toContain('"no-such-acp-agent-xyz acp"');
    expect((error as Error).message).toContain("acp_command");
  });

  it("kills an agent that ignores end of input and SIGTERM; stop() is idempotent", async () => {
    const runner = makeRunner({ extraEnv: { FAKE_ACP_IGNORE_STDIN_EOF: "1" } }, { stopGraceMs: 200 });
    const rec = record(runner);
    await runner.start();
    const pid = h.events()[0]!.pid;
    await Promise.all([runner.stop(), runner.stop()]);
    await runner.stop();
    expect(processAlive(pid)).toBe(false);
    expect(h.lines.some((l) => l.includes("sending SIGKILL"))).toBe(true);
    expect(rec.exits).toEqual([]);
    expect(runner.isRunning()).toBe(false);
  });

  it("lets the agent's `culture channel`-style commands run: exec replies with stdout", async () => {
    const { rec } = await oneTurn("exec echo from-the-shell");
    expect(rec.texts()).toEqual(["from-the-shell"]);
  });
});
