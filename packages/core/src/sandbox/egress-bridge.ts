/**
 * `network: off` wired into an agent's sandbox (docs/sandbox.md, "network: off"): one egress
 * proxy per agent daemon ({@link startEgressProxy}), its socket bound into the box next to the
 * IRC-tools socket, and the forwarder ({@link egressForwarderArgv}) put in front of every
 * command the sandbox runs. The proxy lives as long as the daemon (a restarted agent reuses
 * it); the daemon closes it on stop ({@link closeEgressBridge}).
 */
import { mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Logger } from "../logger.js";
import { runtimeDir, socketPathFits, UNIX_SOCKET_PATH_LIMIT } from "../paths.js";
import { socketPathTooLong } from "../errors.js";
import { AgentSandbox } from "./agent-sandbox.js";
import { egressForwarderArgv, egressForwarderConfig } from "./egress-forwarder.js";
import { modelApiOrigins, originText, type EgressOrigin } from "./egress-origins.js";
import { createEgressProxy, type EgressProxy } from "./egress-proxy.js";
import type { SandboxedCommand } from "./sandbox-command.js";
import { podmanSandboxCommand } from "./podman-sandbox.js";

/** The running bridges, by socket path (one per agent daemon; tests run several daemons in one process). */
const bridges = new Map<string, EgressProxy>();

/** `<runtime dir>/culture-<nick>.egress.sock`, next to the agent's IRC-tools socket. */
export function egressSocketPath(nick: string, env: Record<string, string | undefined>): string {
  return join(runtimeDir(env as NodeJS.ProcessEnv), `culture-${nick}.egress.sock`);
}

/** What {@link withEgressBridge} needs to know about the agent. */
export interface EgressBridgeInput {
  nick: string;
  /** The backend's name (its default API hosts). */
  backend: string;
  /** The backend's options (`acp_command` tells ACP agents apart). */
  backendOptions: unknown;
  /** The daemon's environment for the agent (where the runtime dir is). */
  env: Record<string, string | undefined>;
  /** `sandbox.allow`. */
  allow: readonly string[];
  /** Where refusals are logged (the daemon's log). */
  logger?: Logger;
}

/**
 * The sandbox with the bridge: its socket bound in and the forwarder run first. The origins are
 * worked out from the environment of each command (the backend's `env:` is merged in by then),
 * and the agent's proxy is started, or reused while they stay the same. For a bubblewrap box or a podman
 * container with `network: off`.
 */
export function withEgressBridge(sandbox: AgentSandbox, input: EgressBridgeInput): AgentSandbox {
  const socket = egressSocketPath(input.nick, input.env);
  if (!socketPathFits(socket)) throw socketPathTooLong(socket, UNIX_SOCKET_PATH_LIMIT);
  // podman mounts it itself (podman-sandbox.ts); bwrap binds it after its covers (raw args come
  // last), since the runtime dir may be covered by a tmpfs.
  return new BridgedSandbox(sandbox.kind === "bwrap" ? sandbox.withExtra({ args: ["--bind", socket, socket] }) : sandbox, socket, input);
}

/** The agent's proxy for `allow`: the running one when it lets through the same origins. */
function proxyFor(socket: string, allow: readonly EgressOrigin[], input: EgressBridgeInput): EgressProxy {
  let proxy = bridges.get(socket);
  if (proxy && sameOrigins(proxy.allowList, allow)) return proxy;
  proxy?.closeNow();
  mkdirSync(dirname(socket), { recursive: true, mode: 0o700 });
  proxy = createEgressProxy({ socketPath: socket, allow, agent: input.nick, log: (line) => input.logger?.warn(line) });
  bridges.set(socket, proxy);
  input.logger?.info(`network: off; the egress bridge at ${socket} lets through only ${allow.length ? allow.map(originText).join(", ") : "nothing"}`);
  return proxy;
}

/** Closes the agent's bridge (the daemon's stop). */
export async function closeEgressBridge(nick: string, env: Record<string, string | undefined>): Promise<void> {
  const socket = egressSocketPath(nick, env);
  const proxy = bridges.get(socket);
  bridges.delete(socket);
  if (proxy) await proxy.close();
  else rmSync(socket, { force: true });
}

/** An {@link AgentSandbox} whose commands start with the forwarder. */
class BridgedSandbox extends AgentSandbox {
  constructor(
    inner: AgentSandbox,
    private readonly socket: string,
    private readonly input: EgressBridgeInput,
  ) {
    super(inner.spec, inner.context);
  }

  override command(argv: readonly string[], env: Record<string, string | undefined>, cwd?: string): SandboxedCommand {
    const options = this.input.backendOptions as { acp_command?: unknown; provider?: { base_url?: unknown } | null } | null;
    const command = options?.acp_command;
    // Copilot's BYOK provider names its model API in the agent entry (`provider.base_url`).
    const provider = typeof options?.provider?.base_url === "string" ? [options.provider.base_url] : [];
    const allow = modelApiOrigins({
      backend: this.input.backend,
      env,
      allow: [...provider, ...this.input.allow],
      ...(Array.isArray(command) ? { command: command.map(String) } : {}),
    });
    proxyFor(this.socket, allow, this.input);
    if (this.kind === "podman") return podmanSandboxCommand(this.spec, argv, { ...this.context, env, ...(cwd === undefined ? {} : { cwd }) }, { socket: this.socket, allow });
    const boxed = super.command(argv, env, cwd);
    // bwrap's options are flags and absolute paths: the first `--` ends them.
    const sep = boxed.argv.indexOf("--", 1);
    if (sep < 0) return boxed;
    const inner = egressForwarderArgv(process.execPath, egressForwarderConfig(this.socket, allow), boxed.argv.slice(sep + 1));
    return { argv: [...boxed.argv.slice(0, sep + 1), ...inner], env: boxed.env };
  }

  override withExtra(extra: Parameters<AgentSandbox["withExtra"]>[0]): AgentSandbox {
    return new BridgedSandbox(super.withExtra(extra), this.socket, this.input);
  }
}

function sameOrigins(a: readonly EgressOrigin[], b: readonly EgressOrigin[]): boolean {
  return a.length === b.length && a.every((o, i) => o.host === b[i]!.host && o.port === b[i]!.port);
}
