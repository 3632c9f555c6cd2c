/**
 * The agent's inbox: every PRIVMSG, NOTICE and ACTION the transport delivers comes here once.
 * It is classified once (line-class.ts), recorded in the message buffer, and then, when it is
 * addressed to the agent, becomes exactly one of: an operator command, an approval answer, an
 * answer to a waiting `irc_ask`, a prompt on the queue, or a refusal (not allowed, agent chain
 * limit, over a queue limit, a duplicate of a waiting prompt).
 */
import type { ApprovalAnswer } from "../approvals/approval-answer.js";
import type { CatchUpTally } from "./catch-up-tally.js";
import type { BudgetCommand } from "../budget/budget-command.js";
import type { IrcMessageEvent, PromptOrigin } from "../events.js";
import type { DaemonHooks } from "../hooks.js";
import type { Logger } from "../logger.js";
import type { AccessPolicy, RefusedAction } from "./access-policy.js";
import type { AgentChainGuard } from "./agent-chain.js";
import { dmPrompt, mentionPrompt } from "./agent-prompt.js";
import type { AskWaiters } from "./ask-waiters.js";
import { classifyLine, type ClassifiedLine, type LineContext } from "./line-class.js";
import type { OperatorCommand } from "./operators.js";
import { newOrigin } from "./prompt-origin.js";
import type { PromptClass, PromptQueue, PushResult } from "./prompt-queue.js";
import { heldState, type ReceiptState } from "./receipt-texts.js";
import type { Receipts, ReceiptTicket } from "./receipts.js";
import type { TurnLoop } from "./turn-loop.js";

/** What the inbox needs from the daemon. */
export interface InboxOptions {
  hooks: DaemonHooks;
  logger: Logger;
  access: AccessPolicy;
  chain: AgentChainGuard;
  caughtUp: CatchUpTally;
  asks: AskWaiters;
  queue: PromptQueue;
  loop: TurnLoop;
  maxAgentHops: number;
  /** What the connection knows now (nicks, CASEMAPPING, accounts). */
  context(): LineContext;
  /** Records a line in the message buffer. */
  record(ev: IrcMessageEvent): void;
  /** The operator commands. */
  resume(): Promise<void>;
  abort(why: string): Promise<number>;
  /** True while the agent is paused or its circuit is open. */
  isPaused(): boolean;
  /** An operator's approval answer (the sender may command). */
  approvalAnswer(ev: IrcMessageEvent, answer: ApprovalAnswer): void;
  /** A line to a channel or nick as the daemon (never throws). */
  say(target: string, text: string): void;
  /** A NOTICE to a nick (never throws). */
  notice(target: string, text: string): void;
  /** The receipts of addressed lines. */
  receipts: Receipts;
  /** Who or what paused the agent (`an operator, with culture pause`), or null when it is not paused. */
  pausedBy(): string | null;
  /** Why the agent cannot run until a person acts (not signed in, circuit open), or null. */
  cannotRun(): string | null;
  /** The `over_budget` receipt of a prompt whose budget is used up, or null. */
  overBudget?(origin: PromptOrigin): ReceiptState | null;
  /** An operator's `@nick budget ...` (budget/agent-budget.ts); the lines to answer with. */
  budgetCommand?(command: BudgetCommand, by: string): Promise<{ lines: string[] }> | { lines: string[] };
  /** The answer to `@nick status|pending` (irc-queries.ts), from someone allowed to ask; the lines to answer with. */
  query?(line: ClassifiedLine & { kind: "query" }): string[];
}

/** The inbox of one agent daemon. */
export class Inbox {
  private refused = 0;
  /** Senders told that their prompts overflow (told once per episode). */
  private readonly overflowing = new Set<string>();

  constructor(private readonly o: InboxOptions) {}

  /** Prompts refused or evicted so far (status `prompts_refused`). */
  get promptsRefused(): number {
    return this.refused;
  }

  /** The queue was emptied (abort): overflow episodes end. */
  resetOverflow(): void {
    this.overflowing.clear();
  }

  /** One line from the transport. */
  async onMessage(ev: IrcMessageEvent): Promise<void> {
    const line = classifyLine(ev, this.o.context(), this.o.access);
    if (line.kind === "own") return;
    if (await this.o.hooks.ircMessage.promise(ev)) return;
    this.o.record(ev);
    if (line.kind === "notice") return; // NOTICEs never trigger replies (RFC 2812 3.3.2)
    if (!ev.isDm) this.o.chain.observe(ev.target, ev.nick);
    if (line.kind === "unaddressed") return;
    // A caught-up line older than catch_up.max_age_seconds stays in the buffer only.
    if (this.o.caughtUp.tooOld(ev)) {
      this.o.logger.info("a caught-up mention is older than catch_up.max_age_seconds: kept in the buffer, not prompted", {
        channel: ev.target,
        from: ev.nick,
        said_at: new Date(ev.time).toISOString(),
      });
      return;
    }
    if (line.kind === "command") return this.onCommand(line, line.command);
    if (line.kind === "budget") {
      if (!line.operator) return this.refuse(line, "manage the budget of"); // identity
      const answer = (await this.o.budgetCommand?.(line.budget, ev.account ?? ev.nick)) ?? { lines: ["this agent has no budget"] };
      for (const text of answer.lines) this.o.say(line.replyTo, `${ev.nick}: ${text}`);
      return;
    }
    if (line.kind === "query") {
      // status, and pending in a channel: whoever may prompt; pending in a DM lists every channel's requests: operators only.
      const operatorsOnly = line.query === "pending" && ev.isDm;
      if (operatorsOnly ? !line.operator : !line.mayPrompt) return this.refuse(line, operatorsOnly ? "list the pending approvals of" : "prompt"); // identity
      for (const text of this.o.query?.(line) ?? []) this.o.say(line.replyTo, `${ev.nick}: ${text}`);
      return;
    }
    const ticket: ReceiptTicket = { id: newOrigin("system", null, null, null, "").id, sender: ev.nick, replyTo: line.replyTo, place: ev.isDm ? "DM" : ev.target, msgid: ev.tags.msgid ?? null, text: ev.text };
    if (line.kind === "approval") {
      if (!line.operator) return this.refuse(line, "answer approval requests of"); // identity
      return this.o.approvalAnswer(ev, line.answer);
    }
    if (!line.mayPrompt) {
      this.o.receipts.terminal(ticket, { state: "refused", who: "allowed senders" }, true); // the refusal notice (once an hour) is its receipt
      return this.refuse(line, "prompt"); // identity
    }
    if (this.o.asks.offer(ev)) return this.o.receipts.terminal(ticket, { state: "done" }, true); // an answer to the agent's irc_ask
    if (!ev.isDm && !this.o.chain.allows(ev.target, ev.nick)) {
      const byTokens = this.o.chain.limitHit(ev.target) === "tokens";
      this.o.logger.warn(`ignored an agent's mention: agent-to-agent chain ${byTokens ? "token " : ""}limit reached in this channel (a human message resets it)`, {
        channel: ev.target,
        from: ev.nick,
        hops: this.o.chain.hops(ev.target),
        max: this.o.maxAgentHops,
        ...(byTokens ? { tokens: this.o.chain.tokens(ev.target), max_tokens: this.o.chain.tokenCap } : {}),
      });
      const limit = byTokens ? `the agent-to-agent chain's token limit, ${this.o.chain.tokenCap} tokens` : "the agent-to-agent chain limit";
      return this.o.receipts.terminal(ticket, { state: "refused", who: `people here until a person speaks (${limit})` });
    }
    const origin = ev.isDm ? newOrigin("dm", null, ev.nick, ev.nick, ev.text, ev.account) : newOrigin("mention", ev.target, ev.nick, ev.target, ev.text, ev.account);
    const base = ev.isDm ? dmPrompt(ev.nick, ev.text) : mentionPrompt(ev.target, ev.nick, ev.text);
    const prompt = await this.o.hooks.mention.promise(base, origin);
    if (prompt === null) return this.o.receipts.terminal(ticket, { state: "dropped", why: "a plugin held it back" }, true);
    const klass: PromptClass = ev.isDm || line.operator ? "priority" : "chatter";
    this.o.receipts.track({ ...ticket, id: origin.id });
    const result = this.o.loop.enqueue({ origin, text: prompt, klass }, true);
    if (ev.replayed && result.accepted) this.o.caughtUp.prompted();
    const shown = this.accept(ev.nick, line.replyTo, result);
    this.acknowledge(origin, ev.nick, result, shown);
  }

  /** The first receipt of a prompt line: its state right after it was queued (or not). */
  private acknowledge(origin: PromptOrigin, sender: string, result: PushResult, shown: boolean): void {
    const r = this.o.receipts;
    const id = origin.id;
    if (!result.accepted) {
      if (result.reason === "duplicate") return r.final(id, { state: "merged" });
      const why = result.reason === "sender_limit" ? `${this.o.queue.countFrom(sender)} of your requests are already waiting` : "my queue is full";
      return r.final(id, { state: "over_limit", why }, undefined, shown);
    }
    const position = this.o.queue.positionOf(id);
    if (position === 0) return; // already handed to the agent: the turn acknowledges "working"
    const cannot = this.o.cannotRun();
    if (cannot) return r.held(id, heldState(cannot));
    const budget = this.o.overBudget?.(origin) ?? null;
    if (budget) return r.ack(id, budget);
    const by = this.o.pausedBy();
    r.ack(id, by ? { state: "paused", by } : { state: "queued", position });
  }

  /** identity: a refused sender gets at most one short NOTICE per hour. */
  private refuse(line: ClassifiedLine, what: RefusedAction): void {
    const text = this.o.access.refusal(line.ev, what, this.o.context().nick);
    if (text !== null) this.o.notice(line.ev.nick, text);
  }

  /**
   * Reports a refused prompt once per sender and episode (not once per message) in the place
   * it was asked; true when it did (that line is the prompt's receipt).
   */
  private accept(sender: string, replyTo: string, result: PushResult): boolean {
    const key = sender.toLowerCase();
    if (result.accepted) {
      if (result.evicted) {
        this.refused++;
        this.o.logger.warn("prompt queue full: dropped the newest prompt of the busiest sender", { sender: result.evicted.origin.sender });
      }
      return false;
    }
    this.refused++;
    if (result.reason === "duplicate") return false;
    if (this.overflowing.has(key) && this.o.queue.countFrom(sender) > 0) return false;
    this.overflowing.add(key);
    const why = result.reason === "sender_limit" ? `${this.o.queue.countFrom(sender)} of your requests are already waiting` : "my queue is full";
    this.o.logger.warn("prompt refused: the queue is over its limit (reported once until it drains)", { sender, reason: result.reason });
    this.o.say(replyTo, `${sender}: ${why}; I am ignoring new ones until I catch up.`);
    return true;
  }

  private async onCommand(line: ClassifiedLine, command: OperatorCommand): Promise<void> {
    const { ev, replyTo } = line;
    if (!line.operator) return this.refuse(line, command); // identity
    if (command === "resume") {
      const wasPaused = this.o.isPaused();
      await this.o.resume();
      this.o.say(replyTo, wasPaused ? `${ev.nick}: resumed.` : `${ev.nick}: I was not paused; carrying on.`);
    } else {
      const dropped = await this.o.abort(`${ev.nick} aborted my work`);
      this.o.say(replyTo, `${ev.nick}: aborted the current task${dropped ? ` and dropped ${dropped} queued prompt(s)` : ""}.`);
    }
  }
}
