/**
 * One agent's sandbox, as its runner gets it (`RunnerContext.sandbox`): the `sandbox:` setting
 * plus everything about the agent the argv builder needs (its directory, protected paths,
 * tools socket, its CLI's folders). A backend calls {@link AgentSandbox.command} with the argv
 * and environment it would spawn and spawns what comes back.
 */
import { homedir } from "node:os";
import { isAbsolute } from "node:path";
import { protectedPathsFor, type ProtectedPaths } from "../approvals/protected-paths.js";
import type { BackendDefinition } from "../backend.js";
import type { AgentConfig, CultureConfig, PermissionsConfig } from "../config/schema.js";
import { socketPath } from "../paths.js";
import { effectiveSandbox, type SandboxConfig } from "./sandbox-config.js";
import { sandboxCommand, type SandboxContext, type SandboxedCommand, type SandboxExtra } from "./sandbox-command.js";

/** An agent's sandbox. */
export class AgentSandbox {
  constructor(
    /** The `sandbox:` setting. */
    readonly spec: SandboxConfig,
    /** Everything but the environment and working directory of one spawn. */
    readonly context: Omit<SandboxContext, "env" | "cwd">,
    /**
     * The protected paths for a spawn's environment, when they depend on it: a backend's `env:`
     * may give the agent another HOME (or CODEX_HOME, ...) than the daemon's, and that HOME's
     * `.ssh` is as protected as the daemon's. Default: `context.protectedPaths`.
     */
    private readonly protectedFor?: (env: Record<string, string | undefined>) => ProtectedPaths,
  ) {}

  /** `none`, `bwrap` or `podman`. */
  get kind(): SandboxConfig["kind"] {
    return this.spec.kind;
  }

  /**
   * The argv and environment to spawn for `argv` with `env` (in `cwd`, default the agent's
   * directory). Throws E_SANDBOX_PATH / E_SANDBOX_UNAVAILABLE (sandbox/sandbox-errors.ts).
   */
  command(argv: readonly string[], env: Record<string, string | undefined>, cwd?: string): SandboxedCommand {
    const protectedPaths = this.protectedFor?.(env) ?? this.context.protectedPaths;
    return sandboxCommand(this.spec, argv, {
      ...this.context,
      protectedPaths,
      env,
      ...(cwd === undefined ? {} : { cwd }),
    });
  }

  /** The same sandbox with more binds, environment or arguments (the seam for culture's own helpers). */
  withExtra(extra: SandboxExtra): AgentSandbox {
    const prev = this.context.extra ?? {};
    return new AgentSandbox(
      this.spec,
      {
        ...this.context,
        extra: {
          binds: [...(prev.binds ?? []), ...(extra.binds ?? [])],
          env: { ...prev.env, ...extra.env },
          args: [...(prev.args ?? []), ...(extra.args ?? [])],
        },
      },
      this.protectedFor,
    );
  }
}

/** What {@link agentSandboxFor} needs. */
export interface AgentSandboxInput {
  nick: string;
  config: Pick<CultureConfig, "agents" | "filepath" | "sandbox">;
  agent: Pick<AgentConfig, "nick" | "directory" | "sandbox">;
  backend: Pick<BackendDefinition, "sandboxPaths">;
  backendOptions: unknown;
  /** The agent's environment (HOME, CULTURE_HOME, XDG_RUNTIME_DIR are read). */
  env: Record<string, string | undefined>;
  permissions: Pick<PermissionsConfig, "protected_paths">;
}

/**
 * The agent's sandbox, or null with `sandbox: none`. Checks the configured paths and that the
 * sandbox's program is there at once, so a bad setting stops the agent's start with its error
 * instead of failing every spawn.
 */
export function agentSandboxFor(input: AgentSandboxInput): AgentSandbox | null {
  const spec = effectiveSandbox(input.config, input.agent);
  if (spec.kind === "none") return null;
  const env = input.env;
  const home = env.HOME && isAbsolute(env.HOME) ? env.HOME : homedir();
  const protectedFor = (spawnEnv: Record<string, string | undefined>) => protectedPathsFor(input.config, input.agent, input.permissions.protected_paths, spawnEnv);
  const sandbox = new AgentSandbox(
    spec,
    {
      nick: input.nick,
      directory: input.agent.directory,
      toolsSocket: socketPath(input.nick, env),
      protectedPaths: protectedFor(env),
      agentPaths: input.backend.sandboxPaths?.(input.backendOptions, env, home) ?? { dirs: [] },
    },
    protectedFor,
  );
  // A dry run: refused paths and a missing bwrap are reported now (nothing is spawned).
  sandbox.command(["true"], env);
  return sandbox;
}
