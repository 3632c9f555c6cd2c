/**
 * The caps that apply to one agent's daemon, resolved from the config: its own (`agents[].budget`),
 * the whole home's (`budget.home`), and every channel's and account's (any of them may ask it).
 * Each cap gets a stable id (`agent spark-bot day`), the key persisted overrides are filed under.
 */
import type { AgentConfig, CultureConfig } from "../config/schema.js";
import type { BudgetCapConfig, BudgetCapsConfig, BudgetPeriod } from "./budget-schema.js";
import type { Spend } from "./spend.js";

/** What a cap counts. */
export type CapScope = "agent" | "channel" | "account" | "home";

/** One resolved cap. */
export interface CapSpec {
  /** `agent spark-bot day`, `channel #general week`, `account alice month`, `home day` (`#2` added for a second cap alike). */
  id: string;
  scope: CapScope;
  /** The agent nick, channel or account (lower-cased); null for home. */
  key: string | null;
  tokens: number | null;
  usd: number | null;
  per: BudgetPeriod;
  /** Abort a turn in flight past the cap. */
  hardStop: boolean;
}

/** The caps of `agent` under `config` (none when nothing is configured). */
export function resolveCaps(config: Pick<CultureConfig, "budget">, agent: Pick<AgentConfig, "nick" | "budget">): CapSpec[] {
  const b = config.budget;
  const hardStop = b?.hard_stop ?? false;
  const out: CapSpec[] = [];
  const add = (scope: CapScope, key: string | null, caps: BudgetCapsConfig | null | undefined) => {
    for (const c of list(caps)) out.push(spec(scope, key, c, hardStop, out));
  };
  add("agent", agent.nick.toLowerCase(), agent.budget);
  add("home", null, b?.home);
  for (const [channel, caps] of Object.entries(b?.channels ?? {})) add("channel", channel.toLowerCase(), caps);
  for (const [account, caps] of Object.entries(b?.accounts ?? {})) add("account", account.toLowerCase(), caps);
  return out;
}

/** True when `spend` counts against `cap`. */
export function capCounts(cap: CapSpec, spend: Pick<Spend, "agent" | "channel" | "account">): boolean {
  switch (cap.scope) {
    case "home":
      return true;
    case "agent":
      return spend.agent.toLowerCase() === cap.key;
    case "channel":
      return spend.channel?.toLowerCase() === cap.key;
    case "account":
      return spend.account?.toLowerCase() === cap.key;
  }
}

/** `the budget of spark-bot`, `the #general channel's budget`, `alice's budget`, `the culture home's budget`. */
export function capName(cap: Pick<CapSpec, "scope" | "key">): string {
  switch (cap.scope) {
    case "agent":
      return `${cap.key}'s budget`;
    case "channel":
      return `${cap.key}'s channel budget`;
    case "account":
      return `account ${cap.key}'s budget`;
    case "home":
      return "the culture home's budget";
  }
}

function list(caps: BudgetCapsConfig | null | undefined): BudgetCapConfig[] {
  if (!caps) return [];
  return Array.isArray(caps) ? caps : [caps];
}

function spec(scope: CapScope, key: string | null, c: BudgetCapConfig, hardStop: boolean, sofar: CapSpec[]): CapSpec {
  const base = `${scope}${key === null ? "" : ` ${key}`} ${c.per}`;
  const same = sofar.filter((s) => s.id === base || s.id.startsWith(`${base} #`)).length;
  return { id: same ? `${base} #${same + 1}` : base, scope, key, tokens: c.tokens ?? null, usd: c.usd ?? null, per: c.per, hardStop: c.hard_stop ?? hardStop };
}
