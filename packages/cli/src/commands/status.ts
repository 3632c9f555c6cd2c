/**
 * `culture status [nick] [--json]`: every configured agent at a glance. Daemons are queried
 * concurrently with a short timeout, so 20 agents take about as long as one.
 */
import type { Command } from "commander";
import { basename } from "node:path";
import { effectiveSandbox, sandboxStatus, type AgentConfig, type CultureConfig } from "@culture/core";
import { configOption } from "../options.js";
import { findAgent, inspectAgent } from "../agents.js";
import { renderTable as renderColumns } from "../table.js";
import { loadConfigIfAny, markConfigs, otherConfigsNote, otherDaemons, pickAgent } from "../fleet-status.js";
import { todayCell, usageTodayFromJournal } from "../usage-report.js";
import { DriftChecker } from "../config-drift.js";

/** The states of the status table. */
export type AgentState = "running" | "paused" | "circuit-open" | "over-budget" | "starting" | "reconnecting" | "restarting" | "stopping" | "stopped";

/** One agent's row. */
export interface AgentStatusRow {
  nick: string;
  state: AgentState;
  pid: number | null;
  backend: string;
  activity: string | null;
  uptime_seconds: number | null;
  description: string | null;
  [field: string]: unknown;
}

/** Registers `culture status`. */
export function registerStatus(program: Command): void {
  program
    .command("status")
    .description("show what every agent is doing")
    .argument("[nick]", "one agent: show its full status")
    .option("--json", "machine-readable output")
    .action(async (nick: string | undefined, opts: { json?: boolean }, command: Command) => {
      const configPath = configOption(command);
      // The config's agents, then every other daemon running under the culture home (any folder's config).
      const config = await loadConfigIfAny(configPath);
      const others = await otherDaemons(config);
      const fromConfig = config?.agents ?? [];
      const agents = nick ? [pickAgent(config, others, nick)] : [...fromConfig, ...others];
      // Every daemon at once, each with a short timeout: 20 agents take about as long as one.
      const rows = await Promise.all(agents.map((a) => agentStatus(a, config)));
      markConfigs(rows, config, others);
      const drift = await driftWarnings(rows, config);
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      if (nick) {
        const row = rows[0]!;
        for (const [k, v] of Object.entries(row)) process.stdout.write(`${k}: ${typeof v === "object" && v !== null ? JSON.stringify(v) : String(v)}\n`);
        process.stdout.write(drift.map((w) => `\n${w}\n`).join(""));
        return;
      }
      if (rows.length === 0) {
        process.stdout.write(config ? `No agents in ${config.filepath}. Add one under agents: (see culture init).\n` : `No config found and no agent running under this culture home. Start with: culture init\n`);
        return;
      }
      process.stdout.write(renderTable(rows, process.stdout.columns ?? 120) + otherConfigsNote(rows, config) + (drift.length ? `\n${drift.join("\n")}\n` : ""));
    });
}

/**
 * Sets `config_drift` on each row of a running daemon (the keys of agents.yaml changed since it
 * started, [] when none; null when it cannot tell) and returns the warning lines.
 */
async function driftWarnings(rows: AgentStatusRow[], config: CultureConfig | null): Promise<string[]> {
  const checker = new DriftChecker(config);
  const results = await Promise.all(rows.map((r) => checker.check(r.nick, r)));
  const warnings: string[] = [];
  rows.forEach((row, i) => {
    const d = results[i];
    row.config_drift = d && !d.error ? d.changed : null;
    if (d?.warning) warnings.push(d.warning);
  });
  return warnings;
}

/** Queries one agent: its daemon's status, or what its PID file says when the daemon does not answer. */
export async function agentStatus(agent: AgentConfig, config: Pick<CultureConfig, "sandbox"> | null = null): Promise<AgentStatusRow> {
  const found = await inspectAgent(agent.nick);
  const d = found.status;
  if (found.answering && d) {
    const state = rowState(d);
    // nick, state, pid, backend first; then every field of the daemon's status object.
    return {
      nick: agent.nick,
      state,
      pid: typeof d.pid === "number" ? d.pid : found.pid,
      backend: typeof d.backend === "string" ? d.backend : agent.agent,
      ...d,
      activity: typeof d.activity === "string" ? d.activity : null,
      uptime_seconds: typeof d.uptime_seconds === "number" ? d.uptime_seconds : null,
      description: typeof d.description === "string" ? d.description : null,
    } as AgentStatusRow;
  }
  // A live daemon whose socket does not answer yet is starting (or wedged).
  const starting = found.pid !== null || found.busy;
  return {
    nick: agent.nick,
    state: starting ? "starting" : "stopped",
    pid: found.pid,
    backend: agent.agent,
    activity: null,
    uptime_seconds: null,
    description: null,
    // A daemon that does not answer cannot say: its journal can (usage-report.ts).
    usage: usageTodayFromJournal(agent.nick),
    // What it would run in (a running daemon reports its own).
    sandbox: sandboxStatus(effectiveSandbox(config ?? {}, agent)),
  };
}

/**
 * The row's state: circuit-open and paused first (what a human must act on), then the daemon's
 * own state when it is not simply up (starting, reconnecting to IRC, restarting its agent,
 * stopping), else running.
 */
export function rowState(d: Record<string, unknown>): AgentState {
  // A model-API failure only a person fixes (context full, out of credit ...) paused the agent.
  const fatal = d.fatal as { reason?: unknown } | null | undefined;
  if (typeof fatal?.reason === "string" && fatal.reason !== "auth") return "paused";
  if (d.circuit_open === true) return "circuit-open";
  if (d.paused === true) return "paused";
  if (d.daemon_state === "over_budget") return "over-budget";
  const s = d.daemon_state;
  if (s === "starting" || s === "reconnecting" || s === "restarting" || s === "stopping") return s;
  return "running";
}

/** The IRC column: the link state, `-` when unknown. */
function ircCell(r: AgentStatusRow): string {
  const irc = r.irc as { state?: unknown } | undefined;
  return typeof irc?.state === "string" ? irc.state : "-";
}

/** Renders the table, truncating descriptions to the terminal width. */
export function renderTable(rows: AgentStatusRow[], width: number): string {
  const header = ["NICK", "STATE", "IRC", "PID", "BACKEND", "ACTIVITY", "UPTIME", "TODAY", "CTX", "DESCRIPTION"];
  const cells = rows.map((r) => [
    r.nick,
    r.state,
    ircCell(r),
    r.pid === null ? "-" : String(r.pid),
    // A backend given as a path (agent: ./my-backend) shows as its folder name.
    (r.backend.includes("/") ? basename(r.backend) : r.backend) + sandboxNote(r),
    r.activity ?? "-",
    r.uptime_seconds === null ? "-" : formatDuration(r.uptime_seconds),
    todayCell(r.usage),
    contextCell(r.context),
    r.description ?? "-",
  ]);
  return renderColumns(header, cells, { width });
}

/**
 * The CTX cell: how full the agent's context window is (`72%`), its tokens when the agent does
 * not say the window's size (`41k`), `-` before the agent reported any (docs/schedules.md).
 */
export function contextCell(context: unknown): string {
  const c = context as { used_tokens?: unknown; share?: unknown } | undefined;
  if (typeof c?.share === "number") return `${Math.round(c.share * 100)}%`;
  if (typeof c?.used_tokens === "number") return c.used_tokens >= 1000 ? `${Math.round(c.used_tokens / 1000)}k` : String(c.used_tokens);
  return "-";
}

/** ` (bwrap)`, ` (bwrap, network off)` after the backend; "" without a sandbox. */
function sandboxNote(r: AgentStatusRow): string {
  const s = r.sandbox as { kind?: unknown; network?: unknown } | undefined;
  if (!s || typeof s.kind !== "string" || s.kind === "none") return "";
  return s.network === "off" ? ` (${s.kind}, network off)` : ` (${s.kind})`;
}

function formatDuration(s: number): string {
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  const h = Math.floor(s / 3600);
  return h < 48 ? `${h}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m` : `${Math.floor(h / 24)}d${h % 24}h`;
}
