/**
 * What `culture console` shows of the fleet, and the one path its buttons act through. The
 * rows come from the same sources as `culture status --json` and `culture top` (each daemon's
 * status on its control socket; the config's agents and every daemon under the culture home;
 * with `--network`, presence), polled once per interval and pushed to every open page only when
 * something changed. Actions go to the daemon's control socket like `culture pause|resume|stop`
 * and `culture approvals`.
 */
import type { PendingApproval } from "@culture/core";
import type { AgentReply } from "../agents.js";
import type { TopRow } from "../top/top-rows.js";

/** One agent as the page shows it. */
export interface ConsoleAgent extends Omit<TopRow, "approval"> {
  /** True when the daemon says it is paused. */
  paused: boolean;
  /** Every pending approval request (local agents). */
  pending: PendingApproval[];
  /** The backend's name. */
  backend: string | null;
  /** Today's spend in USD (the usage totals: the daemon's, else its journal's), null when none. */
  spendUsd: number | null;
  /** Today's tokens (input + output). */
  tokensToday: number;
}

/** Where rows come from and where actions go: the real fleet, or a simulated one (bench). */
export interface FleetSource {
  /** Every agent now. */
  rows(): Promise<ConsoleAgent[]>;
  /** Sends one control request to a local agent's daemon (control socket). */
  control(nick: string, type: string, fields?: Record<string, unknown>): Promise<AgentReply>;
  /**
   * Starts a stopped agent of the config (`culture start <nick>`) or restarts a running one
   * (`culture restart <nick>`); absent: no Start or Restart button.
   */
  lifecycle?(verb: "start" | "restart", nick: string): Promise<{ ok: boolean; output: string }>;
}

/** Polls a {@link FleetSource} and tells listeners when the fleet changed. */
export class FleetWatch {
  private snapshot: ConsoleAgent[] = [];
  private json = "";
  private timer: NodeJS.Timeout | null = null;
  private readonly listeners = new Set<(agents: ConsoleAgent[]) => void>();
  private polling: Promise<void> | null = null;

  constructor(
    readonly source: FleetSource,
    private readonly intervalMs: number,
  ) {}

  /** The last rows read. */
  get agents(): ConsoleAgent[] {
    return this.snapshot;
  }

  /** Starts polling (the first read is awaited). */
  async start(): Promise<void> {
    await this.poll();
    const tick = () => {
      this.timer = setTimeout(() => void this.poll().finally(() => this.timer && tick()), this.intervalMs);
    };
    tick();
  }

  /** Reads the rows now (an action calls this so the page sees its effect at once). */
  poll(): Promise<void> {
    this.polling ??= (async () => {
      try {
        const rows = await this.source.rows();
        const json = JSON.stringify(rows);
        if (json === this.json) return;
        this.json = json;
        this.snapshot = rows;
        for (const l of this.listeners) l(rows);
      } catch {
        // A failed read keeps the last rows; the next tick tries again.
      } finally {
        this.polling = null;
      }
    })();
    return this.polling;
  }

  /** Calls `listener` on every change; returns the unsubscribe function. */
  subscribe(listener: (agents: ConsoleAgent[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops polling. */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** A console row from a `culture status --json` object and its top row. */
export function consoleAgent(status: Record<string, unknown>, row: TopRow): ConsoleAgent {
  const { approval: _first, ...rest } = row;
  const today = (status.usage as { today?: Record<string, unknown> } | undefined)?.today ?? {};
  const n = (v: unknown) => (typeof v === "number" ? v : 0);
  return {
    ...rest,
    paused: status.paused === true,
    pending: ((status.approvals as { pending?: PendingApproval[] } | undefined)?.pending ?? []).map((p) => ({ ...p })),
    backend: typeof status.backend === "string" ? status.backend : null,
    spendUsd: typeof today.cost_usd === "number" && n(today.turns) > 0 ? today.cost_usd : null,
    tokensToday: n(today.input_tokens) + n(today.output_tokens),
  };
}
