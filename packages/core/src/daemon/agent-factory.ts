/**
 * Making the agent daemon's two model-driven parts from its config: the agent's runner (from
 * the backend, with culture's system prompt, the permission policy and the whisper queue) and
 * the window supervisor (with the evaluator the config names).
 */
import type { PermissionDecision, PermissionRequest } from "../approvals/permission-request.js";
import type { AgentRunnerBase } from "../agent-runner.js";
import type { BackendDefinition, Whisper } from "../backend.js";
import type { AgentConfig, CultureConfig, PermissionsConfig } from "../config/schema.js";
import type { DaemonHooks } from "../hooks.js";
import type { Logger } from "../logger.js";
import type { WhisperAction } from "../supervisor-base.js";
import type { AgentSandbox } from "../sandbox/agent-sandbox.js";
import { effectiveSandbox } from "../sandbox/sandbox-config.js";
import { lazyPart } from "./lazy-part.js";
import { createEvaluator } from "../supervisor/create-evaluator.js";
import { WindowSupervisor } from "../supervisor/window-supervisor.js";
import { buildAgentPrompt } from "./agent-prompt.js";
import type { RetryAnnouncement } from "./retry-notice.js";

/** What both factories need to know about the agent. */
export interface AgentParts {
  nick: string;
  config: CultureConfig;
  agent: AgentConfig;
  backend: BackendDefinition;
  backendOptions: unknown;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  loadBackend: ((name: string) => Promise<BackendDefinition>) | undefined;
}

/** The environment the agent (and an agent-backed evaluator) runs with: the daemon's plus CULTURE_NICK. */
export function agentEnv(p: Pick<AgentParts, "env" | "nick">): Record<string, string | undefined> {
  return { ...p.env, CULTURE_NICK: p.nick };
}

/** The sandbox code (sandbox/daemon-sandbox.ts), loaded only for an agent whose config sandboxes it. */
function loadSandbox(p: Pick<AgentParts, "logger">) {
  return lazyPart("sandbox", () => import("./lazy-modules.js"), p.logger)();
}

/** The agent's sandbox (with the egress bridge when its network is off), or null without one. */
async function agentSandbox(p: AgentParts, env: Record<string, string | undefined>, permissions: PermissionsConfig): Promise<AgentSandbox | null> {
  if (effectiveSandbox(p.config, p.agent).kind === "none") return null;
  const { agentSandboxFor, withEgressBridge } = await loadSandbox(p);
  const { nick, agent, backend } = p;
  const sandbox = agentSandboxFor({ nick, config: p.config, agent, backend, backendOptions: p.backendOptions, env, permissions });
  if (sandbox && sandbox.spec.network === "off") {
    return withEgressBridge(sandbox, { nick, backend: backend.name, backendOptions: p.backendOptions, env, allow: sandbox.spec.allow, logger: p.logger.child("sandbox") });
  }
  return sandbox;
}

/** Closes the agent's egress bridge, if its sandbox has one (nothing to load without a sandbox). */
export async function closeAgentSandbox(p: AgentParts): Promise<void> {
  if (effectiveSandbox(p.config, p.agent).kind === "none") return;
  await (await loadSandbox(p)).closeEgressBridge(p.nick, agentEnv(p));
}

/** A new runner for the agent (resuming `previousSessionId` when the backend can). */
export async function createAgentRunner(
  p: AgentParts,
  previousSessionId: string | null,
  extra: {
    hooks: DaemonHooks;
    permissions: PermissionsConfig;
    takeWhispers: () => Whisper[];
    requestPermission: (request: PermissionRequest) => Promise<PermissionDecision>;
    retrying?: (retry: RetryAnnouncement) => void;
  },
): Promise<AgentRunnerBase> {
  const { nick, agent, backend } = p;
  const env = agentEnv(p);
  const sandbox = await agentSandbox(p, env, extra.permissions);
  return backend.createRunner({
    nick,
    agent,
    directory: agent.directory,
    channels: agent.channels,
    model: agent.model ?? backend.defaults?.model ?? null,
    thinking: agent.thinking,
    systemPrompt: buildAgentPrompt({ nick, channels: agent.channels, userPrompt: agent.system_prompt, ircTools: backend.mcpIrcTools ? agent.irc_tools : "cli" }),
    options: p.backendOptions,
    env,
    logger: p.logger.child(backend.name),
    hooks: extra.hooks,
    previousSessionId,
    permissions: extra.permissions,
    takeWhispers: extra.takeWhispers,
    requestPermission: extra.requestPermission,
    ...(extra.retrying ? { retrying: extra.retrying } : {}),
    sandbox,
  });
}

/** Starts the window supervisor with the evaluator the config names. */
export async function startSupervisor(
  p: AgentParts,
  on: { whisper: (message: string, action: WhisperAction) => Promise<void>; escalation: (reason: string) => Promise<void> },
): Promise<WindowSupervisor> {
  const { evaluator, name } = await createEvaluator(p.config.supervisor, {
    nick: p.nick,
    directory: p.agent.directory,
    env: agentEnv(p),
    logger: p.logger.child("evaluator"),
    ...(p.loadBackend ? { loadBackend: p.loadBackend } : {}),
    agentBackend: p.backend,
    agentOptions: p.backendOptions,
  });
  const supervisor = new WindowSupervisor({
    nick: p.nick,
    config: p.config.supervisor,
    evaluator,
    evaluatorName: name,
    logger: p.logger.child("supervisor"),
  });
  supervisor.onWhisper = on.whisper;
  supervisor.onEscalation = on.escalation;
  await supervisor.start();
  return supervisor;
}
