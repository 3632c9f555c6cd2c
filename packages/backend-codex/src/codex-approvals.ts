/**
 * Codex's approval requests as culture permission requests (`permissions.mode` ask or
 * allowlist). The thread runs with `approvalPolicy: "untrusted"`, so Codex asks before every
 * command outside its own known-safe list and before every file change; each question becomes
 * a {@link PermissionRequest} for `ctx.requestPermission`, and the decision becomes Codex's
 * answer.
 *
 * Codex's decline answers carry no text (`CommandExecutionApprovalDecision` and
 * `FileChangeApprovalDecision` are bare `"decline"`; the model is told only that the user
 * rejected the call), so a denial's reason is steered into the turn (`turn/steer`) *before*
 * the decline is answered: the model's next request then holds the rejection and the reason.
 *
 * Request shapes (`codex app-server generate-ts`, 0.169.0): `item/commandExecution/requestApproval`
 * {turnId, itemId, command?, cwd?, reason?}; `item/fileChange/requestApproval` {turnId, itemId,
 * reason?, grantRoot?} (the paths are in the `fileChange` item started before it);
 * `execCommandApproval` {command: string[], cwd, reason}; `applyPatchApproval` {fileChanges:
 * {path: change}, reason, grantRoot}; `item/permissions/requestApproval` {turnId, permissions,
 * reason?}; `mcpServer/elicitation/request` {turnId, serverName, message, _meta:
 * {codex_approval_kind: "mcp_tool_call", tool_params?}} for an MCP tool call.
 */
import type { PermissionDecision, PermissionRequest } from "@culture/core";

/** What the approval handler needs from the runner. */
export interface ApprovalAsker {
  /** culture's decision (the runner's `ctx.requestPermission`). */
  ask(request: PermissionRequest): Promise<PermissionDecision>;
  /** The paths of a `fileChange` item Codex started (its approval request names only the item). */
  changedPaths(itemId: string): string[];
  /** Tells the model why its request was denied, inside the running turn (`turn/steer`). */
  explainDenial(turnId: string | undefined, text: string): Promise<void>;
}

/** A request culture can ask about: the permission request, and how to answer Codex. */
export interface ApprovalQuestion {
  request: Omit<PermissionRequest, "signal">;
  turnId: string | undefined;
  /** Codex's answer for an allow. */
  allow: unknown;
  /** Codex's answer for a deny. */
  deny: unknown;
}

type Params = Record<string, unknown>;

/** The question a Codex approval request asks, or null when `method` is not an approval culture asks about. */
export function approvalQuestion(method: string, p: Params, changedPaths: (itemId: string) => string[]): ApprovalQuestion | null {
  const turnId = typeof p.turnId === "string" ? p.turnId : undefined;
  const why = typeof p.reason === "string" && p.reason ? ` (${p.reason})` : "";
  switch (method) {
    case "item/commandExecution/requestApproval":
    case "execCommandApproval": {
      const command = unwrapShell(Array.isArray(p.command) ? p.command.map(String).join(" ") : typeof p.command === "string" ? p.command : "");
      const legacy = method === "execCommandApproval";
      return {
        request: { tool: "exec_command", kind: "shell", command, summary: `run: ${command}${why}`, input: pick(p, ["command", "cwd", "reason"]) },
        turnId,
        allow: { decision: legacy ? "approved" : "accept" },
        deny: { decision: legacy ? "denied" : "decline" },
      };
    }
    case "item/fileChange/requestApproval":
    case "applyPatchApproval": {
      const legacy = method === "applyPatchApproval";
      const paths = legacy ? Object.keys((p.fileChanges as Params | undefined) ?? {}) : changedPaths(String(p.itemId ?? ""));
      return {
        request: { tool: "apply_patch", kind: "edit", paths, summary: `edit ${paths.join(", ") || "files"}${why}`, input: pick(p, ["itemId", "reason", "grantRoot", "fileChanges"]) },
        turnId,
        allow: { decision: legacy ? "approved" : "accept" },
        deny: { decision: legacy ? "denied" : "decline" },
      };
    }
    case "item/permissions/requestApproval":
      return {
        request: { tool: "request_permissions", kind: "other", summary: `get more permissions: ${JSON.stringify(p.permissions ?? {})}${why}`, input: pick(p, ["permissions", "reason"]) },
        turnId,
        allow: { permissions: p.permissions ?? {}, scope: "turn" },
        deny: { permissions: {}, scope: "turn" },
      };
    case "mcpServer/elicitation/request": {
      const meta = (p._meta && typeof p._meta === "object" ? p._meta : {}) as Params;
      if (meta.codex_approval_kind !== "mcp_tool_call") return null;
      const server = String(p.serverName ?? "");
      return {
        // The request names no tool, only Codex's question (which does): both go in the input, so
        // an `always` rule (kind, tool, exact input) pins this tool's call, not every call of the server.
        request: {
          tool: `mcp__${server}`,
          kind: "mcp",
          summary: typeof p.message === "string" ? p.message : `use a tool of ${server}`,
          input: { message: p.message ?? null, tool_params: meta.tool_params ?? null },
        },
        turnId,
        allow: { action: "accept", content: null, _meta: null },
        deny: { action: "decline", content: null, _meta: null },
      };
    }
    default:
      return null;
  }
}

/** What the model reads after a denial (steered into its turn). */
export function denialText(request: Pick<PermissionRequest, "summary">, decision: Extract<PermissionDecision, { behavior: "deny" }>): string {
  return `[culture] Your request was denied (${request.summary}): ${decision.reason}. Do not retry it the same way.`;
}

/** Asks culture about `question` and answers Codex: allow runs the tool; deny steers the reason in, then declines. */
export async function answerApproval(question: ApprovalQuestion, asker: ApprovalAsker, signal: AbortSignal): Promise<unknown> {
  const decision = await asker.ask({ ...question.request, signal });
  if (decision.behavior === "allow") return question.allow;
  // Withdrawn meanwhile: nobody reads the reason, and the turn may be over.
  if (!signal.aborted) await asker.explainDenial(question.turnId, denialText(question.request, decision));
  return question.deny;
}

/**
 * The command the model wrote, without the shell Codex wraps it in: 0.169 sends
 * `/bin/bash -c "touch x && echo made"` (seen in the real-CLI suite), and policy patterns such
 * as `Bash(npm test*)` should match `touch x && echo made`. Anything else is returned as is.
 */
export function unwrapShell(command: string): string {
  const m = /^(?:\S*\/)?(?:ba|z|da)?sh -l?c (?:"((?:[^"\\]|\\.)*)"|'([^']*)')$/.exec(command);
  if (!m) return command;
  return m[1] !== undefined ? m[1].replace(/\\(["\\$`])/g, "$1") : m[2]!;
}

function pick(p: Params, keys: string[]): Params {
  const out: Params = {};
  for (const k of keys) if (p[k] !== undefined && p[k] !== null) out[k] = p[k];
  return out;
}
