/**
 * The daemon's presence wiring (docs/presence.md): tool progress, the hung watchdog and the
 * presence publisher, fed by the daemon's hooks, so agent-daemon.ts only hands over a facts
 * reader and pokes on state changes.
 *
 * - `agentMessage`: progress (running tool, logged calls) and the watchdog's clock;
 * - `beforePrompt` / `turnEnd`: a turn begins / ends;
 * - `ircMessage`: lines in the presence channel are other agents' presence, not talk: they are
 *   swallowed (never buffered, never prompts); a watcher's `culture-presence?` gets our line;
 * - `status`: `presence`, `tool` and a description that names the running tool;
 * - `shutdown`: the last word (`stopping`) goes out before the QUIT.
 */
import { formatSeconds } from "./presence-state.js";
import { maskSecrets } from "../approvals/secret-mask.js";
import { stalledText } from "./presence-texts.js";
import type { DaemonHooks } from "../hooks.js";
import type { Logger } from "../logger.js";
import { presenceSchema, type PresenceConfig } from "../config/schema.js";
import type { IrcTransport } from "../irc/irc-transport.js";
import { PRESENCE_QUERY, PresencePublisher } from "./presence-publisher.js";
import { derivePresenceState, type Presence, type PresenceFacts, type PresenceStateName } from "./presence-state.js";
import { StallWatchdog } from "./stall-watchdog.js";
import { ToolProgress } from "./tool-progress.js";
import type { ApprovalDesk } from "./approval-desk.js";
import type { PromptQueue } from "./prompt-queue.js";
import type { RunState } from "./run-state.js";
import type { RunnerKeeper } from "./runner-keeper.js";
import type { TurnLoop } from "./turn-loop.js";

const PLUGIN_NAME = "PresencePlugin";

/** The presence settings of a config; one built in code without a `presence` section has no presence channel (AWAY only). */
export function presenceConfigOf(config: { presence?: PresenceConfig }): PresenceConfig {
  return config.presence ?? { ...presenceSchema.parse({}), channel: null };
}

/** The facts presence reads from the daemon (the rest it owns). */
export type DaemonPresenceFacts = Omit<PresenceFacts, "stalled" | "tool" | "silentSeconds">;

/** The daemon's parts presence reads its facts from. */
export interface PresenceSources {
  state: Pick<RunState, "lifecycle" | "paused" | "overBudget" | "link">;
  keeper: Pick<RunnerKeeper, "restarting" | "circuitOpen" | "fatal">;
  desk: Pick<ApprovalDesk, "list">;
  loop: Pick<TurnLoop, "turn" | "turnCount">;
  queue: Pick<PromptQueue, "length">;
}

/** A facts reader over the daemon's parts (read at each use, never cached). */
export function presenceFactsOf(p: PresenceSources): () => DaemonPresenceFacts {
  return () => ({
    lifecycle: p.state.lifecycle,
    restarting: p.keeper.restarting,
    circuitOpen: p.keeper.circuitOpen,
    fatal: p.keeper.fatal,
    paused: p.state.paused,
    overBudget: p.state.overBudget,
    approvalsPending: p.desk.list().length,
    turn: p.loop.turn !== null,
    task: p.loop.turn ? (p.loop.turn.origin.text || p.loop.turn.prompt).replace(/\s+/g, " ").slice(0, 80) : null,
    queued: p.queue.length,
    turns: p.loop.turnCount,
    linkUp: p.state.link.state === "connected",
  });
}

/** What {@link createAgentPresence} needs. */
export interface AgentPresenceOptions {
  nick: string;
  hooks: DaemonHooks;
  logger: Logger;
  presence: PresenceConfig;
  stallSeconds: number;
  facts(): DaemonPresenceFacts;
  transport(): IrcTransport | undefined;
  /** Fires an alert (#alerts and the webhook). */
  alert(text: string): void;
  /** Tells the supervisor the turn went silent. */
  tellSupervisor(): void;
  /** Aborts the current turn and the queue (the control socket's `abort`, used by `culture top`); resolves with how many queued prompts were dropped. */
  abort(why: string): Promise<number>;
}

/** The daemon's presence. */
export interface AgentPresence {
  /** A daemon fact changed: publish if the presence did. */
  poke(): void;
  /** The presence now. */
  read(): Presence;
  readonly progress: ToolProgress;
  readonly watchdog: StallWatchdog;
}

/** Wires presence, progress and the watchdog into the daemon's hooks. */
export function createAgentPresence(o: AgentPresenceOptions): AgentPresence {
  const log = o.logger.child("presence");
  const progress = new ToolProgress(o.logger.child("tools"));
  let state: PresenceStateName = "starting";
  let stateSince = Date.now() / 1000;
  const watchdog = new StallWatchdog({
    stallSeconds: o.stallSeconds,
    inTurn: () => o.facts().turn,
    waitingForPerson: () => o.facts().approvalsPending > 0,
    stalled: (silentMs) => {
      const f = o.facts();
      const tool = progress.current;
      log.warn(`stalled: no agent event for ${formatSeconds(silentMs / 1000)} during a turn`, { stall_seconds: o.stallSeconds, ...(tool ? { tool: tool.name } : {}) });
      o.alert(stalledText(o.nick, silentMs / 1000, f.task === null ? null : maskSecrets(f.task), tool?.name ?? null));
      o.tellSupervisor();
      publisher.poke();
    },
    recovered: (silentMs) => {
      log.info(`no longer stalled: the agent spoke again after ${formatSeconds(silentMs / 1000)}`);
      publisher.poke();
    },
  });
  const read = (): Presence => {
    const f = o.facts();
    const tool = f.turn ? progress.current : null;
    const next = derivePresenceState({ ...f, stalled: watchdog.stalled, tool: tool ? { name: tool.name, since: tool.startedAt / 1000 } : null });
    if (next !== state) {
      state = next;
      // Stalled since the last agent event, not since the watchdog noticed.
      stateSince = Date.now() / 1000 - (next === "stalled" ? watchdog.silentMs / 1000 : 0);
    }
    return {
      state,
      since: stateSince,
      tool: (state === "running" || state === "stalled") && tool ? tool.name : null,
      toolSince: (state === "running" || state === "stalled") && tool ? tool.startedAt / 1000 : null,
      queued: f.queued,
      turns: f.turns,
      approvals: f.approvalsPending,
      task: f.task === null ? null : maskSecrets(f.task),
    };
  };
  const channel = o.presence.channel;
  const publisher = new PresencePublisher({
    read,
    channel,
    minIntervalMs: o.presence.min_interval_seconds * 1000,
    heartbeatMs: o.presence.heartbeat_seconds * 1000,
    // A start shorter than the interval is never announced (presence-publisher.ts).
    quietStart: true,
    logger: log,
    sink: {
      // Up once the presence channel is joined (a line queued before the join would only wait).
      up: () => {
        const t = o.transport();
        return t !== undefined && t.connected && (channel === null || t.isJoined(channel));
      },
      setAway: (text) => o.transport()?.setAway(text),
      // A status line: ahead of waiting replies, and a newer state replaces one still waiting.
      post: (line) => void (channel && o.transport()?.status(channel, line)),
    },
  });
  const isPresenceChannel = (target: string) => channel !== null && (o.transport()?.fold(target) ?? target.toLowerCase()) === (o.transport()?.fold(channel) ?? channel.toLowerCase());

  o.hooks.ready.tapPromise(PLUGIN_NAME, async () => {
    publisher.start();
    poke();
  });
  o.hooks.beforePrompt.tapPromise(PLUGIN_NAME, async (prompt) => {
    watchdog.event();
    return prompt;
  });
  o.hooks.agentMessage.tapPromise(PLUGIN_NAME, async (msg) => {
    progress.observe(msg);
    watchdog.event();
    publisher.poke();
  });
  o.hooks.turnEnd.tapPromise(PLUGIN_NAME, async () => {
    progress.endTurn();
    watchdog.turnEnded();
    publisher.poke();
  });
  o.hooks.ircMessage.tapPromise(PLUGIN_NAME, async (ev) => {
    if (ev.isDm || !isPresenceChannel(ev.target)) return undefined;
    if (ev.text.trim() === PRESENCE_QUERY) publisher.poke(true);
    return true;
  });
  o.hooks.status.tap(PLUGIN_NAME, (status) => {
    const p = read();
    const tool = p.state === "running" || p.state === "stalled" ? progress.current : null;
    const now = Date.now();
    const running = tool ? `running ${tool.name} for ${formatSeconds((now - tool.startedAt) / 1000)}` : null;
    // The prompt text in the description may carry a secret (as a tool input would): masked.
    const description = maskSecrets(String(status.description));
    return {
      ...status,
      presence: { state: p.state, since: p.since, queued: p.queued, approvals: p.approvals, channel, stall_seconds: o.stallSeconds, ...(watchdog.stalled ? { silent_seconds: Math.round(watchdog.silentMs / 1000) } : {}) },
      tool: tool ? { name: tool.name, elapsed_seconds: Math.round((now - tool.startedAt) / 1000), input: tool.summary } : null,
      description:
        p.state === "running" && running
          ? `${running}; ${description}`
          : p.state === "stalled"
            ? `stalled: no agent event for ${formatSeconds(watchdog.silentMs / 1000)}${running ? ` (${running})` : ""}; ${description}`
            : description,
    };
  });
  // The owner's `abort` (control socket only: ipc-access.ts refuses it on the tools socket).
  o.hooks.ipcRequest.tapPromise(PLUGIN_NAME, async (req) => {
    if (req.type !== "abort") return undefined;
    const dropped = await o.abort("the owner aborted my work from culture top");
    return { ok: true, data: { aborted: true, dropped } };
  });
  o.hooks.shutdown.tapPromise(PLUGIN_NAME, async () => {
    watchdog.stop();
    publisher.flush();
    publisher.stop();
  });
  // After a reconnect the line goes out again (the AWAY is re-sent by the transport itself).
  let linkWasUp = false;
  let watching = false;
  const poke = () => {
    const t = o.transport();
    if (t && !watching) {
      watching = true;
      t.on("joined", (joined: string) => void (isPresenceChannel(joined) && publisher.poke(true)));
    }
    const up = o.facts().linkUp;
    publisher.poke(up && !linkWasUp);
    linkWasUp = up;
  };
  return { poke, read, progress, watchdog };
}
