/**
 * Answers to the app-server's requests to culture. With `permissions.mode: bypass` culture
 * starts threads with `approvalPolicy: "never"`, so approvals should not come; when they do (an
 * older Codex, or a user config that forces them) the runner approves them and the evaluator
 * declines them (it may not act). Otherwise the runner asks culture (codex-approvals.ts).
 * Every other request is refused with "method not found", so the server is never left waiting.
 *
 * Decision values (openai/codex `v2/item.rs` and `protocol.rs`): the v2 approvals take
 * `accept` / `decline`; the older `execCommandApproval` / `applyPatchApproval` take the
 * snake_case `ReviewDecision` (`approved` / `denied`); `item/permissions/requestApproval`
 * takes the granted subset of the requested permissions. `mcpServer/elicitation/request` takes
 * `{action: accept|decline|cancel, content, _meta}`: accepted for culture's own IRC tools,
 * answered like any approval for another server's tool call, declined for forms and URLs.
 */
import type { Logger } from "@culture/core";
import { IRC_MCP_SERVER_NAME } from "@culture/core/irc-tools";
import { METHOD_NOT_FOUND } from "./app-server-protocol.js";
import { RpcRefusal } from "./app-server-client.js";
import { answerApproval, approvalQuestion, type ApprovalAsker } from "./codex-approvals.js";

/** How approval requests are answered: always yes, always no, or by asking culture. */
export type ApprovalAnswer = "approve" | "decline";

/** An `onServerRequest` handler (see {@link AppServerClientOptions}). */
export type ServerRequestHandler = (method: string, params: unknown, signal: AbortSignal) => Promise<unknown>;

/**
 * Builds an `onServerRequest` handler: approvals are answered with `answer` (a fixed answer,
 * or an {@link ApprovalAsker} that asks culture), culture's own IRC tools are always allowed,
 * other MCP elicitations (forms, URLs) are declined, and anything else is refused.
 */
export function serverRequestHandler(answer: ApprovalAnswer | ApprovalAsker, logger: Logger): ServerRequestHandler {
  return async (method, params, signal) => {
    const p = (params && typeof params === "object" ? params : {}) as Record<string, unknown>;
    if (method === "mcpServer/elicitation/request" && isIrcToolApproval(p)) {
      logger.debug("allowed a culture IRC tool call", { message: p.message });
      return { action: "accept", content: null, _meta: null };
    }
    const question = approvalQuestion(method, p, typeof answer === "object" ? (id) => answer.changedPaths(id) : () => []);
    if (!question) {
      if (method === "mcpServer/elicitation/request") {
        // A form or URL an MCP server wants filled in: there is nobody at a keyboard.
        logger.info(`declined ${method}`, { server: p.serverName, message: p.message });
        return { action: "decline", content: null, _meta: null };
      }
      logger.warn(`refused a request culture does not handle: ${method}`);
      throw new RpcRefusal(METHOD_NOT_FOUND, `culture does not handle ${method}`);
    }
    const what = { summary: question.request.summary };
    if (answer === "approve") {
      logger.info(`approved ${method}`, what);
      return question.allow;
    }
    if (answer === "decline") {
      logger.info(`declined ${method}`, what);
      return question.deny;
    }
    const result = await answerApproval(question, answer, signal);
    logger.info(`${result === question.allow ? "allowed" : "denied"} ${method}`, what);
    return result;
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
