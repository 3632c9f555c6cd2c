/**
 * What wakes an agent without anyone speaking on IRC — its schedules (schedules.ts), its HTTP
 * trigger (trigger-server.ts) and its trigger file (trigger-file.ts) — and the lifecycle
 * scripts around its turns (lifecycle-scripts.ts), wired onto the daemon's hooks in one call,
 * so agent-daemon.ts holds a single line for all of it. Each part queues
 * its prompts through the turn loop like a mention (journaled, fair queue), with its source
 * in the prompt line.
 */
import { join } from "node:path";
import { errorMessage } from "../errors.js";
import type { PromptOrigin } from "../events.js";
import type { AgentConfig } from "../config/schema.js";
import type { DaemonHooks } from "../hooks.js";
import type { Logger } from "../logger.js";
import { agentStateDir, scheduleStatePath } from "../paths.js";
import { applyLifecycleScripts } from "./lifecycle-scripts.js";
import { newOrigin } from "./prompt-origin.js";
import { TriggerFile, TriggerRate } from "./trigger-file.js";
import { TriggerServer } from "./trigger-server.js";
import type { DaemonTimings } from "./daemon-timings.js";
import type { PromptQueue } from "./prompt-queue.js";
import { applySchedules, Schedules } from "./schedules.js";
import type { TurnLoop } from "./turn-loop.js";

/** The daemon's parts the wake-ups use. */
export interface WakeupParts {
  nick: string;
  agent: AgentConfig;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  timings: DaemonTimings;
  loop: Pick<TurnLoop, "enqueue">;
  queue: Pick<PromptQueue, "countFrom">;
  /** Keep state in the agent's state dir (false in tests without one). */
  persist: boolean;
  /** The agent's session id now (for the lifecycle scripts' environment). */
  sessionId(): string | null;
}

/** Creates the agent's schedules and taps them onto `hooks`. */
export function applyWakeups(hooks: DaemonHooks, p: WakeupParts): { schedules: Schedules; trigger: TriggerServer | null } {
  const schedules = createSchedules(p);
  applySchedules(hooks, schedules);
  const trigger = applyTriggers(hooks, p);
  if (p.agent.scripts) applyLifecycleScripts(hooks, { nick: p.nick, config: p.agent.scripts, directory: p.agent.directory, env: p.env, logger: p.logger.child("scripts"), sessionId: p.sessionId });
  return { schedules, trigger };
}

/** The agent's schedules (none started yet). */
export function createSchedules(p: WakeupParts): Schedules {
  return new Schedules({
    nick: p.nick,
    schedules: p.agent.schedules ?? [],
    defaultChannel: p.agent.channels[0] ?? null,
    statePath: p.persist ? scheduleStatePath(p.nick, p.env) : null,
    logger: p.logger.child("schedules"),
    now: p.timings.now,
    checkMaxMs: p.timings.scheduleCheckMaxMs,
    enqueue: (origin, text) => {
      const r = p.loop.enqueue({ origin, text, klass: "priority" }, true);
      return r.accepted ? null : r.reason;
    },
    waiting: (sender) => p.queue.countFrom(sender),
  });
}

/** The HTTP trigger (when the agent has a `trigger.secret`) and the trigger file (`trigger.file`), sharing one rate limit. */
function applyTriggers(hooks: DaemonHooks, p: WakeupParts): TriggerServer | null {
  const config = p.agent.trigger;
  if (!config) return null;
  const logger = p.logger.child("trigger");
  const rate = new TriggerRate(config.per_minute, p.timings.now);
  const queue = (source: string, via: string, prompt: string, channel: string | null): { refused: string } | { id: string } => {
    const replyTo = channel ?? config.channel ?? p.agent.channels[0] ?? null;
    const where = replyTo ? `; the reply goes to ${replyTo}` : "";
    const origin: PromptOrigin = newOrigin("trigger", replyTo && /^[#&]/.test(replyTo) ? replyTo : null, `trigger:${source}`, replyTo, prompt);
    const r = p.loop.enqueue({ origin, text: `[trigger ${source} via ${via}${where}] ${prompt}`, klass: "priority" }, true);
    return r.accepted ? { id: origin.id } : { refused: r.reason };
  };
  const secret = config.secret;
  const server = secret
    ? new TriggerServer({ nick: p.nick, config: { ...config, secret }, channels: p.agent.channels, logger, now: p.timings.now, take: () => rate.take(), queue: (r) => queue(r.source, "HTTP", r.prompt, r.channel) })
    : null;
  const path = join(agentStateDir(p.nick, p.env), "tick_trigger");
  const file = config.file
    ? new TriggerFile({
        path,
        pollMs: p.timings.triggerFilePollMs,
        logger,
        fire: (content) => {
          const wait = rate.take();
          if (wait > 0) return `rate limited (at most ${config.per_minute} a minute); the prompt is dropped`;
          const r = queue("file", "tick_trigger", content, null);
          return "refused" in r ? r.refused : null;
        },
      })
    : null;
  let failed: string | null = null;
  hooks.ready.tapPromise("Triggers", async () => {
    file?.start();
    try {
      await server?.start();
    } catch (err) {
      failed = `cannot listen on ${config.host}:${config.port}: ${errorMessage(err)}`;
      logger.error(`the trigger endpoint is off: ${failed}`);
    }
  });
  hooks.shutdown.tapPromise("Triggers", async () => {
    file?.stop();
    await server?.stop();
  });
  hooks.status.tap("Triggers", (status) => ({
    ...status,
    trigger: { url: server?.url ?? null, ...(server ? server.stats : {}), ...(failed ? { error: failed } : {}), file: file ? path : null },
  }));
  return server;
}
