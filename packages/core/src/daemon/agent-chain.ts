/**
 * A cap on agent-to-agent mention chains, per channel. Two agents that answer each other's
 * mentions would otherwise ping-pong forever. The daemon counts, per channel, the agents'
 * messages since the last message from a human (its own included); a mention from an agent
 * when that count is past `maxHops` does not become a prompt. Any human message in the
 * channel resets the count.
 *
 * Who is an agent: the nicks of the agents in the same config (and their `_` fallbacks), plus
 * the `knownAgents` the daemon is given. An agent of another config on the same network counts
 * as a human unless it is listed there.
 */

/** Counts agent hops per channel. */
export class AgentChainGuard {
  private readonly agents: Set<string>;
  private readonly hopsByChannel = new Map<string, number>();
  private refusedCount = 0;

  constructor(
    agentNicks: readonly string[],
    private readonly maxHops: number,
  ) {
    this.agents = new Set(agentNicks.map(normal));
  }

  /** True when `nick` is one of the known agents. */
  isAgent(nick: string): boolean {
    return this.agents.has(normal(nick));
  }

  /** A channel message from `nick` (the daemon's own sends included). */
  observe(channel: string, nick: string): void {
    const key = channel.toLowerCase();
    if (this.isAgent(nick)) this.hopsByChannel.set(key, (this.hopsByChannel.get(key) ?? 0) + 1);
    else this.hopsByChannel.delete(key);
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
    if (!this.isAgent(nick) || this.hops(channel) <= this.maxHops) return true;
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
