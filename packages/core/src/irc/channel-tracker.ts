/**
 * Which channels the transport wants to be in, which it is in, and who is in them.
 *
 * Three sets that change for different reasons: the configured channels (from agents.yaml;
 * a kick or a refused JOIN does not make us forget them), the wanted channels (rejoined after
 * every reconnect: the configured ones plus those joined later, until parted), and the joined
 * channels (only what the server has confirmed with our JOIN echo, with their members). All
 * keys are folded by the server's case mapping, so they are recomputed when the server
 * announces a different one. The transport feeds this from the raw line stream and decides
 * what to emit; this file only keeps the books.
 */

/** A joined channel and its member count. */
export interface IrcChannelInfo {
  channel: string;
  members: number;
}

interface ChannelState {
  name: string;
  /** folded nick -> nick */
  members: Map<string, string>;
}

/** The channel books of one transport, keyed by `fold`ed names. */
export class ChannelTracker {
  /** The configured channel names (kicks and join errors don't make us forget these). */
  private readonly configured = new Set<string>();
  /** Channels to (re)join: folded name -> name. */
  private readonly wanted = new Map<string, string>();
  /** Channels the server confirmed: folded name -> state. */
  private readonly joined = new Map<string, ChannelState>();

  /** `fold` folds a nick or channel name by the server's current case mapping. */
  constructor(private readonly fold: (name: string) => string) {}

  /** A channel from the config: wanted, and kept wanted through kicks and refusals. */
  configure(name: string): void {
    this.wanted.set(this.fold(name), name);
    this.configured.add(name);
  }

  /** Names of the channels the server has confirmed we are in. */
  joinedNames(): string[] {
    return [...this.joined.values()].map((c) => c.name);
  }

  /** Names of the channels to (re)join. */
  wantedNames(): string[] {
    return [...this.wanted.values()];
  }

  /** The nicks in the channel with folded name `key` (ours included), empty when we are not in it. */
  members(key: string): string[] {
    return [...(this.joined.get(key)?.members.values() ?? [])];
  }

  /** True when the server has confirmed we are in the channel with folded name `key`. */
  isJoined(key: string): boolean {
    return this.joined.has(key);
  }

  /** True when the channel with folded name `key` is (re)joined after reconnects. */
  isWanted(key: string): boolean {
    return this.wanted.has(key);
  }

  /** The name of a joined channel as the server spelled it, or undefined. */
  joinedName(key: string): string | undefined {
    return this.joined.get(key)?.name;
  }

  /** Joined channels with their member counts. */
  info(): IrcChannelInfo[] {
    return [...this.joined.values()].map((c) => ({ channel: c.name, members: c.members.size }));
  }

  /** We left `key` on purpose (PART): it is no longer wanted, nor configured. */
  unwant(key: string): void {
    this.wanted.delete(key);
    for (const name of this.configured) if (this.fold(name) === key) this.configured.delete(name);
  }

  /**
   * The server removed us from `key` against our will (a kick, a refused JOIN): a configured
   * channel stays wanted and comes back on the next reconnect, another one is dropped.
   */
  dropUnlessConfigured(key: string): void {
    if (!this.isConfigured(key)) this.wanted.delete(key);
  }

  /** The server echoed our JOIN of `name` (as `nick`): joined, with us as its first member, and wanted. */
  selfJoined(name: string, nick: string): void {
    const key = this.fold(name);
    this.joined.set(key, { name, members: new Map([[this.fold(nick), nick]]) });
    this.wanted.set(key, name);
  }

  /** We are no longer in `key` (PART or KICK). Returns the name it was joined under, if it was. */
  selfLeft(key: string): string | undefined {
    const state = this.joined.get(key);
    this.joined.delete(key);
    return state?.name;
  }

  /** Our nick changed from `oldNick` to `newNick`: every joined channel lists the new one. */
  selfRenamed(oldNick: string, newNick: string): void {
    for (const channel of this.joined.values()) {
      channel.members.delete(this.fold(oldNick));
      channel.members.set(this.fold(newNick), newNick);
    }
  }

  /** Someone else joined `key`. */
  memberJoined(key: string, nick: string): void {
    this.joined.get(key)?.members.set(this.fold(nick), nick);
  }

  /** Someone else left `key` (PART, or kicked). */
  memberLeft(key: string, nick: string): void {
    this.joined.get(key)?.members.delete(this.fold(nick));
  }

  /** Someone quit the network: gone from every channel. */
  memberQuit(nick: string): void {
    const key = this.fold(nick);
    for (const channel of this.joined.values()) channel.members.delete(key);
  }

  /** Someone else changed nick: renamed in the channels that list them. */
  memberRenamed(oldNick: string, newNick: string): void {
    const oldKey = this.fold(oldNick);
    for (const channel of this.joined.values()) {
      if (channel.members.delete(oldKey)) channel.members.set(this.fold(newNick), newNick);
    }
  }

  /** A NAMES reply (353) for `channel`: `names` separated by spaces, each maybe with prefixes from `prefixSymbols`. */
  names(channel: string, names: string, prefixSymbols: ReadonlySet<string>): void {
    const state = this.joined.get(this.fold(channel));
    if (!state) return;
    for (let entry of names.split(" ")) {
      while (entry.length > 0 && prefixSymbols.has(entry[0]!)) entry = entry.slice(1);
      const nick = entry.split("!")[0] ?? "";
      if (nick) state.members.set(this.fold(nick), nick);
    }
  }

  /** The server's case mapping changed: keys were computed under the old one, so recompute them. */
  rekey(): void {
    const rekey = <V>(map: Map<string, V>, nameOf: (v: V, k: string) => string): void => {
      const entries = [...map];
      map.clear();
      for (const [k, v] of entries) map.set(this.fold(nameOf(v, k)), v);
    };
    rekey(this.wanted, (name) => name);
    rekey(this.joined, (state) => state.name);
  }

  /** The connection is gone: we are in no channel (the wanted ones are rejoined later). */
  onDisconnect(): void {
    this.joined.clear();
  }

  private isConfigured(key: string): boolean {
    for (const name of this.configured) if (this.fold(name) === key) return true;
    return false;
  }
}
