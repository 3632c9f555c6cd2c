/**
 * Schedules (docs/schedules.md): the daemon prompts its own agent from the `schedules:` of its
 * config entry, by cron expression or once (`at:`), each in a time zone, the reply relayed to
 * the schedule's channel like a mention's. A scheduled prompt takes the ordinary path: queued
 * by the turn loop (journaled, so a prompt queued before a crash is still delivered), fed
 * when the agent is free.
 *
 * The rules, all decided in {@link Schedules.check} from the clock and the state file:
 * - A run is due at its slot (a cron time, or the `at:` time). The slot of every run fired or
 *   skipped is written to `<state dir>/schedules.json` **before** its prompt is queued, so no
 *   slot ever fires twice, across any number of restarts.
 * - Runs missed while no daemon was running (or while the machine slept): only the latest
 *   missed slot counts; it fires once if it is at most `catch_up` old, else it is skipped and
 *   logged. A cron schedule the state file does not know yet starts from now (adding a
 *   schedule does not replay its past); an `at:` in the past beyond `catch_up` is skipped.
 * - Overlap: a run that comes due while the previous run of the same schedule is still waiting
 *   in the queue is folded into it (logged, counted), so at most one run per schedule waits;
 *   a run in flight does not stop the next one from queueing behind it.
 * - Paused schedules do not fire; resuming starts from now (what came due while paused is not replayed).
 *
 * The daemon taps this onto its hooks (ready, shutdown, ipcRequest, status) with
 * {@link applySchedules}, so agent-daemon.ts only constructs it.
 */
import type { Cron } from "croner";
import { cronClass } from "../config/croner.js";
import type { ScheduleConfig } from "../config/schedule-schema.js";
import { machineTimeZone } from "../time-zone.js";
import { errorMessage } from "../errors.js";
import type { IpcRequest, IpcResult, PromptOrigin } from "../events.js";
import type { DaemonHooks } from "../hooks.js";
import type { Logger } from "../logger.js";
import { newOrigin } from "./prompt-origin.js";
import { ScheduleState } from "./schedule-state.js";

/** A run later than this after its slot is a catch-up (the `catch_up` age applies); earlier is just a late timer. */
const ON_TIME_MS = 60_000;

/** What the schedules need from the daemon. */
export interface SchedulesOptions {
  nick: string;
  schedules: readonly ScheduleConfig[];
  /** Where a schedule without `channel:` replies: the agent's first channel. */
  defaultChannel: string | null;
  /** `<state dir>/schedules.json`, or null to remember nothing (tests without a state dir). */
  statePath: string | null;
  logger: Logger;
  now: () => number;
  /** The longest wait between two looks at the clock. */
  checkMaxMs: number;
  /** Queues a prompt (journaled); returns why it was refused, or null when it was queued. */
  enqueue(origin: PromptOrigin, text: string): string | null;
  /** Prompts of `sender` waiting in the queue (not yet started). */
  waiting(sender: string): number;
}

/** One schedule as status and `culture schedule list` show it. */
export interface ScheduleView {
  name: string;
  kind: "cron" | "at";
  spec: string;
  timezone: string;
  channel: string | null;
  paused: boolean;
  /** Epoch seconds of the next run, null when none (paused, or an `at:` that is done). */
  next_run: number | null;
  /** The next run in the schedule's time zone (`2026-11-30 09:00`), for people. */
  next_run_local: string | null;
  /** Epoch seconds when the last run was fired (queued), null when none was. */
  last_fired: number | null;
  /** What this daemon did: runs fired, runs skipped (older than catch_up), runs folded into a waiting one. */
  fired: number;
  skipped: number;
  folded: number;
  /** A run of it is waiting in the queue now. */
  waiting: boolean;
}

interface Entry {
  config: ScheduleConfig;
  cron: Cron;
  timezone: string;
  channel: string | null;
  sender: string;
  fired: number;
  skipped: number;
  folded: number;
}

/** One agent's schedules. */
export class Schedules {
  private readonly entries: Entry[];
  private readonly state: ScheduleState;
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(private readonly o: SchedulesOptions) {
    this.state = new ScheduleState(o.statePath, o.logger);
    this.entries = o.schedules.map((config) => {
      const timezone = config.timezone ?? machineTimeZone();
      const pattern = config.cron ?? config.at!.replace(" ", "T");
      return {
        config,
        cron: new (cronClass())(pattern, { timezone, paused: true }),
        timezone,
        channel: config.channel ?? o.defaultChannel,
        sender: `schedule:${config.name}`,
        fired: 0,
        skipped: 0,
        folded: 0,
      };
    });
  }

  /** How many schedules the agent has. */
  get size(): number {
    return this.entries.length;
  }

  /** Starts: fires what was missed (within catch_up), then waits for the next slot. */
  start(): void {
    if (this.running || this.entries.length === 0) return;
    this.running = true;
    const now = this.o.now();
    for (const e of this.entries) {
      // A cron schedule the state does not know starts now: adding one does not replay its past.
      if (!this.state.has(e.config.name) && e.config.cron !== undefined) this.state.set(e.config.name, { lastSlot: now });
    }
    this.check();
  }

  /** Stops the timer (the daemon is stopping). */
  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Fires every schedule that is due now, then arms the timer for the next slot. */
  check(): void {
    if (!this.running) return;
    const now = this.o.now();
    for (const e of this.entries) {
      try {
        this.checkOne(e, now);
      } catch (err) {
        this.o.logger.error(`schedule ${e.config.name}: ${errorMessage(err)}`);
      }
    }
    this.arm(now);
  }

  /** The schedules as status shows them. */
  list(): ScheduleView[] {
    const now = this.o.now();
    return this.entries.map((e) => {
      const mem = this.state.get(e.config.name);
      const paused = this.isPaused(e);
      const next = paused ? null : this.nextSlot(e, Math.max(now, mem.lastSlot ?? -Infinity));
      return {
        name: e.config.name,
        kind: e.config.cron !== undefined ? "cron" : "at",
        spec: e.config.cron ?? e.config.at!,
        timezone: e.timezone,
        channel: e.channel,
        paused,
        next_run: next === null ? null : Math.round(next / 1000),
        next_run_local: next === null ? null : localTime(next, e.timezone),
        last_fired: mem.lastFiredAt === null ? null : Math.round(mem.lastFiredAt / 1000),
        fired: e.fired,
        skipped: e.skipped,
        folded: e.folded,
        waiting: this.o.waiting(e.sender) > 0,
      };
    });
  }

  /** The IPC requests `schedules`, `schedule_run`, `schedule_pause`, `schedule_resume`; undefined for others. */
  handle(req: IpcRequest): IpcResult | undefined {
    switch (req.type) {
      case "schedules":
        return { ok: true, data: { schedules: this.list() } };
      case "schedule_run": {
        const e = this.find(req.schedule);
        if ("error" in e) return { ok: false, error: e.error };
        if (this.o.waiting(e.sender) > 0) return { ok: false, error: `a run of schedule ${e.config.name} is already waiting for the agent; not queueing a second` };
        const why = this.fire(e, this.o.now(), "run by hand");
        return why ? { ok: false, error: `the agent's queue refused the run: ${why}` } : { ok: true, data: { schedule: e.config.name, queued: true } };
      }
      case "schedule_pause":
      case "schedule_resume": {
        const pause = req.type === "schedule_pause";
        const targets = req.schedule === undefined || req.schedule === null ? this.entries : [this.find(req.schedule)];
        const names: string[] = [];
        for (const t of targets) {
          if ("error" in t) return { ok: false, error: t.error };
          // Resuming starts from now: what came due while paused is not replayed.
          this.state.set(t.config.name, pause ? { paused: true } : { paused: false, lastSlot: Math.max(this.o.now(), this.state.get(t.config.name).lastSlot ?? -Infinity) });
          names.push(t.config.name);
        }
        this.o.logger.info(`schedule${names.length === 1 ? "" : "s"} ${pause ? "paused" : "resumed"}: ${names.join(", ") || "(none)"}`);
        if (this.running) {
          if (this.timer) clearTimeout(this.timer);
          this.arm(this.o.now());
        }
        return { ok: true, data: { [pause ? "paused" : "resumed"]: names, schedules: this.list() } };
      }
      default:
        return undefined;
    }
  }

  // ---------------------------------------------------------------- internals

  private checkOne(e: Entry, now: number): void {
    if (this.isPaused(e)) return;
    const mem = this.state.get(e.config.name);
    const slot = this.latestSlot(e, now);
    if (slot === null || (mem.lastSlot !== null && slot <= mem.lastSlot)) return;
    const age = now - slot;
    const name = e.config.name;
    if (age > ON_TIME_MS && age > e.config.catch_up * 1000) {
      this.state.set(name, { lastSlot: slot });
      e.skipped++;
      this.o.logger.warn(
        `schedule ${name}: skipped the run due ${localTime(slot, e.timezone)} ${e.timezone} (${ago(age)} ago, older than its catch_up of ${e.config.catch_up}s)`,
        { schedule: name, due: new Date(slot).toISOString() },
      );
      return;
    }
    if (this.o.waiting(e.sender) > 0) {
      this.state.set(name, { lastSlot: slot });
      e.folded++;
      this.o.logger.info(`schedule ${name}: the run due ${localTime(slot, e.timezone)} is folded into the one still waiting for the agent`, { schedule: name });
      return;
    }
    this.state.set(name, { lastSlot: slot, lastFiredAt: now });
    this.fire(e, slot, age > ON_TIME_MS ? `missed while the daemon was down, run ${ago(age)} late` : null, false);
  }

  /** Queues a run's prompt; returns the queue's refusal, or null. */
  private fire(e: Entry, slot: number, note: string | null, record = true): string | null {
    const name = e.config.name;
    const due = `${localTime(slot, e.timezone)} ${e.timezone}`;
    const where = e.channel ? `; the reply goes to ${e.channel}` : "";
    const text = `[schedule ${name}, ${note ?? `due ${due}`}${where}] ${e.config.prompt}`;
    const origin = newOrigin("schedule", e.channel && /^[#&]/.test(e.channel) ? e.channel : null, e.sender, e.channel, e.config.prompt);
    if (record) this.state.set(name, { lastFiredAt: this.o.now() });
    const refused = this.o.enqueue(origin, text);
    if (refused) {
      this.o.logger.warn(`schedule ${name}: the agent's queue refused the run (${refused})`, { schedule: name });
      return refused;
    }
    e.fired++;
    this.o.logger.info(`schedule ${name}: queued the run${note ? ` (${note})` : ` due ${due}`}`, { schedule: name, id: origin.id });
    return null;
  }

  private isPaused(e: Entry): boolean {
    return this.state.get(e.config.name).paused ?? e.config.paused;
  }

  /** The latest slot at or before `now`, or null. */
  private latestSlot(e: Entry, now: number): number | null {
    if (e.config.at !== undefined) {
      const at = e.cron.nextRun(new Date(0));
      return at && at.getTime() <= now ? at.getTime() : null;
    }
    const [prev] = e.cron.previousRuns(1, new Date(now + 1));
    return prev ? prev.getTime() : null;
  }

  /** The first slot after `after`, or null. */
  private nextSlot(e: Entry, after: number): number | null {
    if (e.config.at !== undefined) {
      const at = e.cron.nextRun(new Date(0));
      return at && at.getTime() > after ? at.getTime() : null;
    }
    return e.cron.nextRun(new Date(after))?.getTime() ?? null;
  }

  private arm(now: number): void {
    if (!this.running) return;
    let wait = this.o.checkMaxMs;
    for (const e of this.entries) {
      if (this.isPaused(e)) continue;
      const next = this.nextSlot(e, Math.max(now, this.state.get(e.config.name).lastSlot ?? -Infinity));
      if (next !== null) wait = Math.min(wait, Math.max(0, next - now));
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.check(), wait);
    this.timer.unref?.();
  }

  private find(name: unknown): Entry | { error: string } {
    const known = this.entries.map((e) => e.config.name);
    if (typeof name !== "string" || name === "") return { error: `name a schedule (${known.join(", ") || "this agent has none"})` };
    const e = this.entries.find((x) => x.config.name.toLowerCase() === name.toLowerCase());
    return e ?? { error: `agent ${this.o.nick} has no schedule "${name}" (${known.length ? `its schedules: ${known.join(", ")}` : "it has no schedules"})` };
  }
}

/** Taps the schedules onto the daemon's hooks: started when ready, stopped at shutdown, IPC commands, status. */
export function applySchedules(hooks: DaemonHooks, schedules: Schedules): void {
  const name = "Schedules";
  hooks.ready.tap(name, () => schedules.start());
  hooks.shutdown.tap(name, () => schedules.stop());
  hooks.ipcRequest.tap(name, (req) => schedules.handle(req));
  hooks.status.tap(name, (status) => {
    if (schedules.size === 0) return status;
    const list = schedules.list();
    const next = list.filter((s) => s.next_run !== null).sort((a, b) => a.next_run! - b.next_run!)[0];
    return { ...status, schedules: list, next_run: next ? { schedule: next.name, at: next.next_run, local: `${next.next_run_local} ${next.timezone}` } : null };
  });
}

/** `2026-11-30 09:00` in `timezone`. */
export function localTime(ms: number, timezone: string): string {
  const parts = new Intl.DateTimeFormat("en-CA", { timeZone: timezone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).formatToParts(new Date(ms));
  const p = (t: string) => parts.find((x) => x.type === t)?.value ?? "";
  return `${p("year")}-${p("month")}-${p("day")} ${p("hour")}:${p("minute")}`;
}

function ago(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}
