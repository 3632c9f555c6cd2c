/**
 * Registered channels: the channels culture's agents live in, owned by accounts (the
 * operators' and the agents' own). On an IRC network without services the first client to
 * join an empty channel becomes its op; then anyone could join an agent's channel while it is
 * empty (the agent restarting), take ops, set +i, and lock the agent out. A registered channel
 * has no such first-comer rule: only its owners ever get ops (when they join), and owners
 * always get in (bans, +i, +k and +l do not stop them), like ChanServ's access lists.
 *
 * The registry is a JSON file (`<stateDir>/channels.json`, 0600) written by the culture CLI
 * from agents.yaml — `culture server start` and `culture start` each replace the entry of
 * their config file — and re-read by the server when it changes:
 *
 * ```json
 * { "version": 1, "configs": { "/home/u/proj/agents.yaml": { "#general": ["alice", "spark-bot"] } } }
 * ```
 *
 * A channel's owners are the union over every config that names it.
 */
import { closeSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ircLower } from "./casemapping.js";
import { ensurePrivateDir, tightenFile } from "./private-files.js";

/** `<stateDir>/channels.json`. */
export function channelRegistryPath(stateDir: string): string {
  return join(stateDir, "channels.json");
}

/** What the registry file holds: per config file, channel name -> owner accounts. */
export interface ChannelRegistryFile {
  version: 1;
  configs: Record<string, Record<string, string[]>>;
}

/** The registry as the server reads it (cached, refreshed when the file changes). */
export class ChannelRegistry {
  private owners = new Map<string, Set<string>>();
  private stamp = "";

  constructor(
    readonly path: string,
    private readonly onError: (message: string) => void = () => {},
  ) {}

  /**
   * The folded owner accounts of `channel`, or null when it is not registered (the usual IRC
   * rules apply: the first to join is op).
   */
  ownersOf(channel: string): ReadonlySet<string> | null {
    this.refresh();
    return this.owners.get(ircLower(channel)) ?? null;
  }

  /** True when `account` (not null) owns the registered `channel`. */
  isOwner(channel: string, account: string | null): boolean {
    return account !== null && this.ownersOf(channel)?.has(ircLower(account)) === true;
  }

  private refresh(): void {
    let stamp: string;
    try {
      const st = statSync(this.path);
      stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch {
      stamp = "missing";
    }
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    if (stamp === "missing") {
      this.owners = new Map();
      return;
    }
    try {
      this.owners = flatten(parseRegistry(readFileSync(this.path, "utf8")));
    } catch (err) {
      // Keep what we had: a half-edited file must not open every agent channel to first-comers.
      this.onError(`the channel registry ${this.path} cannot be read (${err instanceof Error ? err.message : String(err)}); keeping the previous one`);
    }
  }
}

/**
 * Replaces `source`'s entry (a config file's path) in the registry at `path` with `channels`
 * (channel -> owner accounts); an empty `channels` removes the entry. Written atomically,
 * 0600 in a 0700 folder.
 */
export function updateChannelRegistry(path: string, source: string, channels: Record<string, readonly string[]>): void {
  ensurePrivateDir(dirname(path));
  const unlock = lock(`${path}.lock`);
  try {
    let current: ChannelRegistryFile = { version: 1, configs: {} };
    try {
      current = parseRegistry(readFileSync(path, "utf8"));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    const entry: Record<string, string[]> = {};
    for (const [name, owners] of Object.entries(channels)) entry[name] = [...new Set(owners)].sort();
    if (Object.keys(entry).length) current.configs[source] = entry;
    else delete current.configs[source];
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(current, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, path);
    tightenFile(path);
  } finally {
    unlock();
  }
}

function parseRegistry(text: string): ChannelRegistryFile {
  const parsed = JSON.parse(text) as { configs?: unknown } | null;
  const configs = parsed?.configs;
  if (typeof configs !== "object" || configs === null) throw new Error('no "configs" object');
  const out: ChannelRegistryFile = { version: 1, configs: {} };
  for (const [source, channels] of Object.entries(configs as Record<string, unknown>)) {
    if (typeof channels !== "object" || channels === null) continue;
    const entry: Record<string, string[]> = {};
    for (const [name, owners] of Object.entries(channels as Record<string, unknown>)) {
      if (Array.isArray(owners)) entry[name] = owners.filter((o): o is string => typeof o === "string" && o.length > 0);
    }
    out.configs[source] = entry;
  }
  return out;
}

function flatten(file: ChannelRegistryFile): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const channels of Object.values(file.configs)) {
    for (const [name, owners] of Object.entries(channels)) {
      const key = ircLower(name);
      const set = out.get(key) ?? new Set<string>();
      for (const o of owners) set.add(ircLower(o));
      out.set(key, set);
    }
  }
  return out;
}

/** A short exclusive lock (two `culture start` at once); one older than 10 s was left by a dead writer. */
function lock(path: string): () => void {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      closeSync(openSync(path, "wx", 0o600));
      return () => rmSync(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      try {
        if (Date.now() - statSync(path).mtimeMs > 10_000) rmSync(path, { force: true });
      } catch {
        /* released meanwhile */
      }
      if (Date.now() > deadline) throw new Error(`the channel registry is locked by ${path}; remove that file if no culture command is running`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}
