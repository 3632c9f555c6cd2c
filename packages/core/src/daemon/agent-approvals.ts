/**
 * An agent's approvals, built in one place: the desk (its policy with the protected paths, the
 * saved `always` rules and the persisted request ids) and the gate in front of culture's own
 * IRC tools, which asks the desk when they would send elsewhere than the task's origin. The
 * daemon owns the result; this file only wires the parts so agent-daemon.ts stays a table of
 * contents.
 */
import { ApprovalIds } from "../approvals/approval-ids.js";
import { ApprovalRules } from "../approvals/approval-rules.js";
import type { PermissionDecision, PermissionRequest } from "../approvals/permission-request.js";
import { protectedPathsFor } from "../approvals/protected-paths.js";
import type { AgentConfig, CultureConfig, PermissionsConfig } from "../config/schema.js";
import type { PromptOrigin } from "../events.js";
import type { Logger } from "../logger.js";
import { approvalIdsPath, approvalRulesPath } from "../paths.js";
import { ApprovalDesk, type ApprovalDeskOptions } from "./approval-desk.js";
import { IrcSendGate, taskOrigin } from "./irc-send-gate.js";

/** What {@link createAgentApprovals} needs from the daemon. */
export interface AgentApprovalsOptions extends Pick<ApprovalDeskOptions, "say" | "alert" | "waiting"> {
  nick: string;
  config: CultureConfig;
  agent: AgentConfig;
  policy: PermissionsConfig;
  env: NodeJS.ProcessEnv;
  /** Keep rules and ids on disk (false: in memory only). */
  persist: boolean;
  logger: Logger;
  /** The turn in flight's origin, and the last task a person gave. */
  origins: () => { turn: PromptOrigin | null; lastTask: PromptOrigin | null };
  caseMapping: () => string;
  /** Decides a request (hooks first, then the desk): the gate's requests go the same way as the agent's. */
  decide: (request: PermissionRequest, origin: PromptOrigin | null) => Promise<PermissionDecision>;
}

/** The desk and the IRC-tools gate of one agent. */
export function createAgentApprovals(o: AgentApprovalsOptions): { desk: ApprovalDesk; gate: IrcSendGate } {
  const desk = new ApprovalDesk({
    nick: o.nick,
    directory: o.agent.directory,
    policy: o.policy,
    protect: protectedPathsFor(o.config, o.agent, o.policy.protected_paths ?? [], o.env),
    rules: new ApprovalRules(o.persist ? approvalRulesPath(o.nick, o.env) : null, o.logger),
    ids: new ApprovalIds(o.persist ? approvalIdsPath(o.nick, o.env) : null, o.logger),
    logger: o.logger,
    say: o.say,
    defaultTarget: () => o.agent.channels[0] ?? null,
    alert: o.alert,
    waiting: o.waiting,
  });
  const gate = new IrcSendGate({
    origin: () => {
      const { turn, lastTask } = o.origins();
      return taskOrigin(turn, lastTask);
    },
    caseMapping: o.caseMapping,
    decide: o.decide,
    logger: o.logger,
  });
  return { desk, gate };
}
