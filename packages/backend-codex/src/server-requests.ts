/**
 * Answers to the app-server's requests to culture. culture starts threads with
 * `approvalPolicy: "never"`, so approvals should not come; when they do (an older Codex, or a
 * user config that forces them) the runner approves them — there is nobody at a keyboard to
 * ask — and the evaluator declines them (it may not act). Every other request is refused with
 * "method not found", so the server is never left waiting.
 *
 * Decision values (openai/codex `v2/item.rs` and `protocol.rs`): the v2 approvals take
 * `accept` / `decline`; the older `execCommandApproval` / `applyPatchApproval` take the
 * snake_case `ReviewDecision` (`approved` / `denied`); `item/permissions/requestApproval`
 * takes the granted subset of the requested permissions.
 */
import type { Logger } from "@culture/core";
import { METHOD_NOT_FOUND } from "./app-server-protocol.js";
import { RpcRefusal } from "./app-server-client.js";

/** How approval requests are answered. */
export type ApprovalAnswer = "approve" | "decline";

/** Builds an `onServerRequest` handler that answers approvals with `answer` and refuses the rest. */
export function serverRequestHandler(answer: ApprovalAnswer, logger: Logger): (method: string, params: unknown) => unknown {
  const approve = answer === "approve";
  return (method, params) => {
    const p = (params && typeof params === "object" ? params : {}) as Record<string, unknown>;
    const what = typeof p.command === "string" ? p.command : Array.isArray(p.command) ? p.command.join(" ") : undefined;
    switch (method) {
      case "item/commandExecution/requestApproval":
      case "item/fileChange/requestApproval":
        logger.info(`${approve ? "approved" : "declined"} ${method}`, what ? { command: what } : {});
        return { decision: approve ? "accept" : "decline" };
      case "execCommandApproval":
      case "applyPatchApproval":
        logger.info(`${approve ? "approved" : "declined"} ${method}`, what ? { command: what } : {});
        return { decision: approve ? "approved" : "denied" };
      case "item/permissions/requestApproval":
        logger.info(`${approve ? "granted" : "refused"} ${method}`);
        return { permissions: approve ? (p.permissions ?? {}) : {}, scope: "turn" };
      default:
        logger.warn(`refused a request culture does not handle: ${method}`);
        throw new RpcRefusal(METHOD_NOT_FOUND, `culture does not handle ${method}`);
    }
  };
}
