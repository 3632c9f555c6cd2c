/**
 * The one rule for naming a conversation: a channel is named by itself (a target starting with
 * one of the server's CHANTYPES), a private conversation by `DM:<nick>` (the other person's
 * nick). The message buffer, `irc_read`, the daemon's own lines and the inbox all key their
 * conversations with these functions, so a line the agent sends to `alice` and a line alice
 * sends to the agent land in the same buffer.
 */
import { DEFAULT_CHANTYPES, isChannelName } from "./sanitize.js";

/** The prefix of a private conversation's key. */
export const DM_PREFIX = "DM:";

/** The key of the private conversation with `nick`. */
export function dmKey(nick: string): string {
  return `${DM_PREFIX}${nick}`;
}

/** True when `key` already names a private conversation (`DM:<nick>`, any case of `DM`). */
export function isDmKey(key: string): boolean {
  return key.length > DM_PREFIX.length && key.slice(0, DM_PREFIX.length).toUpperCase() === DM_PREFIX;
}

/**
 * The conversation key of a message target: the channel itself when `target` is a channel by
 * the server's `chantypes`, `target` unchanged when it already is a `DM:` key, else `DM:<target>`.
 */
export function conversationKey(target: string, chantypes: string = DEFAULT_CHANTYPES): string {
  if (isChannelName(target, chantypes) || isDmKey(target)) return target;
  return dmKey(target);
}
