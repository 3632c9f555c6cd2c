/**
 * The `mirror:` of an agent entry, or of the whole config for agents that do not say
 * (docs/presence.md "Activity mirror"): a channel the agent joins and posts its tool calls and
 * turn summaries in. Written as a channel name, or as an object to opt in to mirroring the
 * turns whose prompt came from that very channel (off by default: people there already see
 * the conversation, and a mirror must never echo a channel into itself by surprise).
 */
import { z } from "zod";
import { CONFIG_CHANNEL_NAME } from "../irc/sanitize.js";

const channel = z.string().regex(CONFIG_CHANNEL_NAME, "a channel name like #activity (starts with # or &, no spaces or commas)");

/** `mirror: "#activity"` or `mirror: {channel: "#activity", include_origin: true}`, normalised to the object form. */
export const mirrorSchema = z.preprocess(
  // The short form is the object's channel, so a bad name is reported at `mirror.channel` with the rule.
  (v) => (typeof v === "string" ? { channel: v } : v),
  z
    .object({
      channel,
      /** Also mirror turns whose prompt came from the mirror channel itself. */
      include_origin: z.boolean().default(false),
      /** Lines that may go out back to back. */
      burst: z.number().int().min(1).max(50).default(5),
      /** Then at most one line per this many seconds; more tool calls are counted into one "... N more tool calls" line. */
      interval_seconds: z.number().positive().max(3600).default(2),
    })
    .strict(),
);

/** A mirror setting, normalised. */
export interface MirrorConfig {
  channel: string;
  include_origin: boolean;
  burst: number;
  interval_seconds: number;
}

/** The agent's mirror: its own, else the config's; null: none. */
export function mirrorOf(config: { mirror?: MirrorConfig | null }, agent: { mirror?: MirrorConfig | null }): MirrorConfig | null {
  return agent.mirror ?? config.mirror ?? null;
}
