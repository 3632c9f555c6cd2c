/**
 * An agent's presence: the one state a person (or a tool on another server of the network)
 * needs to know what the agent is doing, derived from the daemon's facts by one pure function,
 * and its two wire forms (docs/presence.md):
 *
 * - the AWAY message, for people: `running Bash for 12s: answering alice in #dev (2 queued)`;
 * - the presence line, for tools: `culture-presence v=1 state=running tool=Bash since=... queued=2`.
 *
 * The line format is a contract: tokens are `key=value`, values are percent-encoded (space,
 * `%` and `=` never appear raw), unknown keys are ignored by readers, and `v` changes only
 * when a key changes meaning.
 */

/** Every presence state, in the order of the most important first (docs/presence.md). */
export const PRESENCE_STATES = [
  "offline",
  "stopping",
  "starting",
  "circuit_open",
  "over_budget",
  "paused",
  "stalled",
  "waiting",
  "running",
  "thinking",
  "queued",
  "idle",
] as const;

/** One of {@link PRESENCE_STATES}. */
export type PresenceStateName = (typeof PRESENCE_STATES)[number];

/** The line format's version. */
export const PRESENCE_VERSION = 1;

/** The first word of every presence line. */
export const PRESENCE_TAG = "culture-presence";

/** What presence is derived from (a snapshot of facts the daemon's parts own). */
export interface PresenceFacts {
  lifecycle: "starting" | "running" | "stopping" | "stopped";
  /** The runner keeper is between a crash and the next runner. */
  restarting: boolean;
  circuitOpen: boolean;
  /** Why the agent cannot run until a person acts, or null. */
  fatal: string | null;
  /** Set by budgets (h-budget) when the agent is over its budget. */
  overBudget?: boolean;
  paused: boolean;
  /** The hung watchdog fired and no agent event has come since. */
  stalled: boolean;
  /** Seconds since the last agent event, when stalled. */
  silentSeconds?: number;
  /** Permission requests waiting for an operator. */
  approvalsPending: number;
  /** The first pending approval's id, for the away text. */
  approvalId?: string | null;
  /** A turn is in flight. */
  turn: boolean;
  /** What the turn is about (short, for people), or null. */
  task: string | null;
  /** The tool running now, or null. */
  tool: { name: string; since: number } | null;
  /** Prompts waiting. */
  queued: number;
  turns: number;
  /** The IRC link is up. */
  linkUp: boolean;
}

/** An agent's presence now. */
export interface Presence {
  state: PresenceStateName;
  /** When the current state began (epoch seconds). */
  since: number;
  tool: string | null;
  /** When the tool started (epoch seconds). */
  toolSince: number | null;
  queued: number;
  turns: number;
  approvals: number;
  task: string | null;
}

/** The presence state for these facts: the most important fact wins. */
export function derivePresenceState(f: PresenceFacts): PresenceStateName {
  if (f.lifecycle === "stopped") return "offline";
  if (f.lifecycle === "stopping") return "stopping";
  if (f.lifecycle === "starting") return "starting";
  if (f.circuitOpen || f.fatal) return "circuit_open";
  if (f.overBudget) return "over_budget";
  if (f.paused) return "paused";
  if (f.stalled && f.turn) return "stalled";
  if (f.approvalsPending > 0) return "waiting";
  if (f.turn && f.tool) return "running";
  if (f.turn) return "thinking";
  if (f.restarting) return "starting";
  if (f.queued > 0) return "queued";
  return "idle";
}

/** The part of a presence that, when it changes, is worth an update (elapsed time is not). */
export function presenceKey(p: Presence): string {
  return [p.state, p.tool ?? "", p.toolSince ?? "", p.queued, p.approvals].join("|");
}

/**
 * The AWAY text for people (null: not away). Idle agents are not away, so IRC clients show
 * them as available; every other state is. At most `max` bytes (the server's AWAYLEN).
 */
export function awayText(p: Presence, now = Date.now() / 1000, max = 200): string | null {
  if (p.state === "idle") return null;
  let text: string;
  switch (p.state) {
    case "running":
      text = `running ${p.tool} for ${formatSeconds(now - (p.toolSince ?? now))}`;
      break;
    case "queued":
      text = `queued (${p.queued})`;
      break;
    case "waiting":
      text = `waiting for approval (${p.approvals})`;
      break;
    case "circuit_open":
      text = "circuit open: waiting for an operator's resume";
      break;
    case "over_budget":
      text = "over budget";
      break;
    case "stalled":
      text = `stalled: no agent event for ${formatSeconds(now - p.since)}${p.tool ? ` (running ${p.tool})` : ""}`;
      break;
    default:
      text = p.state;
  }
  if (p.task && (p.state === "running" || p.state === "thinking" || p.state === "waiting" || p.state === "stalled")) text += `: ${p.task}`;
  if (p.queued > 0 && p.state !== "queued") text += ` (${p.queued} queued)`;
  return truncateBytes(text.replace(/[\r\n\0]/g, " "), max);
}

/** The machine-readable presence line (docs/presence.md). */
export function presenceLine(p: Presence): string {
  const parts: [string, string | number | null][] = [
    ["v", PRESENCE_VERSION],
    ["state", p.state],
    ["since", Math.floor(p.since)],
    ["tool", p.tool],
    ["tool_since", p.toolSince === null ? null : Math.floor(p.toolSince)],
    ["queued", p.queued],
    ["turns", p.turns],
    ["approvals", p.approvals],
  ];
  return [PRESENCE_TAG, ...parts.filter(([, v]) => v !== null).map(([k, v]) => `${k}=${encodeValue(String(v))}`)].join(" ");
}

/** A presence line as read from IRC: its known fields, and every field as sent. */
export interface ParsedPresence {
  v: number;
  state: PresenceStateName | string;
  since: number | null;
  tool: string | null;
  toolSince: number | null;
  queued: number;
  turns: number;
  approvals: number;
  fields: Record<string, string>;
}

/** Parses a presence line; null when the text is not one. Unknown keys are kept in `fields`. */
export function parsePresenceLine(text: string): ParsedPresence | null {
  const words = text.trim().split(/\s+/);
  if (words[0] !== PRESENCE_TAG) return null;
  const fields: Record<string, string> = {};
  for (const w of words.slice(1)) {
    const eq = w.indexOf("=");
    if (eq <= 0) continue;
    try {
      fields[w.slice(0, eq)] = decodeURIComponent(w.slice(eq + 1));
    } catch {
      fields[w.slice(0, eq)] = w.slice(eq + 1);
    }
  }
  if (!fields.state || !fields.v) return null;
  const num = (k: string): number | null => (fields[k] !== undefined && Number.isFinite(Number(fields[k])) ? Number(fields[k]) : null);
  return {
    v: num("v") ?? 0,
    state: fields.state,
    since: num("since"),
    tool: fields.tool ?? null,
    toolSince: num("tool_since"),
    queued: num("queued") ?? 0,
    turns: num("turns") ?? 0,
    approvals: num("approvals") ?? 0,
    fields,
  };
}

/** `42s`, `3m05s`, `2h03m`. */
export function formatSeconds(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

function encodeValue(v: string): string {
  return v.replace(/[%\s=]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
}

function truncateBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  let out = text;
  while (Buffer.byteLength(out) > max - 3) out = out.slice(0, -1);
  return `${out}...`;
}
