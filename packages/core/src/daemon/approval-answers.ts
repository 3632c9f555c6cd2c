/**
 * An operator's `approve|deny|always <id>` on IRC, on its way to the approval desk (the inbox
 * lets only operators, by account, get here). An answer addressed to a short name that another
 * member of the channel shares is refused, naming them all; a mistake (unknown id, already
 * answered) is told to the sender where they spoke; success is announced by the desk where the
 * request was posted.
 */
import type { ApprovalAnswer } from "../approvals/approval-answer.js";
import type { IrcMessageEvent } from "../events.js";
import type { IrcTransport } from "../irc/irc-transport.js";
import type { Logger } from "../logger.js";
import type { ApprovalDesk } from "./approval-desk.js";
import { ambiguousAddress, ambiguousAnswerText } from "./approval-names.js";

/** What {@link answerApproval} needs. */
export interface ApprovalAnswerContext {
  nick: string;
  desk: ApprovalDesk;
  transport: IrcTransport | undefined;
  logger: Logger;
  say(target: string, text: string): void;
  notice(target: string, text: string): void;
}

/** Routes one operator's approval answer to the desk (see the module comment). */
export function answerApproval(ev: IrcMessageEvent, answer: ApprovalAnswer, c: ApprovalAnswerContext): void {
  const t = c.transport;
  const clash = ev.isDm || !t ? null : ambiguousAddress(answer.name, [c.nick, t.nick], t.channelMembers(ev.target), (n) => t.foldName(n));
  if (clash) {
    c.logger.info("refused an approval answer addressed to an ambiguous short name", { from: ev.nick, name: answer.name, candidates: clash });
    c.notice(ev.nick, ambiguousAnswerText(ev.nick, answer.name!, ev.target, clash, c.desk.show(answer.id).ok ? `${c.nick} ${answer.verb} ${answer.id}` : null));
    return;
  }
  const result = c.desk.answer(answer.id, answer.verb, ev.account ?? ev.nick, answer.reason);
  if (!result.ok) c.say(ev.isDm ? ev.nick : ev.target, `${ev.nick}: ${result.error}`);
}
