/**
 * A cap on agent-to-agent mention chains, per channel. Two agents that answer each other's
 * mentions would otherwise ping-pong forever. The daemon counts, per channel, the agents'
 * messages since the last message from a human (its own included); a mention from an agent
 * when that count is past `maxHops` does not become a prompt. Any human message in the
 * channel resets the count.
 *
 * With `budget.chain_tokens`, a chain is also capped by what it spends: the tokens of every
 * turn asked in the channel that ended after the last human message there (this agent's and,
 * through the usage journals, the other agents' of the same home). Past it, an agent's mention
 * is refused the same way.
 *
 * Who is an agent: the nicks of the agents in the same config (and their `_` fallbacks), plus
 * the `knownAgents` the daemon is given. An agent of another config on the same network counts
 * as a human unless it is listed there.
 */

/** Counts agent hops per channel. */
export class AgentChainGuard {
  private readonly agents: Set<string>;
  private readonly hopsByChannel = new Map<string, number>();
  /** Per channel: when the last human spoke (the chain's start, epoch ms) and the tokens spent since. */
  private readonly spentByChannel = new Map<string, { since: number; tokens: number }>();
  private refusedCount = 0;
  /** Before any human spoke since the daemon started, a chain counts from the start. */
  private readonly bornAt: number;

  constructor(
    agentNicks: readonly string[],
    private readonly maxHops: number,
    /** Tokens one chain may spend (`budget.chain_tokens`); null: no token cap. */
    private readonly maxTokens: number | null = null,
    private readonly now: () => number = Date.now,
  ) {
    this.agents = new Set(agentNicks.map(normal));
    this.bornAt = now();
  }

  /** True when `nick` is one of the known agents. */
  isAgent(nick: string): boolean {
    return this.agents.has(normal(nick));
  }

  /** A channel message from `nick` (the daemon's own sends included). */
  observe(channel: string, nick: string): void {
    const key = channel.toLowerCase();
    if (this.isAgent(nick)) this.hopsByChannel.set(key, (this.hopsByChannel.get(key) ?? 0) + 1);
    else {
      this.hopsByChannel.delete(key);
      this.spentByChannel.set(key, { since: this.now(), tokens: 0 });
    }
  }

  /** A turn asked in `channel` ended at `at` having spent `tokens` (counted when it ended after the chain began). */
  noteSpend(channel: string | null, tokens: number, at: number): void {
    if (this.maxTokens === null || channel === null) return;
    const key = channel.toLowerCase();
    const s = this.spentByChannel.get(key) ?? { since: this.bornAt, tokens: 0 };
    if (at >= s.since) s.tokens += tokens;
    this.spentByChannel.set(key, s);
  }

  /** Tokens spent in `channel` since the last human message there. */
  tokens(channel: string): number {
    return this.spentByChannel.get(channel.toLowerCase())?.tokens ?? 0;
  }

  /** Which cap an agent's mention in `channel` is past now: `hops`, `tokens`, or null. */
  limitHit(channel: string): "hops" | "tokens" | null {
    if (this.hops(channel) > this.maxHops) return "hops";
    if (this.maxTokens !== null && this.tokens(channel) >= this.maxTokens) return "tokens";
    return null;
  }

  /** The chain's token cap, or null. */
  get tokenCap(): number | null {
    return this.maxTokens;
  }

  /** Agent messages in `channel` since the last human one. */
  hops(channel: string): number {
    return this.hopsByChannel.get(channel.toLowerCase()) ?? 0;
  }

  /**
   * Whether a mention from `nick` in `channel` (already observed) may become a prompt. Counts
   * a refusal.
   */
  allows(channel: string, nick: string): boolean {
    if (!this.isAgent(nick) || this.limitHit(channel) === null) return true;
    this.refusedCount++;
    return false;
  }

  /** Mentions refused so far. */
  get refused(): number {
    return this.refusedCount;
  }
}

/** Lower-cased, without the `_` a nick-in-use fallback adds. */
function normal(nick: string): string {
  return nick.toLowerCase().replace(/_+$/, "");
}
