/**
 * The daemon's parts that a default config does not use, as one module (daemon/lazy-part.ts
 * imports it when the config uses one of them or an operator first asks): one chunk in the
 * build rather than one per part, since every extra ES module costs the loader too (issue 30).
 *
 * The import of the barrel below only shapes the build: a module that both the barrel and these
 * parts use would otherwise be split out of the main chunk into chunks of its own (more ES
 * modules for every daemon to load). Everything the barrel holds is loaded by then anyway.
 */
import "../index.js";
export { AgentBudget } from "../budget/agent-budget.js";
export { applyWakeups, createSchedules } from "./wakeups.js";
export { applyActivityMirror } from "./activity-mirror.js";
export { agentSandboxFor, closeEgressBridge, withEgressBridge } from "../sandbox/daemon-sandbox.js";
export { sandboxChecks } from "../sandbox/sandbox-doctor.js";
