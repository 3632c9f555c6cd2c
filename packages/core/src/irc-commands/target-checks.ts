/**
 * The checks the commands share, made once in the daemon with the server's own rules
 * (CHANTYPES says what a channel is, CASEMAPPING how names compare), so every client gets the
 * same answer: a channel must be one the agent is in, a nick must be online.
 */
import { IrcCommandRefused, type IrcCommandContext } from "./define.js";

/** `DM:alice` (how `read` names a private conversation) as the nick `alice`; anything else unchanged. */
export function dmNick(target: string): string {
  return /^DM:/i.test(target) && target.length > 3 ? target.slice(3) : target;
}

/**
 * Refuses a channel the agent is not in (by the server's CHANTYPES and CASEMAPPING). To
 * `speak` there, a channel the transport will rejoin counts while the link is down (the lines
 * wait in its queue, irc-transport.ts `willReach`), and the refusal says how to join; to
 * `leave` it, only a confirmed JOIN counts.
 */
export function requireJoined(channel: string, ctx: IrcCommandContext, purpose: "speak" | "leave" = "speak"): void {
  const t = ctx.transport;
  if (purpose === "speak" ? t.willReach(channel) : t.isJoined(channel)) return;
  const joined = t.joinedChannels();
  throw new IrcCommandRefused(
    `not in channel ${channel} (you are in: ${joined.length ? joined.join(", ") : "no channel"})` +
      (purpose === "speak" ? `; join it first: the join tool, or culture channel join '${channel}'` : ""),
  );
}

/**
 * Refuses a nick that is not on IRC now: the server drops a message to it (its 401 goes to
 * nobody), so it is looked up with WHO first. While disconnected the send is queued instead
 * (nobody can tell who will be online), so nothing is refused.
 */
export async function requireOnline(nick: string, ctx: IrcCommandContext, what: string): Promise<void> {
  const t = ctx.transport;
  if (!t.connected) return;
  const members = await t.who(nick);
  if (members.some((m) => t.fold(m.nick) === t.fold(nick))) return;
  throw new IrcCommandRefused(`${nick} is not on IRC now (WHO found no one by that nick); ${what}. See who is around: who '#general'`);
}

/**
 * The checks for a target that text is sent to: a channel (by CHANTYPES) must be joined, a
 * nick (or `DM:<nick>`) must be online. Returns the target as IRC sees it.
 */
export async function requireReachable(target: string, ctx: IrcCommandContext, what: string): Promise<string> {
  if (ctx.transport.isChannel(target)) {
    requireJoined(target, ctx);
    return target;
  }
  const nick = dmNick(target);
  await requireOnline(nick, ctx, what);
  return nick;
}
