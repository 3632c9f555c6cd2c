/**
 * The folders an ACP agent CLI keeps its config, sessions and sign-in in, which a sandbox
 * (`sandbox: bwrap`) binds read-write: found from the words of `acp_command` (`opencode acp`,
 * `npx @google/gemini-cli --experimental-acp`, ...). An agent culture does not know gets none:
 * it sees only its directory, and `sandbox.read_write` can add what it needs.
 */
import type { SandboxAgentPaths } from "@culture/core";
import { basename, join } from "node:path";

/** The sandbox folders for an `acp_command`, given the agent's environment and HOME. */
export function acpSandboxPaths(command: readonly string[], env: Record<string, string | undefined>, home: string): SandboxAgentPaths {
  const words = command.map((w) => basename(w).toLowerCase());
  const has = (name: string) => words.some((w) => w.includes(name));
  const xdg = (variable: string, fallback: string) => env[variable] || join(home, fallback);
  const dirs: string[] = [];
  const files: string[] = [];
  if (has("opencode")) {
    for (const [variable, fallback] of [
      ["XDG_DATA_HOME", ".local/share"],
      ["XDG_CONFIG_HOME", ".config"],
      ["XDG_STATE_HOME", ".local/state"],
      ["XDG_CACHE_HOME", ".cache"],
    ] as const) {
      dirs.push(join(xdg(variable, fallback), "opencode"));
    }
  }
  if (has("gemini")) dirs.push(env.GEMINI_CLI_HOME ? join(env.GEMINI_CLI_HOME, ".gemini") : join(home, ".gemini"));
  if (has("copilot")) dirs.push(env.COPILOT_HOME || join(home, ".copilot"));
  if (has("claude")) {
    if (env.CLAUDE_CONFIG_DIR) dirs.push(env.CLAUDE_CONFIG_DIR);
    else {
      dirs.push(join(home, ".claude"));
      files.push(join(home, ".claude.json"));
    }
  }
  return { dirs, files, readOnly: [join(home, ".agents", "skills")] };
}
