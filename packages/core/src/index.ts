// The public API of @culture/core. The only barrel: everything else imports the file it needs.
// Areas append their exports below in their own block.

export * from "./agent-message.js";
export * from "./agent-runner.js";
export * from "./supervisor-base.js";
export * from "./verdict.js";
export * from "./backend.js";
export * from "./approvals/permission-request.js";
export * from "./approvals/permission-pattern.js";
export * from "./approvals/permission-policy.js";
export { analyzeShellCommand, plainArgv, type ShellAnalysis, type ShellSimpleCommand, type ShellWord } from "./approvals/shell-command.js";
export { initShellParser } from "./approvals/shell-parser.js";
export * from "./approvals/real-path.js";
export * from "./approvals/protected-paths.js";
export * from "./approvals/shell-path-arguments.js";
export * from "./approvals/policy-routing.js";
export * from "./approvals/approval-text.js";
export type { PendingApproval } from "./daemon/approval-desk.js";
export * from "./events.js";
export * from "./hooks.js";
export * from "./errors.js";
export * from "./logger.js";
export * from "./config/schema.js";

// Configuration: loading, did-you-mean, config check output.
export * from "./did-you-mean.js";
export * from "./config/load-config.js";
export * from "./config/config-to-yaml.js";
export * from "./config/field-lines.js";
export * from "./config/config-fingerprint.js";

// Buffer + IPC: the message buffer, JSON Lines framing, the IPC socket server and client.
export * from "./buffer/message-buffer.js";
export * from "./ipc/json-lines.js";
export * from "./ipc/ipc-server.js";
export * from "./ipc/ipc-client.js";
export * from "./ipc/control-token.js";
export { IRC_SEND_TOOL } from "./daemon/irc-send-gate.js";
export { TOOLS_IPC_TYPES, CONTROL_IPC_TYPES, isControlType } from "./daemon/ipc-access.js";
export { PRESENCE_STATES, PRESENCE_TAG, PRESENCE_VERSION, parsePresenceLine, presenceLine, awayText, formatSeconds, type ParsedPresence, type Presence, type PresenceStateName } from "./daemon/presence-state.js";
export { PRESENCE_QUERY } from "./daemon/presence-publisher.js";
export { presenceConfigOf } from "./daemon/agent-presence.js";

// Supervisor + alerts: the WindowSupervisor, evaluators, deterministic signals, alert texts, #alerts + webhooks.
export * from "./supervisor/system-prompt.js";
export * from "./supervisor/evidence.js";
export { buildEvaluationPrompt, type EvaluationPromptInput } from "./supervisor/evaluation-prompt.js";
export * from "./supervisor/window-supervisor.js";
export * from "./supervisor/command-evaluator.js";
export * from "./supervisor/create-evaluator.js";
export * from "./alerts/alert-texts.js";
export * from "./alerts/alert-dedupe.js";
export * from "./alerts/alerts.js";

// Backend discovery: candidates, resolve + load (separate steps), options, plugins, listing.
export * from "./discovery/candidates.js";
export {
  resolveBackend,
  searchPlaces,
  globalModulesDir,
  type BackendSource,
  type ResolveBackendOptions,
  type ResolvedBackend,
  type SearchPlace,
} from "./discovery/resolve-backend.js";
export { loadBackend, loadResolvedBackend, type LoadedBackend, type LoadBackendOptions } from "./discovery/load-backend.js";
export * from "./discovery/assert-backend.js";
export * from "./discovery/backend-options.js";
export * from "./discovery/load-plugins.js";
export * from "./discovery/list-backends.js";
export * from "./discovery/known-backends.js";
export { installedBackendNames } from "./discovery/backend-folders.js";

// IRC transport: the connection, safe line building (sanitize, split, rate limit), mentions.
export * from "./irc/irc-transport.js";
export * from "./irc/split-message.js";
export * from "./irc/sanitize.js";
export * from "./irc/mentions.js";
export * from "./irc/case-mapping.js";
export * from "./irc/token-bucket.js";

// The agent daemon (lead).
export * from "./daemon/agent-daemon.js";
export * from "./daemon/create-daemon.js";
export * from "./daemon/agent-prompt.js";
export * from "./daemon/circuit-breaker.js";
export * from "./daemon/operators.js";
export * from "./daemon/relay-plugin.js";
export * from "./daemon/ipc-handlers.js";
export * from "./daemon/join-refusals.js";
export type { DaemonState, DaemonFacts, StateChange, StateTransition } from "./daemon/daemon-state.js";
export * from "./process/pid-file.js";
export * from "./process/find-executable.js";
export * from "./process/child-process.js";
export * from "./process/agent-process.js";
export * from "./process/agent-record.js";
export * from "./process/own-group.js";
export * from "./runner/managed-runner.js";
export * from "./paths.js";
export * from "./private-files.js";
export * from "./identity/local-credentials.js";

// Usage metering: the per-turn record, the durable usage journal, totals, prices.
export * from "./usage/usage-record.js";
export * from "./usage/usage-journal.js";
export * from "./usage/usage-totals.js";
export * from "./usage/prices.js";
export * from "./usage/usage-meter.js";
export * from "./usage/usage-files.js";
// sandbox (issue #29): the config and the types; its code (bwrap, podman, the egress proxy)
// loads only for a sandboxed agent or doctor's checks (daemon/lazy-modules.ts, issue 30).
export * from "./sandbox/sandbox-config.js";
export { sandboxChecks } from "./sandbox/sandbox-checks.js";
export * from "./sandbox/sandbox-errors.js";
export type { SandboxAgentPaths, SandboxBind, SandboxExtra, SandboxContext, SandboxedCommand } from "./sandbox/sandbox-command.js";
export type { AgentSandbox, AgentSandboxInput } from "./sandbox/agent-sandbox.js";
export type { EgressOrigin } from "./sandbox/egress-origins.js";
export type { EgressProxy, EgressRefusal } from "./sandbox/egress-proxy.js";
// Schedules (docs/schedules.md): what status and `culture schedule list` show of each.
export type { ScheduleView } from "./daemon/schedules.js";
// Fatal vs transient agent failures, and context care (docs/schedules.md, issue 28).
export * from "./agent-failure.js";
export type { RetryAnnouncement } from "./daemon/retry-notice.js";
export * from "./transient-retry.js";
export { contextConfigOf, contextWarningText, shareOf, type ContextStatus } from "./daemon/context-care.js";
export { contextSchema, type ContextConfig } from "./config/context-schema.js";
