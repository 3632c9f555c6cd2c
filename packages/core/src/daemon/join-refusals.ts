/**
 * Channels the IRC server would not let the agent into (471 full, 473 invite-only, 474 banned,
 * 475 bad key, 477 needs an account, 403 no such channel, ... or no answer in time). An agent
 * that is running and connected but not in its channel hears nobody there, so a refusal must
 * not stay in the log: it is kept here until a later JOIN succeeds (or the channel is parted),
 * shown in the status (`channels_refused`, the description), posted once to #alerts, and read
 * by `culture doctor` and `culture start`.
 */
import type { IrcJoinErrorEvent } from "../irc/transport-events.js";
import type { Logger } from "../logger.js";

/** One refused channel, as `status.channels_refused` lists it. */
export interface ChannelRefusal {
  channel: string;
  /** The IRC numeric (`473`), or `timeout`. */
  code: string;
  /** The server's words (`Cannot join channel (+i)`). */
  reason: string;
  /** When it was first refused in this episode, epoch seconds. */
  since: number;
}

/** The part of the transport this listens to. */
interface JoinEvents {
  on(event: "joinError", listener: (e: IrcJoinErrorEvent) => void): unknown;
  on(event: "joined" | "parted", listener: (channel: string) => void): unknown;
}

/** `#room (IRC 473: Cannot join channel (+i))`. */
export function describeRefusal(r: Pick<ChannelRefusal, "channel" | "code" | "reason">): string {
  return r.code === "timeout" ? `${r.channel} (${r.reason})` : `${r.channel} (IRC ${r.code}: ${r.reason})`;
}

/** `[JOIN REFUSED] <nick> cannot join #room (IRC 473: Cannot join channel (+i)); nobody there can reach it.` */
export function joinRefusedText(nick: string, r: Pick<ChannelRefusal, "channel" | "code" | "reason">): string {
  return `[JOIN REFUSED] ${nick} cannot join ${describeRefusal(r)}; nobody there can reach it. A channel operator can invite it or lift the mode; then restart it (culture stop/start).`;
}

/** The refused channels of one daemon. */
export class JoinRefusals {
  private readonly refused = new Map<string, ChannelRefusal>();
  private alert: ((text: string) => void) | null = null;
  private readonly unsent: string[] = [];

  constructor(
    private readonly nick: string,
    private readonly logger: Logger,
    private readonly fold: (channel: string) => string = (c) => c.toLowerCase(),
  ) {}

  /** Follows a transport's join errors, joins and parts. */
  attach(transport: JoinEvents): void {
    transport.on("joinError", (e) => this.onRefused(e));
    transport.on("joined", (channel) => this.refused.delete(this.fold(channel)));
    transport.on("parted", (channel) => this.refused.delete(this.fold(channel)));
  }

  /** Where alerts go, once the daemon has them; refusals seen before are alerted now. */
  alertWith(alert: (text: string) => void): void {
    this.alert = alert;
    for (const text of this.unsent.splice(0)) alert(text);
  }

  /** The refused channels, oldest first. */
  list(): ChannelRefusal[] {
    return [...this.refused.values()].map((r) => ({ ...r }));
  }

  private onRefused(e: IrcJoinErrorEvent): void {
    const key = this.fold(e.channel);
    const before = this.refused.get(key);
    this.refused.set(key, { channel: e.channel, code: e.code, reason: e.reason, since: before?.since ?? Math.floor(Date.now() / 1000) });
    // Once per episode and reason: a refusal repeated at every reconnect is not news.
    if (before && before.code === e.code) return;
    const text = joinRefusedText(this.nick, e);
    this.logger.warn(text);
    if (this.alert) this.alert(text);
    else this.unsent.push(text);
  }
}
