/**
 * The `podman run` command line of a `sandbox: { kind: podman }` agent (docs/sandbox.md,
 * "podman"): the agent's directory mounted at the same path and made the working directory,
 * the IRC-tools socket and the agent CLI's own folders mounted, a private /tmp, no
 * capabilities, and `--network none` for `network: off` (with the egress bridge's socket
 * mounted and its forwarder started first, so the model API stays reachable).
 *
 * Environment values are never put on the command line (`ps` shows it to every user): the
 * agent's variables are passed as `-e NAME` and podman takes each value from its own
 * environment, which {@link podmanRunCommand} returns.
 */
import { egressForwarderArgv, egressForwarderConfig } from "./egress-forwarder.js";
import type { EgressOrigin } from "./egress-origins.js";

/** Where the egress bridge's socket appears inside a sandbox. */
export const SANDBOX_EGRESS_SOCKET = "/run/culture/egress.sock";

/** One bind mount. */
export interface PodmanMount {
  source: string;
  /** Inside the container; the same path when left out. */
  target?: string;
  readOnly?: boolean;
}

/** What {@link podmanRunCommand} builds from. */
export interface PodmanRunPlan {
  /** The agent's nick (the container is `culture-<nick>`). */
  agent: string;
  image: string;
  /** The agent's directory (absolute): mounted read-write at the same path, the working directory. */
  directory: string;
  /** More mounts: the IRC-tools socket, the agent CLI's config and session folders. */
  mounts: readonly PodmanMount[];
  /** Empty tmpfs mounts over these paths (protected folders a mount would show). */
  tmpfs?: readonly string[];
  network: "on" | "off";
  /** For `network: off`: the egress proxy's socket on the host and the origins it lets through. */
  egress?: { socket: string; allow: readonly EgressOrigin[] };
  /** The agent's environment. */
  env: Record<string, string | undefined>;
  /** The agent's command line, as the image runs it. */
  argv: readonly string[];
  /** The uid culture runs as (rootless podman maps it into the container with keep-id). */
  uid?: number;
}

/** A command to spawn: `podman` with `args`, and the environment it must get. */
export interface PodmanRunCommand {
  command: "podman";
  args: string[];
  env: Record<string, string>;
}

/** Variables the container must not inherit from the host (they describe the host, not the container). */
const HOST_ONLY = new Set(["PATH", "HOSTNAME", "SHLVL", "PWD", "OLDPWD", "_"]);

/** Builds `podman run ... <image> <argv>` for the plan. */
export function podmanRunCommand(plan: PodmanRunPlan): PodmanRunCommand {
  const args = ["run", "--rm", "-i", "--init", "--replace", "--name", containerName(plan.agent)];
  if (plan.uid !== undefined && plan.uid !== 0) args.push("--userns=keep-id");
  args.push("--cap-drop=all", "--security-opt=no-new-privileges", "--tmpfs", "/tmp");
  args.push("--network", plan.network === "off" ? "none" : "slirp4netns");
  args.push("--volume", `${plan.directory}:${plan.directory}:rw`, "--workdir", plan.directory);
  for (const m of plan.mounts) args.push("--volume", `${m.source}:${m.target ?? m.source}:${m.readOnly ? "ro" : "rw"}`);
  for (const t of plan.tmpfs ?? []) args.push("--tmpfs", t);
  let argv = [...plan.argv];
  if (plan.network === "off" && plan.egress) {
    args.push("--volume", `${plan.egress.socket}:${SANDBOX_EGRESS_SOCKET}:rw`);
    // `node` of the image's PATH: the forwarder needs Node in the image (docs/sandbox.md says so).
    argv = egressForwarderArgv("node", egressForwarderConfig(SANDBOX_EGRESS_SOCKET, plan.egress.allow), argv);
  }
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(plan.env)) {
    if (value === undefined || HOST_ONLY.has(name) || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) continue;
    env[name] = value;
    args.push("--env", name);
  }
  args.push(plan.image, ...argv);
  return { command: "podman", args, env };
}

/** `culture-<nick>`, in the characters podman accepts for a container name. */
export function containerName(agent: string): string {
  return `culture-${agent.replace(/[^A-Za-z0-9_.-]+/g, "-")}`;
}
