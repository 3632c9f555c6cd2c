/**
 * The Copilot session's permission handler. With `permissions.mode: bypass` and no `deny`
 * patterns it approves every request, as culture always did (the agent runs unattended).
 * Otherwise (core's `routesThroughPolicy`: mode ask or allowlist, or bypass with deny patterns,
 * issue #24) each request becomes a culture {@link PermissionRequest} for the daemon
 * (`RunnerContext.requestPermission`), and the decision goes back to the runtime: allow runs
 * the tool; deny rejects it with the reason as the feedback the model reads. In bypass the
 * policy denies what a deny pattern matches and allows the rest without asking anyone.
 * culture's own IRC tools (a request naming the `culture` MCP server) are always allowed.
 *
 * A request the agent withdraws (the turn aborted: the runtime then reports the request
 * `cancelled`; the session stopped; the runtime gone) has its `signal` aborted, and the
 * handler answers nothing, since nobody is waiting for the answer any more.
 */
import { errorMessage, routesThroughPolicy, type Logger, type PermissionDecision, type PermissionRequest, type RunnerContext } from "@culture/core";
import type { PermissionRequest as CopilotPermissionRequest, PermissionRequestResult, SessionEvent } from "@github/copilot-sdk";
import { isCultureIrcTool, toPermissionRequest, toPermissionResult } from "./permission-mapping.js";

/** What {@link CopilotPermissions} needs of the runner's context. */
export type PermissionContext = Pick<RunnerContext, "permissions" | "requestPermission"> & { logger: Logger };

/** Answers one Copilot session's permission requests; owns the requests still waiting for a decision. */
export class CopilotPermissions {
  /** Requests waiting for the daemon, with the tool call they belong to (one call may ask twice in a row: a read outside the directory). */
  private readonly pending = new Set<{ toolCallId: string | undefined; controller: AbortController }>();
  /** The names of the tools that started and have not finished, by tool call id (permission requests carry only the id). */
  private readonly toolNames = new Map<string, string>();

  constructor(private readonly ctx: PermissionContext) {}

  /** The SDK's `onPermissionRequest`. */
  async handle(request: CopilotPermissionRequest): Promise<PermissionRequestResult> {
    if (!routesThroughPolicy(this.ctx.permissions)) return this.approveUnattended(request);
    if (isCultureIrcTool(request)) {
      this.ctx.logger.debug("allowing culture's own IRC tool", { tool: (request as { toolName?: string }).toolName });
      return { kind: "approve-once" };
    }
    const toolCallId = (request as { toolCallId?: string }).toolCallId;
    const entry = { toolCallId, controller: new AbortController() };
    const { controller } = entry;
    this.pending.add(entry);
    const asked: PermissionRequest = { ...toPermissionRequest(request, toolCallId ? this.toolNames.get(toolCallId) : undefined), signal: controller.signal };
    try {
      const decision = await Promise.race([this.ask(asked), withdrawn(controller.signal)]);
      if (!decision) {
        this.ctx.logger.debug("the agent withdrew its permission request", { tool: asked.tool, summary: asked.summary });
        return { kind: "no-result" };
      }
      this.ctx.logger.info(`permission ${decision.behavior === "allow" ? "granted" : "denied"}`, { tool: asked.tool, summary: asked.summary, by: decision.by });
      // Bypass with deny patterns: the policy's allow is nobody's approval, so a request a managed policy reserves for a human is refused as before.
      if (decision.behavior === "allow" && this.ctx.permissions.mode === "bypass") return this.approveUnattended(request);
      return toPermissionResult(decision);
    } finally {
      this.pending.delete(entry);
    }
  }

  /**
   * Session events that concern permissions: which tool a call id is (`tool.execution_start`),
   * and a request the runtime cancelled (`permission.completed` with `cancelled`, e.g. when the
   * turn was aborted) is withdrawn. Completions of our own answers are not: the next request
   * of the same call may already be waiting.
   */
  observe(event: SessionEvent): void {
    if (event.type === "tool.execution_start") this.toolNames.set(event.data.toolCallId, event.data.toolName);
    else if (event.type === "tool.execution_complete") this.toolNames.delete(event.data.toolCallId);
    else if (event.type === "permission.completed" && event.data.result.kind === "cancelled" && event.data.toolCallId) {
      this.withdraw((entry) => entry.toolCallId === event.data.toolCallId);
    }
  }

  /** Withdraws every waiting request (the turn was aborted, the session ended). */
  withdrawAll(): void {
    this.withdraw(() => true);
    this.toolNames.clear();
  }

  private withdraw(which: (entry: { toolCallId: string | undefined }) => boolean): void {
    for (const entry of [...this.pending]) {
      if (!which(entry)) continue;
      this.pending.delete(entry);
      entry.controller.abort();
    }
  }

  /** The daemon's decision; should it fail (it never should), the request is denied with why. */
  private async ask(request: PermissionRequest): Promise<PermissionDecision> {
    try {
      return await this.ctx.requestPermission(request);
    } catch (err) {
      this.ctx.logger.error("asking for a permission failed; denying the request", { tool: request.tool, error: errorMessage(err) });
      return { behavior: "deny", reason: `culture could not get a decision: ${errorMessage(err)}`, by: "policy" };
    }
  }

  /** Bypass: every request is approved once (and logged), except one a managed policy reserves for a human. */
  private approveUnattended(request: CopilotPermissionRequest): PermissionRequestResult {
    const { tool, summary } = toPermissionRequest(request);
    if (request.managedApprovalRequired) {
      this.ctx.logger.warn("a managed policy requires a human to approve this request; refusing it (permissions mode is bypass: nobody is asked)", { tool, summary });
      return { kind: "user-not-available" };
    }
    this.ctx.logger.debug("approving a permission request", { tool, summary });
    return { kind: "approve-once" };
  }
}

/** Resolves with null once `signal` aborts. */
function withdrawn(signal: AbortSignal): Promise<null> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(null);
    else signal.addEventListener("abort", () => resolve(null), { once: true });
  });
}
