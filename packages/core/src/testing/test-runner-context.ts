import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunnerContext } from "../backend.js";
import type { AgentConfig } from "../config/schema.js";
import { createDaemonHooks } from "../hooks.js";
import { silentLogger } from "../logger.js";

/**
 * A {@link RunnerContext} for tests: nick `test-agent`, a fresh temp directory (the caller
 * removes it), a silent logger, fresh daemon hooks, no whispers, every permission allowed, and the test process's
 * environment plus `CULTURE_NICK`. Anything in `partial` wins.
 */
export function createTestRunnerContext<Options = Record<string, unknown>>(
  partial: Partial<RunnerContext<Options>> = {},
): RunnerContext<Options> {
  const nick = partial.nick ?? partial.agent?.nick ?? "test-agent";
  const directory = partial.directory ?? partial.agent?.directory ?? mkdtempSync(join(tmpdir(), "culture-test-"));
  const agent: AgentConfig = partial.agent ?? {
    nick,
    agent: "test",
    directory,
    channels: partial.channels ?? ["#test"],
    model: partial.model ?? null,
    thinking: partial.thinking ?? "none",
    tags: [],
    system_prompt: null,
    relay: "auto",
    turn_timeout_seconds: 600,
    irc_tools: "both",
    options: {},
  };
  return {
    nick,
    agent,
    directory,
    channels: partial.channels ?? agent.channels,
    model: partial.model ?? agent.model,
    thinking: partial.thinking ?? agent.thinking,
    systemPrompt: partial.systemPrompt ?? "You are a test agent on IRC.",
    options: partial.options ?? ({} as Options),
    env: partial.env ?? { ...process.env, CULTURE_NICK: nick },
    logger: partial.logger ?? silentLogger,
    hooks: partial.hooks ?? createDaemonHooks(),
    previousSessionId: partial.previousSessionId ?? null,
    permissions: partial.permissions ?? { mode: "bypass", allow: [], deny: [], timeout_seconds: 600, on_timeout: "deny", protected: "ask", protected_paths: [] },
    takeWhispers: partial.takeWhispers ?? (() => []),
    requestPermission: partial.requestPermission ?? (async () => ({ behavior: "allow", scope: "once", by: "policy" })),
  };
}
