/**
 * RPL_ISUPPORT (005): what a client may assume about this server. Clients size nicks and
 * topics by these tokens, pick the casemapping for their own nick tables, and learn the
 * channel mode letters, so every value here is also what the handlers enforce.
 */
import { CASEMAPPING, CHANTYPES } from "./casemapping.js";
import { LIMITS, type ResolvedOptions } from "./server-options.js";

/** The ISUPPORT tokens, in the order they are sent. */
export function isupportTokens(opts: ResolvedOptions): string[] {
  return [
    `AWAYLEN=${LIMITS.AWAYLEN}`,
    `CASEMAPPING=${CASEMAPPING}`,
    `CHANLIMIT=${CHANTYPES}:${LIMITS.CHANLIMIT}`,
    "CHANMODES=b,k,l,imnst",
    `CHANNELLEN=${LIMITS.CHANNELLEN}`,
    `CHANTYPES=${CHANTYPES}`,
    `CHATHISTORY=${LIMITS.CHATHISTORY}`,
    `HOSTLEN=${LIMITS.HOSTLEN}`,
    `KICKLEN=${LIMITS.KICKLEN}`,
    `MAXLIST=b:${LIMITS.MAXBANS}`,
    `MAXTARGETS=${LIMITS.MAXTARGETS}`,
    `MODES=${LIMITS.MODES}`,
    "MSGREFTYPES=msgid,timestamp",
    `NETWORK=${opts.network}`,
    `NICKLEN=${LIMITS.NICKLEN}`,
    "PREFIX=(ov)@+",
    "STATUSMSG=@+",
    `TARGMAX=JOIN:,KICK:1,NAMES:1,NOTICE:${LIMITS.MAXTARGETS},PART:,PRIVMSG:${LIMITS.MAXTARGETS},TAGMSG:${LIMITS.MAXTARGETS},WHOIS:1`,
    `TOPICLEN=${LIMITS.TOPICLEN}`,
    `USERLEN=${LIMITS.USERLEN}`,
  ];
}

/** Splits tokens into 005 lines of at most 13 tokens each (RFC limit of 15 parameters). */
export function isupportLines(opts: ResolvedOptions): string[][] {
  const tokens = isupportTokens(opts);
  const lines: string[][] = [];
  for (let i = 0; i < tokens.length; i += 13) lines.push(tokens.slice(i, i + 13));
  return lines;
}
