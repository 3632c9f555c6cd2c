/**
 * The daemon's budget (budget/agent-budget.ts), loaded only when the config gives this agent a
 * cap (its own, the home's, a channel's or an account's) or a chain cap: without one every
 * answer is known (nothing is over budget, nothing is held), so an idle daemon does not load
 * the budget engine. An operator's `budget` command (IRC or `culture budget`) loads it then and
 * answers as it always did ("has no budget caps"); a failure to load reaches the log and the
 * operator (E_PART_LOAD).
 */
import type { AgentBudget, AgentBudgetOptions, BudgetStatus } from "../budget/agent-budget.js";
import { resolveCaps } from "../budget/budget-caps.js";
import type { BudgetCommand } from "../budget/budget-command.js";
import type { CapStanding } from "../budget/budget-engine.js";
import { errorMessage } from "../errors.js";
import type { IpcRequest, IpcResult, PromptOrigin } from "../events.js";
import type { QueuedPrompt } from "./prompt-queue.js";
import type { ReceiptState } from "./receipt-texts.js";
import { lazyPart } from "./lazy-part.js";

/** True when the config gives `agent` a budget cap or a chain cap: the budget is loaded at start. */
export function budgetConfigured(o: Pick<AgentBudgetOptions, "config" | "agent">): boolean {
  return resolveCaps(o.config, o.agent).length > 0 || (o.config.budget?.chain_tokens ?? null) !== null;
}

/** The budget as the daemon uses it: the real one once loaded, else the answers of one without caps. */
export class BudgetPart {
  private real: AgentBudget | null = null;
  private started = false;
  private stopped = false;
  private readonly load: () => Promise<AgentBudget>;

  constructor(private readonly o: AgentBudgetOptions) {
    this.load = lazyPart(
      "budget",
      async () => {
        const { AgentBudget } = await import("./lazy-modules.js");
        const real = (this.real ??= new AgentBudget(this.o));
        if (this.started && !this.stopped) real.start();
        return real;
      },
      o.logger,
    );
  }

  /** True once the budget engine is loaded (tests, status). */
  get loaded(): boolean {
    return this.real !== null;
  }

  /** Loads and starts the budget when the config uses one; otherwise only notes the start. */
  async start(): Promise<void> {
    if (budgetConfigured(this.o)) await this.load();
    this.started = true;
    this.real?.start();
  }

  stop(): void {
    this.stopped = true;
    this.real?.stop();
  }

  blocked(): CapStanding | null {
    return this.real?.blocked() ?? null;
  }

  hold(p: QueuedPrompt): boolean {
    return this.real?.hold(p) ?? false;
  }

  releaseHeld(): QueuedPrompt[] {
    return this.real?.releaseHeld() ?? [];
  }

  receiptFor(origin: PromptOrigin): ReceiptState | null {
    return this.real?.receiptFor(origin) ?? null;
  }

  describe(): string | null {
    return this.real?.describe() ?? null;
  }

  status(): BudgetStatus {
    return this.real?.status() ?? { time_zone: this.o.config.budget?.time_zone ?? null, over_budget: null, held: 0, chain_tokens: null, caps: [] };
  }

  /** An operator's `budget` command on IRC (loads the budget first if it is not). */
  async command(cmd: BudgetCommand, by: string): Promise<{ ok: boolean; lines: string[] }> {
    try {
      return (await this.load()).command(cmd, by);
    } catch (err) {
      return { ok: false, lines: [errorMessage(err)] };
    }
  }

  /** The control socket's `budget` request (null for any other type). */
  ipc(req: IpcRequest): Promise<IpcResult> | null {
    if (req.type !== "budget") return null;
    return this.load().then(
      (real) => real.ipc(req) ?? { ok: false, error: "not a budget request" },
      (err: unknown) => ({ ok: false, error: errorMessage(err) }),
    );
  }
}
