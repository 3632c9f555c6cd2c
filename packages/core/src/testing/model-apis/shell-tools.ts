/**
 * How each agent's shell tool takes a command, so that a script can say `{shell: "..."}` and
 * the scripted API calls whichever shell tool the agent offered. Keyed by tool name.
 */
import type { ModelRequest } from "./model-request.js";

/** Builds the tool input that runs `command` with one agent's shell tool. */
export type ShellToolInput = (command: string) => Record<string, unknown>;

/** Shell tools of the real agent CLIs, by the name they offer the model. */
export const SHELL_TOOLS: Readonly<Record<string, ShellToolInput>> = Object.freeze({
  // Claude Code 2.1.330: {command (required), timeout?, description?, run_in_background?,
  // dangerouslyDisableSandbox?}, no other keys (additionalProperties: false). The output comes
  // back as the tool result's text, "(Bash completed with no output)" when there was none.
  Bash: (command) => ({ command, description: "Run a shell command" }),
  // OpenCode 1.18.33 (`{command, timeout?, workdir?}`; it ignores the extra description) and
  // Copilot (`{command, description}`)
  bash: (command) => ({ command, description: "Run a shell command" }),
  // Codex 0.169 (unified exec): {cmd (required), workdir, shell, login, tty, yield_time_ms,
  // max_output_tokens, sandbox_permissions, justification, prefix_rule}; it runs `bash -lc cmd`.
  exec_command: (command) => ({ cmd: command }),
  // Codex (classic shell tool)
  shell: (command) => ({ command: ["bash", "-lc", command] }),
  // Gemini CLI 0.61.0 (`{command, description?, dir_path?, is_background?, delay_ms?}`)
  run_shell_command: (command) => ({ command, description: "Run a shell command" }),
});

/**
 * The shell tool call for `command` among the tools this request offers.
 * @throws when the request offers no known shell tool (the error lists what it offered).
 */
export function shellToolCall(req: ModelRequest, command: string): { name: string; input: Record<string, unknown> } {
  const name = req.tools.find((t) => Object.hasOwn(SHELL_TOOLS, t));
  if (!name) {
    throw new Error(`scripted model API: the ${req.api} request offers no known shell tool (tools: ${req.tools.join(", ") || "none"})`);
  }
  return { name, input: SHELL_TOOLS[name]!(command) };
}
