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
 * takes the granted subset of the requested permissions. `mcpServer/elicitation/request` takes
 * `{action: accept|decline|cancel, content, _meta}`: accepted for culture's own IRC tools,
 * declined otherwise.
 */
import type { Logger } from "@culture/core";
import { IRC_MCP_SERVER_NAME } from "@culture/core/irc-tools";
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
      case "mcpServer/elicitation/request":
        // Codex asks before an MCP tool call when the server's tools require approval (or the
        // user's config says `prompt`). culture's own IRC tools are always allowed; other
        // servers' questions have nobody to answer them.
        if (isIrcToolApproval(p)) {
          logger.debug("allowed a culture IRC tool call", { message: p.message });
          return { action: "accept", content: null, _meta: null };
        }
        logger.info(`declined ${method}`, { server: p.serverName, message: p.message });
        return { action: "decline", content: null, _meta: null };
      case "item/permissions/requestApproval":
        logger.info(`${approve ? "granted" : "refused"} ${method}`);
        return { permissions: approve ? (p.permissions ?? {}) : {}, scope: "turn" };
      default:
        logger.warn(`refused a request culture does not handle: ${method}`);
        throw new RpcRefusal(METHOD_NOT_FOUND, `culture does not handle ${method}`);
    }
  };
}

/**
 * True for Codex's approval question before a tool call of culture's own MCP server: an
 * `mcpServer/elicitation/request` from server `culture` whose `_meta.codex_approval_kind` is
 * `mcp_tool_call` (openai/codex `core/src/mcp_tool_call.rs`, feature `tool_call_mcp_elicitation`,
 * on by default in 0.169).
 */
export function isIrcToolApproval(params: Record<string, unknown>): boolean {
  const meta = params._meta && typeof params._meta === "object" ? (params._meta as Record<string, unknown>) : {};
  return params.serverName === IRC_MCP_SERVER_NAME && meta.codex_approval_kind === "mcp_tool_call";
}
