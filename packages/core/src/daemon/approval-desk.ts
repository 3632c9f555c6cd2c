/**
 * The approval desk: the one owner of an agent's pending permission requests. The agent's
 * policy decides what it can (permission-policy.ts); what it cannot becomes a request line on
 * IRC, posted where the turn's prompt came from, that an operator answers (`approve`, `deny
 * [reason]`, `always`) on IRC or with the local CLI. Each request ends exactly once: answered,
 * timed out (`on_timeout`), withdrawn by the agent (its `signal`), or cancelled by a stop.
 *
 * Line formats are a contract shared with the backends' tests (docs/approvals.md, "Lines on IRC"):
 *   `[APPROVAL <id>] wants to run "<command>" (<tool>). Reply: @<nick> approve <id> | deny <id> [reason] | always <id>`
 *   (a long request: a header line and `[APPROVAL <id> k/n] "<part>"` lines, approval-text.ts)
 *   `[APPROVAL <id>] approved by <who>` | `[APPROVAL <id>] denied by <who>: <reason>` |
 *   `[APPROVAL <id>] timed out after <N>s: denied`
 */
import { normalizeApprovalId, type ApprovalVerb } from "../approvals/approval-answer.js";
import type { ApprovalIds } from "../approvals/approval-ids.js";
import type { ApprovalRules } from "../approvals/approval-rules.js";
import { approvalSummary, requestLine, requestLines, visibleText, type RequestText } from "../approvals/approval-text.js";
import { maskInput, maskSecrets } from "../approvals/secret-mask.js";
import { textBudget } from "../irc/split-message.js";
import { exactPattern, matchesPattern, parsePattern } from "../approvals/permission-pattern.js";
import { compilePolicy, evaluatePolicy, type CompiledPolicy } from "../approvals/permission-policy.js";
import type { PermissionDecision, PermissionRequest } from "../approvals/permission-request.js";
import { initShellParser } from "../approvals/shell-parser.js";
import { protectedNote, realPathNote, type ProtectedPaths } from "../approvals/protected-paths.js";
import type { PermissionsConfig } from "../config/schema.js";
import type { PromptOrigin } from "../events.js";
import type { Logger } from "../logger.js";

/** A pending request as the CLI and status show it. */
export interface PendingApproval {
  id: string;
  tool: string;
  kind: PermissionRequest["kind"];
  /** Masked, control characters visible, shortened for a table. */
  summary: string;
  /** What the operator approves, whole and masked: the command of a shell request, else the backend's summary (control characters as they are; `culture approvals show` makes them visible). */
  text: string;
  /** True when {@link text} is a shell command. */
  is_command: boolean;
  /** Where the request line went. */
  target: string | null;
  /** The pattern `always` would save (secrets masked), or null when none says exactly this request (`always` then approves once). */
  pattern: string | null;
  /** Epoch seconds. */
  requested_at: number;
  /** Epoch seconds when `on_timeout` applies. */
  expires_at: number;
}

/** The result of an answer. */
export type AnswerResult = { ok: true; decision: PermissionDecision; pattern?: string } | { ok: false; error: string };

/** Options of {@link ApprovalDesk}. */
export interface ApprovalDeskOptions {
  nick: string;
  /** The agent's directory: patterns' paths are relative to it. */
  directory: string;
  policy: PermissionsConfig;
  /** The agent's protected paths (never allowed by a pattern or rule); absent: none. */
  protect?: ProtectedPaths;
  rules: ApprovalRules;
  /** Where request ids come from (a persisted per-agent counter). */
  ids: ApprovalIds;
  logger: Logger;
  /** Posts one line on IRC (never throws). */
  say(target: string, text: string): void;
  /** Where a request with no origin goes (the agent's first channel). */
  defaultTarget(): string | null;
  /** Fires an `approval_requested` / `approval_resolved` alert (never throws); `ircText`, when given, is the #alerts copy (several lines). */
  alert(event: "approval_requested" | "approval_resolved", text: string, ircText?: string): void;
  /** A request starts waiting for a person (`begin`) or stops (`end`): turn and stall timers pause meanwhile. */
  waiting: { begin(): void; end(): void };
}

interface Pending {
  info: PendingApproval;
  request: PermissionRequest;
  /** The pattern `always` saves, unmasked (it must match the request). */
  exact: string | null;
  /** Why `always` saves no rule for a protected request, or null. */
  protectedNote: string | null;
  timer: NodeJS.Timeout;
  settle(decision: PermissionDecision, line: string | null): void;
}

/** The longest channel name the #alerts copy of a request line makes room for (CHANNELLEN is 50 on most servers). */
const ALERTS_CHANNEL_BYTES = 50;

/** Owns the pending requests of one agent. */
export class ApprovalDesk {
  private readonly pending = new Map<string, Pending>();
  private readonly policy: CompiledPolicy;

  constructor(private readonly o: ApprovalDeskOptions) {
    this.policy = compilePolicy(o.policy, o.protect ?? null);
  }

  /** The pending requests, oldest first. */
  list(): PendingApproval[] {
    return [...this.pending.values()].map((p) => ({ ...p.info }));
  }

  /** One pending request, or an error saying why there is none (for `culture approvals show`). */
  show(id: string): { ok: true; pending: PendingApproval } | { ok: false; error: string } {
    const p = this.pending.get(normalizeApprovalId(id));
    return p ? { ok: true, pending: { ...p.info } } : { ok: false, error: this.unknown(id) };
  }

  /** The saved rules. */
  get rules(): ApprovalRules {
    return this.o.rules;
  }

  /**
   * Decides one request: the policy answers what it can; the rest waits for an operator (or
   * `timeout_seconds`, or the agent withdrawing it). Never rejects.
   */
  async request(request: PermissionRequest, origin: PromptOrigin | null): Promise<PermissionDecision> {
    // Shell commands are parsed (loaded once); until it is loaded no shell pattern could allow anything.
    await initShellParser().catch((err: unknown) => this.o.logger.error(`could not load the shell parser (${String(err)}): shell commands are asked, and denied under deny patterns`));
    const verdict = evaluatePolicy(this.policy, this.o.rules.patterns(), request, this.o.directory);
    if (verdict.action === "allow") {
      this.o.logger.debug("permission allowed by policy", { tool: request.tool, pattern: verdict.pattern, source: verdict.source });
      return { behavior: "allow", scope: "once", by: "policy" };
    }
    if (verdict.action === "deny") {
      const reason = maskSecrets(verdict.reason);
      this.o.logger.info("permission denied by policy", { tool: request.tool, reason });
      return { behavior: "deny", reason, by: "policy" };
    }
    if (request.signal?.aborted) return withdrawn();
    return this.ask(request, origin, verdict.protected ? protectedNote(verdict.protected) : null);
  }

  /** An answer from an operator (`by`: their account) or the local CLI (`by: "local"`). */
  answer(id: string, verb: ApprovalVerb, by: string, reason: string | null = null): AnswerResult {
    const p = this.pending.get(normalizeApprovalId(id));
    if (!p) return { ok: false, error: this.unknown(id) };
    const tag = `[APPROVAL ${p.info.id}]`;
    if (verb === "deny") {
      const text = reason?.trim() ? reason.trim() : null;
      const decision: PermissionDecision = { behavior: "deny", reason: text ?? (by === "local" ? "denied by an operator with the local culture CLI" : `denied by ${by} on IRC`), by };
      p.settle(decision, `${tag} denied by ${by}: ${text === null ? "no reason given" : shown(text)}`);
      return { ok: true, decision };
    }
    if (verb === "approve") {
      const decision: PermissionDecision = { behavior: "allow", scope: "once", by };
      p.settle(decision, `${tag} approved by ${by}`);
      return { ok: true, decision };
    }
    const pattern = p.exact;
    const once = (why: string): AnswerResult => {
      // No rule: approve this once and say why, rather than lose the answer or save a broader rule.
      const decision: PermissionDecision = { behavior: "allow", scope: "once", by };
      p.settle(decision, `${tag} approved by ${by} (once: ${why})`);
      return { ok: true, decision };
    };
    if (p.protectedNote !== null) return once(p.protectedNote);
    if (pattern === null) return once("no rule can match exactly this request, so none was saved");
    try {
      this.o.rules.add(pattern, by);
    } catch (err) {
      this.o.logger.error(`could not save the approval rule ${pattern}: ${String(err)}`);
      return once("the rule could not be saved");
    }
    const decision: PermissionDecision = { behavior: "allow", scope: "always", by };
    p.settle(decision, `${tag} approved by ${by} (always: ${shown(pattern)})`);
    // Other pending requests the new rule covers need no answer either.
    const rule = parsePattern(pattern);
    for (const other of [...this.pending.values()]) {
      if (other.protectedNote === null && matchesPattern(rule, other.request, this.o.directory)) {
        other.settle({ behavior: "allow", scope: "once", by: "policy" }, `[APPROVAL ${other.info.id}] approved by the rule ${shown(pattern)} (saved by ${by})`);
      }
    }
    return { ok: true, decision, pattern: maskSecrets(pattern) };
  }

  /** Ends every pending request with a denial (the daemon is stopping). */
  cancelAll(reason: string): void {
    for (const p of [...this.pending.values()]) p.settle({ behavior: "deny", reason, by: "policy" }, null);
  }

  private ask(request: PermissionRequest, origin: PromptOrigin | null, protectedNote: string | null): Promise<PermissionDecision> {
    const id = this.o.ids.take();
    const target = origin?.replyTo ?? this.o.defaultTarget();
    const pathNote = realPathNote(request, this.o.directory);
    const summary = approvalSummary(request.kind === "shell" && request.command !== undefined ? `run: ${request.command}` : request.summary + pathNote);
    const isCommand = request.kind === "shell" && request.command !== undefined;
    const timeout = this.o.policy.timeout_seconds;
    const exact = protectedNote === null ? exactPattern(request, this.o.directory) : null;
    const now = Date.now() / 1000;
    const info: PendingApproval = {
      id,
      tool: request.tool,
      kind: request.kind,
      summary,
      text: maskSecrets(isCommand ? request.command! : request.summary + pathNote),
      is_command: isCommand,
      target,
      pattern: exact === null ? null : maskSecrets(exact),
      requested_at: Math.floor(now),
      expires_at: Math.floor(now + timeout),
    };
    const tag = `[APPROVAL ${id}]`;
    const text: RequestText = { id, nick: this.o.nick, tool: request.tool, command: isCommand ? request.command! : null, summary: request.summary + pathNote };
    const budget = (channel: string) => textBudget({ command: "PRIVMSG", target: channel, nick: `${this.o.nick}__` });
    return new Promise<PermissionDecision>((resolve) => {
      let done = false;
      const onAbort = () => pending.settle(withdrawn(), `${tag} withdrawn by the agent`);
      const pending: Pending = {
        info,
        request,
        exact,
        protectedNote,
        timer: setTimeout(() => {
          const decision: PermissionDecision =
            this.o.policy.on_timeout === "allow"
              ? { behavior: "allow", scope: "once", by: "timeout" }
              : { behavior: "deny", reason: `no operator answered within ${formatSeconds(timeout)}s`, by: "timeout" };
          pending.settle(decision, `${tag} timed out after ${formatSeconds(timeout)}s: ${decision.behavior === "allow" ? "allowed" : "denied"}`);
        }, timeout * 1000),
        settle: (decision, resultLine) => {
          if (done) return;
          done = true;
          clearTimeout(pending.timer);
          request.signal?.removeEventListener("abort", onAbort);
          this.pending.delete(id);
          this.o.waiting.end();
          this.o.logger.info("approval request ended", { id, tool: request.tool, behavior: decision.behavior, by: decision.by });
          if (resultLine !== null) {
            if (target) this.o.say(target, resultLine);
            this.o.alert("approval_resolved", resultLine.replace(tag, `${tag} ${this.o.nick}:`));
          }
          resolve(decision);
        },
      };
      pending.timer.unref?.();
      this.pending.set(id, pending);
      this.o.waiting.begin();
      request.signal?.addEventListener("abort", onAbort, { once: true });
      this.o.logger.info("approval requested", { id, tool: request.tool, kind: request.kind, text: info.text, target, input: maskInput(request.input) });
      if (target) this.o.say(target, requestLines(text, budget(target)).join("\n"));
      else this.o.logger.warn("an approval request has nowhere to go on IRC (no origin and no channel): answer it with culture approvals", { id });
      // #alerts: the same lines with the agent's nick after each tag; the webhook: one line with the whole text.
      const alerts = { ...text, who: ` ${this.o.nick}` };
      this.o.alert("approval_requested", requestLine(alerts), requestLines(alerts, budget("#".repeat(ALERTS_CHANNEL_BYTES))).join("\n"));
    });
  }

  private unknown(id: string): string {
    const ids = [...this.pending.keys()];
    const n = Number(normalizeApprovalId(id));
    const ended = Number.isSafeInteger(n) && n >= 1 && n < Number(this.o.ids.peek()) ? "it has already been answered, timed out or been withdrawn" : "no such request";
    return `no pending approval ${shown(id)} (${ended}); ${ids.length ? `pending: ${ids.join(", ")}` : "none is pending"}`;
  }
}

/** Text from a request or an answer in a one-line result: masked, control characters visible. */
function shown(text: string): string {
  return visibleText(maskSecrets(text), null);
}

function withdrawn(): PermissionDecision {
  return { behavior: "deny", reason: "the request was withdrawn", by: "agent" };
}

function formatSeconds(s: number): string {
  return Number.isInteger(s) ? String(s) : s.toFixed(1).replace(/\.0$/, "");
}
