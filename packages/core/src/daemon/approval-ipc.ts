/**
 * The approval desk's IPC commands, for the local CLI (`culture approvals ...`). They are
 * answered only on the daemon's control socket, with its token (ipc-access.ts): the agent's
 * tools socket refuses them, so an answer here is the owner's and counts as an operator's,
 * recorded as `by: "local"`.
 *
 * - `approvals` -> `{mode, pending: [...], rules: [...], rules_file}`
 * - `approval_show {approval}` -> `{pending}` (one request with its whole masked text)
 * - `approval_answer {approval, answer: approve|deny|always, reason?, by?}` -> `{decision, pattern?}`;
 *   `by` names who decided when the owner relays someone else's answer (`culture console`
 *   passes its logged-in user as `<account> (console)`); absent: `local`
 * - `approval_revoke {pattern}` -> `{removed: true}` (an error when no rule has that pattern)
 */
import type { ApprovalVerb } from "../approvals/approval-answer.js";
import type { IpcRequest, IpcResult } from "../events.js";
import type { ApprovalDesk } from "./approval-desk.js";

const VERBS: readonly ApprovalVerb[] = ["approve", "deny", "always"];

/** Answers an approval command, or returns null for any other request. */
export function handleApprovalIpc(req: IpcRequest, desk: ApprovalDesk): IpcResult | null {
  switch (req.type) {
    case "approvals":
      return { ok: true, data: { pending: desk.list(), rules: desk.rules.list(), rules_file: desk.rules.file } };
    case "approval_show": {
      const id = req.approval;
      if (typeof id !== "string" || id === "") return { ok: false, error: 'missing field "approval" (the request id, e.g. "12")' };
      const shown = desk.show(id);
      return shown.ok ? { ok: true, data: { pending: shown.pending } } : shown;
    }
    case "approval_answer": {
      const id = req.approval;
      const verb = req.answer;
      if (typeof id !== "string" || id === "") return { ok: false, error: 'missing field "approval" (the request id, e.g. "12")' };
      if (typeof verb !== "string" || !VERBS.includes(verb as ApprovalVerb)) {
        return { ok: false, error: `field "answer" must be one of ${VERBS.join(", ")}, got ${JSON.stringify(verb)}` };
      }
      if (req.reason !== undefined && typeof req.reason !== "string") return { ok: false, error: 'field "reason" must be a string' };
      const by = req.by === undefined ? "local" : req.by;
      if (typeof by !== "string" || !/^[^\x00-\x1f\x7f]{1,64}$/.test(by)) return { ok: false, error: 'field "by" must be 1 to 64 characters without control characters' };
      const result = desk.answer(id, verb as ApprovalVerb, by, (req.reason as string | undefined) ?? null);
      if (!result.ok) return result;
      return { ok: true, data: { decision: result.decision, ...(result.pattern ? { pattern: result.pattern } : {}) } };
    }
    case "approval_revoke": {
      const pattern = req.pattern;
      if (typeof pattern !== "string" || pattern === "") return { ok: false, error: 'missing field "pattern" (a saved rule, see culture approvals rules)' };
      if (!desk.rules.remove(pattern)) {
        const saved = desk.rules.list().map((r) => r.pattern);
        return { ok: false, error: `no saved rule ${pattern}; saved: ${saved.length ? saved.join(", ") : "none"}` };
      }
      return { ok: true, data: { removed: true, pattern } };
    }
    default:
      return null;
  }
}
