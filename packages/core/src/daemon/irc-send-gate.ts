/**
 * culture's own IRC tools follow the permissions policy like any tool when they send somewhere
 * other than where the task came from. Without this, a tool allowed unasked was a side door:
 * `culture channel send mallory '<the key>'` sent a secret to a stranger by DM.
 *
 * The gate sits in the daemon's handling of the tools socket, so it covers every client alike
 * (`culture channel`, `culture mcp`, the in-process MCP servers, the reference skill client).
 * A request that puts text on IRC — `irc_send`, `irc_ask`, `irc_topic` with a new topic,
 * `irc_part` with a reason — to a target other than the task's origin becomes a
 * {@link PermissionRequest} `{tool: "IrcSend", kind: "irc", target}` and goes through the same
 * policy and approval desk as the backends' requests: `IrcSend(#dev)` in `permissions.allow`
 * allows it, a `deny` pattern refuses it, mode `ask` posts `[APPROVAL ...]` where the task
 * came from and waits for an operator. Sending to the origin itself is free.
 *
 * The origin (docs/approvals.md, "culture's IRC tools"): the channel of the mention, or the
 * nick that sent the DM, of the turn in flight; a turn that no person started (a resume after a
 * crash, the initial prompt, `/compact`) continues the last task a person gave, so it has that
 * task's origin; with no turn in flight there is no origin, and every target is checked.
 */
import type { PermissionDecision, PermissionRequest } from "../approvals/permission-request.js";
import { errorMessage } from "../errors.js";
import type { IpcRequest, IpcResult, PromptOrigin } from "../events.js";
import { ircLower } from "../irc/case-mapping.js";
import { sanitizeTarget } from "../irc/sanitize.js";
import type { Logger } from "../logger.js";

/** The tool name of these requests in patterns and request lines: `IrcSend`, `IrcSend(#dev)`. */
export const IRC_SEND_TOOL = "IrcSend";

/** Options of {@link IrcSendGate}. */
export interface IrcSendGateOptions {
  /** The origin of the task the agent works on now (see {@link taskOrigin}), or null. */
  origin(): PromptOrigin | null;
  /** The IRC server's CASEMAPPING, to compare targets. */
  caseMapping(): string;
  /** The daemon's permission path: `permissionRequest` taps, then the approval desk. */
  decide(request: PermissionRequest, origin: PromptOrigin | null): Promise<PermissionDecision>;
  logger: Logger;
}

/** What one request would put on IRC, and where. */
export interface OutgoingText {
  /** The target as the IRC server will see it. */
  target: string;
  text: string;
  /** How a request line says it: `send to mallory: ...`. */
  summary: string;
}

/**
 * The origin of the task the agent works on: the turn's own when a person started it;
 * otherwise (a resume, the initial prompt, a system command) the last task a person gave;
 * null when no turn is in flight.
 */
export function taskOrigin(turn: PromptOrigin | null, lastTask: PromptOrigin | null): PromptOrigin | null {
  if (!turn) return null;
  if (turn.replyTo) return turn;
  return lastTask?.replyTo ? lastTask : null;
}

/**
 * The text a request puts on IRC and its target, or null for a request that sends nothing
 * (reads, a topic query, a part without a reason) or whose target is invalid (the handler then
 * refuses it and nothing is sent).
 */
export function outgoingText(req: IpcRequest): OutgoingText | null {
  const raw = typeof req.channel === "string" ? req.channel : null;
  if (raw === null) return null;
  let target: string;
  try {
    target = sanitizeTarget(raw);
  } catch {
    return null;
  }
  const text = (value: unknown): string | null => (typeof value === "string" ? value : null);
  switch (req.type) {
    case "irc_send": {
      const t = text(req.message);
      return t === null ? null : { target, text: t, summary: `send to ${target}: ${t}` };
    }
    case "irc_ask": {
      const t = text(req.question) ?? text(req.message);
      return t === null ? null : { target, text: t, summary: `ask ${target}: ${t}` };
    }
    case "irc_topic": {
      const t = text(req.topic);
      return t === null ? null : { target, text: t, summary: `set the topic of ${target} to: ${t}` };
    }
    case "irc_part": {
      const t = text(req.reason);
      return t === null || t.trim() === "" ? null : { target, text: t, summary: `leave ${target} saying: ${t}` };
    }
    default:
      return null;
  }
}

/** Decides whether one tools-socket request may put its text on IRC. */
export class IrcSendGate {
  constructor(private readonly o: IrcSendGateOptions) {}

  /**
   * Null when the request may go ahead (it sends nothing, it goes to the origin, or the policy
   * or an operator allowed it); otherwise the `ok:false` answer saying why nothing was sent.
   * `closed` (the client went away) withdraws a request waiting for an operator. `precheck`
   * (the command's own checks: joined? online?) runs before the policy is asked, so nobody is
   * asked to approve a send that would be refused anyway; its refusal is the answer.
   */
  async check(req: IpcRequest, closed?: AbortSignal, precheck?: () => Promise<IpcResult | null>): Promise<IpcResult | null> {
    const out = outgoingText(req);
    if (!out) return null;
    const origin = this.o.origin();
    const cm = this.o.caseMapping();
    if (origin?.replyTo && ircLower(origin.replyTo, cm) === ircLower(out.target, cm)) return null;
    const refused = precheck ? await precheck() : null;
    if (refused) return refused;
    const request: PermissionRequest = {
      tool: IRC_SEND_TOOL,
      kind: "irc",
      target: out.target,
      summary: out.summary,
      input: { type: req.type, target: out.target, text: out.text },
      ...(closed ? { signal: closed } : {}),
    };
    let decision: PermissionDecision;
    try {
      decision = await this.o.decide(request, origin);
    } catch (err) {
      this.o.logger.error(`deciding an IrcSend request failed: ${errorMessage(err)}`);
      decision = { behavior: "deny", reason: `culture could not decide the request: ${errorMessage(err)}`, by: "policy" };
    }
    if (decision.behavior === "allow") return null;
    const rule = `${IRC_SEND_TOOL}(${out.target})`;
    const why = origin?.replyTo
      ? `Sending anywhere but where the current task came from (${origin.replyTo}) follows the permissions policy as ${rule}.`
      : `While no task is running, every send follows the permissions policy as ${rule}.`;
    return { ok: false, error: `nothing was sent to ${out.target}: ${decision.reason}. ${why}` };
  }
}
