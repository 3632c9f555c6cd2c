/**
 * The activity mirror (docs/presence.md "Activity mirror"): an opt-in plugin that posts an
 * agent's tool calls and a summary of each turn to one channel (`mirror:` in agents.yaml), so
 * people can watch what an agent does between its replies without reading its log.
 *
 * What is mirrored is decided by the turn's origin:
 * - a turn whose prompt came from the mirror channel itself: nothing (people there see the
 *   conversation already), unless `include_origin: true`;
 * - a DM: only "a DM from <nick>" with status, duration and the number of tool calls; neither
 *   the tool inputs (they may quote the DM) nor the reply go to a channel;
 * - anything else (a mention in another channel, a schedule, a trigger): tool lines and the summary.
 *
 * Lines go out as NOTICEs (mirror-texts.ts says how they are built): a NOTICE never prompts
 * another agent (RFC 2812 3.3.2), so a tool input that mentions `@other-agent` cannot start
 * work anywhere. They are rate-limited by {@link MirrorOutbox}.
 */
import type { MirrorConfig } from "../config/mirror-schema.js";
import type { PromptOrigin } from "../events.js";
import type { DaemonHooks } from "../hooks.js";
import { ircLower } from "../irc/case-mapping.js";
import type { IrcTransport } from "../irc/irc-transport.js";
import { textBudget } from "../irc/split-message.js";
import { MirrorOutbox } from "./mirror-outbox.js";
import { cutBytes, toolLine, turnLine } from "./mirror-texts.js";
import type { ToolProgress } from "./tool-progress.js";

const PLUGIN_NAME = "ActivityMirrorPlugin";

/** How much of a turn is mirrored (see the module comment). */
export type MirrorScope = "none" | "summary" | "all";

/** What {@link applyActivityMirror} needs. */
export interface ActivityMirrorOptions {
  nick: string;
  hooks: DaemonHooks;
  mirror: MirrorConfig;
  progress: Pick<ToolProgress, "onCall">;
  /** The origin of the turn in flight, or null. */
  turnOrigin(): PromptOrigin | null;
  transport(): Pick<IrcTransport, "fold"> | undefined;
  /** A NOTICE from the daemon (never throws). */
  notice(target: string, text: string): void;
}

/** How much of a turn from `origin` goes to the mirror channel. */
export function mirrorScope(origin: PromptOrigin | null, mirror: Pick<MirrorConfig, "channel" | "include_origin">, fold: (name: string) => string = ircLower): MirrorScope {
  if (origin === null) return "none";
  const fromMirror = origin.channel !== null && fold(origin.channel) === fold(mirror.channel);
  if (fromMirror && !mirror.include_origin) return "none";
  return origin.kind === "dm" ? "summary" : "all";
}

/** Taps the daemon's hooks and the tool progress to mirror activity; returns the outbox (tests read its backlog). */
export function applyActivityMirror(o: ActivityMirrorOptions): MirrorOutbox {
  const channel = o.mirror.channel;
  // Room for the longest nick we may have (`<nick>__` after a 433) and the worst-case user@host.
  const maxBytes = textBudget({ command: "NOTICE", target: channel, nick: `${o.nick}__` });
  const outbox = new MirrorOutbox({
    burst: o.mirror.burst,
    intervalMs: o.mirror.interval_seconds * 1000,
    send: (line) => o.notice(channel, cutBytes(line, maxBytes)),
  });
  const fold = (name: string) => o.transport()?.fold(name) ?? ircLower(name);
  let tools = 0;
  // Calls left open are ended by the turn's end, when the loop no longer has the turn: its origin is kept from the calls' start.
  let lastOrigin: PromptOrigin | null = null;
  o.progress.onCall((event) => {
    const origin = o.turnOrigin() ?? lastOrigin;
    lastOrigin = origin;
    if (event.phase === "end") tools++;
    if (mirrorScope(origin, o.mirror, fold) === "all") outbox.tool(event.call.id, toolLine(event));
  });
  o.hooks.turnEnd.tapPromise(PLUGIN_NAME, async (turn) => {
    const count = tools;
    tools = 0;
    lastOrigin = null;
    if (mirrorScope(turn.origin, o.mirror, fold) === "none") return;
    outbox.turn(turnLine({ origin: turn.origin, error: turn.error, durationMs: turn.durationMs, tools: count, finalText: turn.finalText }));
  });
  o.hooks.status.tap(PLUGIN_NAME, (status) => ({ ...status, mirror: { channel, include_origin: o.mirror.include_origin, held_back: outbox.backlog } }));
  o.hooks.shutdown.tapPromise(PLUGIN_NAME, async () => outbox.stop());
  return outbox;
}
