/**
 * @culture/core/sandbox: the sandbox's code (bwrap, podman, the egress proxy and bridge,
 * doctor's checks). Not in the @culture/core barrel, so a daemon without a sandbox never loads
 * it (issue 30); the daemon imports what it runs of it from daemon-sandbox.ts when the agent's
 * config sandboxes it. The config schema and the types stay in the barrel.
 */
export * from "./sandbox-command.js";
export { AgentSandbox, agentSandboxFor, type AgentSandboxInput } from "./agent-sandbox.js";
export { BWRAP_INSTALL, findBwrap } from "./bwrap-args.js";
export { sandboxChecks, bwrapCheck, USERNS_FIX } from "./sandbox-doctor.js";
// network off and podman (h-sbx-real)
export { modelApiOrigins, parseEgressOrigin, type EgressOrigin } from "./egress-origins.js";
export { startEgressProxy, type EgressProxy, type EgressRefusal } from "./egress-proxy.js";
export { egressSocketPath, withEgressBridge, closeEgressBridge } from "./egress-bridge.js";
export { podmanDoctorChecks, diagnosePodmanRun, PODMAN_PROBE_ARGS } from "./podman-doctor.js";
export { podmanImageName, ensurePodmanImage, containerfileHash } from "./podman-image.js";
