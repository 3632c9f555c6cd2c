/**
 * What a daemon was started with, so `culture status` and `culture doctor` can say when
 * agents.yaml no longer matches a running daemon (a change takes effect only on restart).
 *
 * The daemon records, once at start, a keyed digest (HMAC-SHA256 under a random per-daemon
 * salt, 16 hex digits) of each key that shapes it: every field of its agent entry (the common
 * ones and its backend's own, as resolved: defaults filled in, `${VAR}`s interpolated,
 * `directory` absolute) and every top-level section but `agents`. Status carries the digests,
 * never the values: a webhook secret or server password is not in clear, and the salt makes a
 * precomputed table useless. The CLI digests the current file the same way, under the same salt,
 * and names the keys whose digests differ.
 */
import { createHmac, randomBytes } from "node:crypto";
import type { AgentConfig, CultureConfig } from "./schema.js";

/** The `started_config` section of a daemon's status. */
export interface ConfigFingerprint {
  /** The config file the daemon loaded (null: a config built in code). */
  file: string | null;
  /** Hex key of the digests. */
  salt: string;
  /** Digest of all of `keys` together. */
  hash: string;
  /** Digest per key: agent fields by name (`model`), top-level sections as `top-level <key>`. */
  keys: Record<string, string>;
}

/** Where the keys of a top-level section are named in a fingerprint. */
export const TOP_LEVEL_PREFIX = "top-level ";

/** The fingerprint of `agent` in `config`, under `salt` (a new random one when absent). */
export function configFingerprint(config: CultureConfig, agent: AgentConfig, salt: string = randomBytes(16).toString("hex")): ConfigFingerprint {
  const keys: Record<string, string> = {};
  for (const [key, value] of Object.entries(fingerprintedValues(config, agent))) keys[key] = digest(salt, value);
  const hash = digest(salt, Object.keys(keys).sort().map((k) => [k, keys[k]]));
  return { file: config.filepath, salt, hash, keys };
}

/**
 * The keys whose value differs between the fingerprint and `config` (added and removed keys
 * count), the agent's keys before the top-level sections; [] when nothing changed. `agent` undefined: the agent is no
 * longer in the config, reported as `["(removed from the config)"]`.
 */
export function configDrift(started: ConfigFingerprint, config: CultureConfig, agent: AgentConfig | undefined): string[] {
  if (!agent) return [REMOVED];
  const now = configFingerprint(config, agent, started.salt);
  if (now.hash === started.hash) return [];
  const names = [...new Set([...Object.keys(started.keys), ...Object.keys(now.keys)])];
  const changed = names.filter((k) => started.keys[k] !== now.keys[k]);
  // The agent's own keys first, then the top-level sections (a stable sort keeps each group's order).
  return changed.sort((a, b) => Number(a.startsWith(TOP_LEVEL_PREFIX)) - Number(b.startsWith(TOP_LEVEL_PREFIX)));
}

/** The drift entry of an agent that is no longer in the config. */
export const REMOVED = "(removed from the config)";

/** `config changed since start (model, sandbox): culture restart <nick>`, or null without drift. */
export function describeDrift(nick: string, changed: readonly string[]): string | null {
  if (changed.length === 0) return null;
  if (changed[0] === REMOVED) return `no longer in the config it was started with: culture stop ${nick}`;
  return `config changed since start (${changed.join(", ")}): culture restart ${nick}`;
}

/** Whether a status object's `started_config` looks like a {@link ConfigFingerprint}. */
export function isConfigFingerprint(value: unknown): value is ConfigFingerprint {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.salt === "string" && typeof v.hash === "string" && typeof v.keys === "object" && v.keys !== null && (v.file === null || typeof v.file === "string");
}

/** The values fingerprinted, by the name a drift reports. */
function fingerprintedValues(config: CultureConfig, agent: AgentConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const { options, nick: _nick, ...common } = agent;
  for (const [k, v] of Object.entries(common)) out[k] = v;
  // A backend's own fields sit beside the common ones in the agent entry: named as written.
  for (const [k, v] of Object.entries(options ?? {})) out[k] = v;
  const { agents: _agents, filepath: _filepath, ...sections } = config;
  for (const [k, v] of Object.entries(sections)) out[`${TOP_LEVEL_PREFIX}${k}`] = v;
  return out;
}

function digest(salt: string, value: unknown): string {
  return createHmac("sha256", Buffer.from(salt, "hex")).update(canonicalJson(value)).digest("hex").slice(0, 16);
}

/** JSON with object keys sorted at every level and undefined treated as absent: equal values, equal text. */
function canonicalJson(value: unknown): string {
  if (value === undefined) return "null";
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}
