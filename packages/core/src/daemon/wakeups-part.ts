/**
 * The wake-ups (wakeups.ts: schedules with croner, the HTTP trigger, the trigger file, the
 * lifecycle scripts) loaded only for an agent whose config has one of them: the module is
 * imported when the daemon starts, before anything connects, so a failure to load fails the
 * start with E_PART_LOAD. An agent without any still answers `culture schedule ...` as before
 * (no schedules), loading the schedules' code for that request only.
 */
import type { AgentConfig } from "../config/schema.js";
import type { IpcResult } from "../events.js";
import type { DaemonHooks } from "../hooks.js";
import { errorMessage } from "../errors.js";
import { lazyPart, type StartLoads } from "./lazy-part.js";
import type { WakeupParts } from "./wakeups.js";

/** The IPC requests the schedules answer. */
const SCHEDULE_REQUESTS = new Set(["schedules", "schedule_run", "schedule_pause", "schedule_resume"]);

/** True when the agent has a schedule, a trigger or lifecycle scripts. */
export function wakeupsConfigured(agent: Pick<AgentConfig, "schedules" | "trigger" | "scripts">): boolean {
  return (agent.schedules?.length ?? 0) > 0 || !!agent.trigger || !!agent.scripts;
}

/** Applies the agent's wake-ups to `hooks`: loaded at start when configured, else only for a schedule request. */
export function applyWakeupsPart(hooks: DaemonHooks, p: WakeupParts, loads: StartLoads): void {
  const load = lazyPart("schedules and triggers", () => import("./lazy-modules.js"), p.logger);
  if (wakeupsConfigured(p.agent)) {
    loads.add(async () => void (await load()).applyWakeups(hooks, p));
    return;
  }
  let none: { handle(req: { type: string }): IpcResult | undefined } | null = null;
  hooks.ipcRequest.tapPromise("Schedules", async (req) => {
    if (!SCHEDULE_REQUESTS.has(req.type)) return undefined;
    try {
      none ??= (await load()).createSchedules(p);
    } catch (err) {
      return { ok: false, error: errorMessage(err) };
    }
    return none.handle(req);
  });
}
