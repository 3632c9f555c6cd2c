/**
 * Who may talk to an agent, and who may command it. An agent usually runs with its owner's
 * full shell rights, so a prompt is as good as a shell: identity is decided by IRC account
 * (services or the embedded server's accounts), which the server vouches for, never by nick,
 * which anyone can take on most networks.
 *
 * - Commands (`@agent resume`, `@agent abort`): only `operators:` accounts. With none
 *   configured, nobody on IRC (the local CLI still can: `culture resume`). Nick matching only
 *   with `operators_by_nick: true`, for servers that have no accounts at all.
 * - Prompts: `allow:` (the agent's own, else the top-level one): `everyone`, `accounts`
 *   (anyone logged in), a list of accounts, or `auto`: `accounts` when the server has accounts
 *   (offers SASL, as the embedded server does), `everyone` when it has none. Operators may
 *   always prompt.
 * - Anyone else is told so at most once per hour per sender (and a few times per minute in
 *   all, so many senders cannot turn refusals into a flood), and the message is logged. It is
 *   still buffered: the agent can read the channel, it is just not a prompt.
 */
import type { Allow, AgentConfig, CultureConfig } from "../config/schema.js";
import type { Logger } from "../logger.js";

/** The sender of a message, as the IRC transport reports it. */
export interface Sender {
  nick: string;
  /** The sender's account, or null when not logged in (or unknown). */
  account: string | null;
}

/** What a refused sender tried: prompt the agent, or give an operator command. */
export type RefusedAction = "prompt" | "resume" | "abort" | "answer approval requests of" | "manage the budget of" | "list the pending approvals of";

/** Options of {@link AccessPolicy}. */
export interface AccessPolicyOptions {
  logger: Logger;
  /** Milliseconds between refusal notices to one sender; default one hour. */
  noticeIntervalMs?: number;
  /** Refusal notices per minute in all; default 6. */
  noticesPerMinute?: number;
  now?: () => number;
}

/** The decisions for one agent. */
export class AccessPolicy {
  private readonly operators: Set<string>;
  private readonly byNick: boolean;
  private readonly allow: Allow;
  private readonly noticedAt = new Map<string, number>();
  /** Lines refused per sender since their last notice: the next notice counts them (never silent forever). */
  private readonly unnoticed = new Map<string, number>();
  private recentNotices: number[] = [];
  private readonly noticeIntervalMs: number;
  private readonly noticesPerMinute: number;
  private readonly now: () => number;

  constructor(
    config: Pick<CultureConfig, "operators" | "operators_by_nick" | "allow">,
    agent: Pick<AgentConfig, "allow">,
    private readonly opts: AccessPolicyOptions,
  ) {
    this.operators = new Set(config.operators.map(fold));
    this.byNick = config.operators_by_nick === true;
    this.allow = agent.allow ?? config.allow ?? "auto";
    this.noticeIntervalMs = opts.noticeIntervalMs ?? 3_600_000;
    this.noticesPerMinute = opts.noticesPerMinute ?? 6;
    this.now = opts.now ?? Date.now;
  }

  /** True when `sender` may resume or abort the agent from IRC. */
  mayCommand(sender: Sender): boolean {
    if (this.operators.size === 0) return false;
    if (sender.account !== null && this.operators.has(fold(sender.account))) return true;
    return this.byNick && this.operators.has(fold(sender.nick));
  }

  /** True when a mention or DM from `sender` may become a prompt. */
  mayPrompt(sender: Sender, serverHasAccounts: boolean): boolean {
    if (this.mayCommand(sender)) return true;
    const allow = this.allow === "auto" ? (serverHasAccounts ? "accounts" : "everyone") : this.allow;
    if (allow === "everyone") return true;
    if (sender.account === null) return false;
    if (allow === "accounts") return true;
    return allow.some((a) => fold(a) === fold(sender.account!));
  }

  /**
   * Logs a refused message and returns the short notice to send its sender, or null when the
   * sender was told within the hour (or too many notices went out this minute).
   */
  refusal(sender: Sender, what: RefusedAction, agentNick: string): string | null {
    this.opts.logger.info(`ignored a ${what} from ${sender.nick} (${sender.account ? `account ${sender.account}` : "not logged in"}): not allowed`, {
      nick: sender.nick,
      account: sender.account,
    });
    const now = this.now();
    const key = sender.account ? `a:${fold(sender.account)}` : `n:${fold(sender.nick)}`;
    const last = this.noticedAt.get(key);
    const quiet = () => {
      this.unnoticed.set(key, (this.unnoticed.get(key) ?? 0) + 1);
      if (this.unnoticed.size > 10_000) this.unnoticed.delete(this.unnoticed.keys().next().value!);
      return null;
    };
    if (last !== undefined && now - last < this.noticeIntervalMs) return quiet();
    this.recentNotices = this.recentNotices.filter((t) => now - t < 60_000);
    if (this.recentNotices.length >= this.noticesPerMinute) return quiet();
    this.recentNotices.push(now);
    this.noticedAt.set(key, now);
    if (this.noticedAt.size > 10_000) this.noticedAt.delete(this.noticedAt.keys().next().value!);
    const more = this.unnoticed.get(key) ?? 0;
    this.unnoticed.delete(key);
    const since = more ? ` (nor ${more} more of yours since the last notice)` : "";
    return what === "prompt"
      ? `${agentNick} only takes prompts from ${this.describeAllow()}; your message was not passed on${since}.`
      : `only operators (by IRC account) can ${what} ${agentNick}${since ? `; your line was ignored${since}` : ""}.`;
  }

  private describeAllow(): string {
    if (this.allow === "everyone" || this.allow === "auto") return "users logged in to an account, or its operators";
    if (this.allow === "accounts") return "users logged in to an account";
    return "certain accounts";
  }
}

function fold(s: string): string {
  return s.toLowerCase();
}
