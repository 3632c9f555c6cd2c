/**
 * The ACP runner's approvals (issues #20, #24): when the agent's permissions route through
 * culture's policy (mode ask or allowlist, or bypass with `deny` patterns: core's
 * `policyRouting`), each `session/request_permission` goes to the daemon
 * (`ctx.requestPermission`) and is answered with the agent's own option of the decided kind.
 * Requests are read from their structured fields only (permission-request.ts): no title or
 * call id makes a request culture's own IRC tool. ACP's answer has no reason field, so a
 * denial's reason is kept and sent to the model as the next prompt, right after the turn that
 * was denied ends.
 */
import type { RequestPermissionOutcome, RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { routesThroughPolicy, type Logger, type RunnerContext } from "@culture/core";
import { choosePermissionOption } from "./acp-client.js";
import type { AcpOptions } from "./acp-options.js";
import { toPermissionRequest } from "./permission-request.js";

/**
 * OpenCode's permission rules (merged over its config through `OPENCODE_PERMISSION`) that make
 * it ask before it runs a command, changes a file, reads or searches files, or fetches a URL, so
 * `deny` and `allow` patterns over those reach what it does. Its other tools (todo lists, MCP
 * tools) stay allowed by OpenCode: culture's IRC tools are never asked for, and neither are
 * other MCP servers' tools (OpenCode names them `<server>_<tool>` and says nothing more).
 */
export const OPENCODE_ASK_PERMISSIONS = { bash: "ask", edit: "ask", read: "ask", glob: "ask", grep: "ask", list: "ask", webfetch: "ask", websearch: "ask" } as const;

/** Routes one runner's permission requests to the daemon and remembers the denials. */
export class PermissionGate {
  private readonly pending = new Set<AbortController>();
  private denials: string[] = [];

  constructor(
    private readonly ctx: RunnerContext<AcpOptions>,
    private readonly logger: Logger,
  ) {}

  /** Whether requests go to the daemon (core's `routesThroughPolicy`: ask/allowlist, or bypass with deny patterns). */
  get asks(): boolean {
    return routesThroughPolicy(this.ctx.permissions);
  }

  /**
   * Environment that makes the agent ask for its tools: OpenCode's `OPENCODE_PERMISSION`
   * (other agents ignore it). Nothing when nothing routes (bypass without deny patterns); an
   * `OPENCODE_PERMISSION` in the entry's `env` wins over it.
   */
  agentEnv(): Record<string, string> {
    return this.asks ? { OPENCODE_PERMISSION: JSON.stringify(OPENCODE_ASK_PERMISSIONS) } : {};
  }

  /** Answers one `session/request_permission` from the daemon's decision. */
  async answer(params: RequestPermissionRequest): Promise<RequestPermissionOutcome> {
    const request = toPermissionRequest(params.toolCall);
    const controller = new AbortController();
    this.pending.add(controller);
    try {
      // Withdrawn (turn cancelled, agent stopped): ACP wants `cancelled` at once, whatever the daemon does.
      const withdrawn = new Promise<null>((resolve) => controller.signal.addEventListener("abort", () => resolve(null), { once: true }));
      const decision = await Promise.race([this.ctx.requestPermission({ ...request, signal: controller.signal }), withdrawn]);
      if (decision === null || controller.signal.aborted) return { outcome: "cancelled" };
      this.logger.info("permission decided", { tool: request.tool, summary: request.summary, behavior: decision.behavior, by: decision.by });
      if (decision.behavior === "allow") return choosePermissionOption(params.options, "allow");
      this.denials.push(`${request.summary} (${request.tool}) was denied by ${decision.by}: ${decision.reason}`);
      return choosePermissionOption(params.options, "deny");
    } finally {
      this.pending.delete(controller);
    }
  }

  /** Withdraws every open request (the turn was cancelled, or the agent stopped or died). */
  withdraw(): void {
    for (const controller of this.pending) controller.abort();
  }

  /** The prompt that tells the model why its tool calls were denied (once), or null when none were. */
  takeDenialPrompt(): string | null {
    if (this.denials.length === 0) return null;
    const lines = this.denials.splice(0);
    return `[culture] Permission denied: ${lines.join("; ")}. The tool did not run. Do not retry it another way; carry on without it, or ask on IRC.`;
  }
}
