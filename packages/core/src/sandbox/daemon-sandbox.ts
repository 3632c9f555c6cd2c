/**
 * What an agent daemon runs of the sandbox, as one module it imports only when the agent's
 * config sandboxes it (daemon/agent-factory.ts; issue 30).
 */
export { agentSandboxFor } from "./agent-sandbox.js";
export { closeEgressBridge, withEgressBridge } from "./egress-bridge.js";
