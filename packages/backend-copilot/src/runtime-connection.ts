/**
 * The stdio connection to the Copilot runtime, inside the agent's sandbox when it has one: the
 * SDK spawns `path` with `args` then its own flags, so a sandboxed runtime is `bwrap ... --
 * <runtime>` (a `.js` runtime, which the SDK would run with node, gets node named explicitly).
 */
import { RuntimeConnection } from "@github/copilot-sdk";
import type { AgentSandbox } from "@culture/core";

/** The SDK connection for `runtimePath` with `env`, run in `sandbox` (none: as the SDK would). */
export function runtimeConnection(runtimePath: string, env: Record<string, string>, cwd: string, sandbox: AgentSandbox | null | undefined): ReturnType<typeof RuntimeConnection.forStdio> {
  if (!sandbox) return RuntimeConnection.forStdio({ path: runtimePath, env });
  const argv = runtimePath.endsWith(".js") ? [process.execPath, runtimePath] : [runtimePath];
  const boxed = sandbox.command(argv, env, cwd);
  const boxedEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(boxed.env)) if (value !== undefined) boxedEnv[key] = value;
  return RuntimeConnection.forStdio({ path: boxed.argv[0]!, args: boxed.argv.slice(1), env: boxedEnv });
}
