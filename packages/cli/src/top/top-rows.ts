/**
 * The rows of `culture top` and their rendering: a pure function from rows to the screen's
 * text, so the view is tested without a terminal and the terminal part stays small. Plain
 * ANSI: the view is one table redrawn in place, which needs no layout engine (and a terminal
 * UI library would add to the install budget what the view does not use).
 */
import { formatSeconds } from "@culture/core";

/** One agent in the view. */
export interface TopRow {
  nick: string;
  /** Presence state (docs/presence.md), or `offline` / `not-answering` for a local agent. */
  state: string;
  /** `local` (under this culture home) or `network` (seen through presence). */
  source: "local" | "network";
  irc: string;
  tool: string | null;
  /** Epoch seconds the tool started, for the live elapsed time. */
  toolSince: number | null;
  queued: number;
  turns: number;
  approvals: number;
  /** The first pending approval's id and summary (local agents). */
  approval: { id: string; summary: string } | null;
  /** Spend so far, when the daemon reports one (budgets/usage add it to status). */
  spend: string | null;
  task: string;
}

/** What the screen shows besides the rows. */
export interface TopScreen {
  rows: TopRow[];
  selected: number;
  width: number;
  height: number;
  /** Epoch seconds. */
  now: number;
  /** The last action's result, or a prompt ("press a again to abort ..."). */
  message: string;
  network: boolean;
}

const COLUMNS: Array<{ title: string; width: number; get(r: TopRow, now: number): string }> = [
  { title: "NICK", width: 22, get: (r) => r.nick },
  { title: "STATE", width: 13, get: (r) => r.state },
  { title: "IRC", width: 12, get: (r) => r.irc },
  { title: "TOOL", width: 14, get: (r) => r.tool ?? "-" },
  { title: "ELAPSED", width: 8, get: (r, now) => (r.toolSince === null ? "-" : formatSeconds(now - r.toolSince)) },
  { title: "QUEUE", width: 5, get: (r) => String(r.queued) },
  { title: "TURNS", width: 5, get: (r) => String(r.turns) },
  { title: "APPR", width: 4, get: (r) => String(r.approvals) },
  { title: "SPEND", width: 7, get: (r) => r.spend ?? "-" },
];

/** The screen's lines (no escape codes except reverse video on the selected row). */
export function renderTop(s: TopScreen): string[] {
  const fixed = COLUMNS.reduce((n, c) => n + c.width + 1, 0);
  const taskWidth = Math.max(10, s.width - fixed);
  const cell = (text: string, width: number) => (text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width));
  const line = (cells: string[]) => cells.join(" ");
  const counts = new Map<string, number>();
  for (const r of s.rows) counts.set(r.state, (counts.get(r.state) ?? 0) + 1);
  const summary = [...counts].map(([k, v]) => `${v} ${k}`).join(", ") || "no agents";
  const out = [
    `culture top${s.network ? " --network" : ""} — ${s.rows.length} agent(s): ${summary}`,
    line([...COLUMNS.map((c) => cell(c.title, c.width)), "TASK"]),
  ];
  s.rows.forEach((r, i) => {
    const text = line([...COLUMNS.map((c) => cell(c.get(r, s.now), c.width)), cell(r.task, taskWidth)]).slice(0, s.width);
    out.push(i === s.selected ? `\x1b[7m${text.padEnd(Math.min(s.width, fixed + taskWidth))}\x1b[0m` : text);
  });
  const sel = s.rows[s.selected];
  const room = Math.max(0, s.height - out.length - 3);
  for (let i = 0; i < room; i++) out.push("");
  out.push(sel?.approval ? `approval ${sel.approval.id} of ${sel.nick}: ${sel.approval.summary}`.slice(0, s.width) : "");
  out.push(s.message.slice(0, s.width));
  out.push("↑/↓ select  p pause  r resume  a abort  y approve  n deny  q quit".slice(0, s.width));
  return out;
}

/** A local agent's row from its `culture status --json` object. */
export function rowFromStatus(row: Record<string, unknown>): TopRow {
  const presence = (row.presence ?? null) as { state?: string; queued?: number; approvals?: number } | null;
  const tool = (row.tool ?? null) as { name?: string; elapsed_seconds?: number } | null;
  const irc = (row.irc ?? null) as { state?: string } | null;
  const pending = ((row.approvals as { pending?: Array<{ id: string; summary: string }> } | undefined)?.pending ?? [])[0] ?? null;
  const stateOf = (): string => {
    if (presence?.state) return presence.state;
    if (row.state === "stopped") return "offline";
    return String(row.state ?? "unknown");
  };
  return {
    nick: String(row.nick),
    state: stateOf(),
    source: "local",
    irc: irc?.state ?? "-",
    tool: tool?.name ?? null,
    toolSince: tool && typeof tool.elapsed_seconds === "number" ? Date.now() / 1000 - tool.elapsed_seconds : null,
    queued: typeof row.queued_prompts === "number" ? row.queued_prompts : (presence?.queued ?? 0),
    turns: typeof row.turn_count === "number" ? row.turn_count : 0,
    approvals: presence?.approvals ?? (pending ? 1 : 0),
    approval: pending ? { id: pending.id, summary: pending.summary } : null,
    spend: spendOf(row),
    task: typeof row.description === "string" ? row.description : "",
  };
}

/** A spend figure from a status that has one (usage/budget fields), else null. */
function spendOf(row: Record<string, unknown>): string | null {
  const usage = row.usage as { cost_usd?: unknown; spend_usd?: unknown } | undefined;
  const v = usage?.cost_usd ?? usage?.spend_usd ?? row.spend_usd;
  return typeof v === "number" ? `$${v.toFixed(2)}` : null;
}
