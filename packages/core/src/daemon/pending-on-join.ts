/**
 * An operator who joins a channel where approval requests of this agent wait gets one NOTICE
 * (to them only) listing them: IRC clients replay no history, so the request lines posted
 * before they came are lost to them. Operator is decided by account (AccessPolicy, as for
 * answers), from the extended JOIN, else from a WHO of the nick; never by nick alone (unless
 * `operators_by_nick`), so someone who takes an operator's nick without the account gets nothing.
 */
import type { DaemonHooks } from "../hooks.js";
import type { IrcTransport } from "../irc/irc-transport.js";
import type { IrcMemberJoinEvent } from "../irc/transport-events.js";
import type { Logger } from "../logger.js";
import { errorMessage } from "../errors.js";
import type { AccessPolicy } from "./access-policy.js";
import type { ApprovalDesk } from "./approval-desk.js";
import { joinNotice, type Answerers } from "./irc-queries.js";

const PLUGIN_NAME = "PendingOnJoinPlugin";

/** What {@link applyPendingOnJoin} needs. */
export interface PendingOnJoinOptions {
  hooks: DaemonHooks;
  logger: Logger;
  who: Answerers;
  access: Pick<AccessPolicy, "mayCommand">;
  desk: Pick<ApprovalDesk, "list">;
  transport(): Pick<IrcTransport, "on" | "who" | "fold"> | undefined;
  /** A NOTICE from the daemon (never throws). */
  notice(target: string, text: string): void;
}

/** Listens for joins once the daemon is ready (see the module comment). */
export function applyPendingOnJoin(o: PendingOnJoinOptions): void {
  o.hooks.ready.tapPromise(PLUGIN_NAME, async () => {
    const t = o.transport();
    if (!t) return;
    t.on("memberJoined", (j: IrcMemberJoinEvent) => void onJoin(t, j).catch((err: unknown) => o.logger.warn(`could not tell ${j.nick} the pending approvals: ${errorMessage(err)}`)));
  });

  async function onJoin(t: Pick<IrcTransport, "who" | "fold">, j: IrcMemberJoinEvent): Promise<void> {
    const fold = (n: string) => t.fold(n);
    if (joinNotice(o.desk.list(), j.channel, o.who, fold).length === 0) return; // nothing waits there: no WHO either
    let account = j.account;
    if (account === undefined) account = (await t.who(j.nick)).find((m) => fold(m.nick) === fold(j.nick))?.account ?? null; // identity
    if (!o.access.mayCommand({ nick: j.nick, account })) return;
    const lines = joinNotice(o.desk.list(), j.channel, o.who, fold);
    if (lines.length) o.logger.info("told an operator who joined the pending approvals there", { nick: j.nick, account, channel: j.channel, pending: lines.length - 1 });
    for (const line of lines) o.notice(j.nick, line);
  }
}
