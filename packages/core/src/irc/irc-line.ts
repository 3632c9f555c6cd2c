/**
 * Small readers of one parsed IRC line (irc-framework's `IrcMessage`), shared by the parts of
 * the transport that look at the same lines: the trailing parameter and the server-time tag.
 */
import type ircFramework from "irc-framework";

/** A parsed IRC line as irc-framework hands it out. */
export type RawMessage = ircFramework.IrcMessage;

/** The server-time of a line (epoch ms), or null without a valid `time` tag. */
export function serverTime(msg: RawMessage): number | null {
  const t = msg.tags.time ? Date.parse(msg.tags.time) : NaN;
  return Number.isFinite(t) ? t : null;
}

/** The last parameter of a line (the trailing text), or "" when it has none. */
export function lastParam(params: readonly string[]): string {
  return params[params.length - 1] ?? "";
}
