/**
 * The WHO request and how its replies become members. With WHOX (`WHO #c %tnfa,<token>`) each
 * member comes as a 354 carrying our token, with the services account; without it as a 352.
 * Either way the list ends at 315 for the same target. Accounts seen in WHOX replies are
 * handed on (to the account tracker) because they are the only source on servers without
 * account-notify.
 */
import type { ReplyRequest } from "./reply-requests.js";

/** One member as WHO reports it. */
export interface IrcMember {
  nick: string;
  /** Channel mode letters (`o`, `v`, ...), highest first. */
  modes: string[];
  away: boolean;
  /** Services account, when the server reports it (WHOX). */
  account: string | null;
}

/** What {@link whoRequest} needs to know about the server. */
export interface WhoContext {
  /** The server supports WHOX (ISUPPORT `WHOX`). */
  whox: boolean;
  /** The WHOX query token (a number as text) that marks our 354 replies. */
  token: string;
  /** The server's membership prefixes (ISUPPORT PREFIX), highest first. */
  prefix: ReadonlyArray<{ symbol: string; mode: string }>;
  /** Folds a nick or channel by the server's case mapping. */
  fold(name: string): string;
  /** A WHOX reply said which account `nick` is logged in to (`0`: none). */
  onAccount(nick: string, accountField: string | undefined): void;
}

/** The WHO request for `target` (a channel or a nick, already sanitised). */
export function whoRequest(target: string, ctx: WhoContext): ReplyRequest<IrcMember[]> {
  const key = ctx.fold(target);
  const parseFlags = (flags: string): { away: boolean; modes: string[] } => ({
    away: flags.startsWith("G"),
    modes: ctx.prefix.filter((x) => flags.includes(x.symbol)).map((x) => x.mode),
  });
  return {
    what: `WHO ${target}`,
    lines: [ctx.whox ? `WHO ${target} %tnfa,${ctx.token}` : `WHO ${target}`],
    sentinel: false,
    collect: (finish) => {
      const members: IrcMember[] = [];
      return {
        onLine: (msg) => {
          const p = msg.params;
          if (msg.command === "352") {
            // <me> <channel> <user> <host> <server> <nick> <flags> :<hops> <realname>
            members.push({ nick: p[5] ?? "", ...parseFlags(p[6] ?? ""), account: null });
            return true;
          }
          if (msg.command === "354" && p[1] === ctx.token) {
            // <me> <token> <nick> <flags> <account>
            const account = p[4] && p[4] !== "0" ? p[4] : null;
            ctx.onAccount(p[2] ?? "", p[4]);
            members.push({ nick: p[2] ?? "", ...parseFlags(p[3] ?? ""), account });
            return true;
          }
          if (msg.command === "315" && ctx.fold(p[1] ?? "") === key) {
            finish(members);
            return true;
          }
          if ((msg.command === "403" || msg.command === "401") && ctx.fold(p[1] ?? "") === key) {
            return true; // followed by 315
          }
          return false;
        },
      };
    },
  };
}
