/**
 * `culture status [nick] [--json]`: every configured agent at a glance. Daemons are queried
 * concurrently with a short timeout, so 20 agents take about as long as one.
 */
import type { Command } from "commander";
import { agentPidPath, loadConfig, type AgentConfig } from "@culture/core";
import { isOurProcess, readPidFile } from "@culture/core";
import { configOption } from "../program.js";
import { requestAgent } from "../agents.js";
import { daemonMarkers } from "./stop.js";

/** The states of the status table. */
export type AgentState = "running" | "paused" | "circuit-open" | "starting" | "stopped";

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
      const config = await loadConfig(configPath ? { configPath } : {});
      const agents = nick ? config.agents.filter((a) => a.nick.toLowerCase() === nick.toLowerCase()) : config.agents;
      if (nick && agents.length === 0) {
        const { agentNotFound } = await import("@culture/core");
        throw agentNotFound(nick, config.filepath ?? "(config)", config.agents.map((a) => a.nick));
      }
      const rows = await Promise.all(agents.map((a) => agentStatus(a)));
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      if (nick) {
        const row = rows[0]!;
        for (const [k, v] of Object.entries(row)) process.stdout.write(`${k}: ${typeof v === "object" && v !== null ? JSON.stringify(v) : String(v)}\n`);
        return;
      }
      process.stdout.write(renderTable(rows, process.stdout.columns ?? 120));
    });
}

/** Queries one agent. */
export async function agentStatus(agent: AgentConfig): Promise<AgentStatusRow> {
  const reply = await requestAgent(agent.nick, "status", {}, 1000);
  if (reply.running && reply.ok && reply.data) {
    const d = reply.data;
    const state: AgentState = d.circuit_open ? "circuit-open" : d.paused ? "paused" : "running";
    return {
      ...d,
      nick: agent.nick,
      state,
      pid: (d.pid as number) ?? null,
      backend: (d.backend as string) ?? agent.agent,
      activity: (d.activity as string) ?? null,
      uptime_seconds: (d.uptime_seconds as number) ?? null,
      description: (d.description as string) ?? null,
    };
  }
  const pidFile = readPidFile(agentPidPath(agent.nick));
  const starting = pidFile !== null && isOurProcess(pidFile.pid, daemonMarkers(agent.nick));
  return {
    nick: agent.nick,
    state: starting ? "starting" : "stopped",
    pid: starting ? pidFile!.pid : null,
    backend: agent.agent,
    activity: null,
    uptime_seconds: null,
    description: null,
  };
}

/** Renders the table, truncating descriptions to the terminal width. */
export function renderTable(rows: AgentStatusRow[], width: number): string {
  const header = ["NICK", "STATE", "PID", "BACKEND", "ACTIVITY", "UPTIME", "DESCRIPTION"];
  const cells = rows.map((r) => [
    r.nick,
    r.state,
    r.pid === null ? "-" : String(r.pid),
    r.backend,
    r.activity ?? "-",
    r.uptime_seconds === null ? "-" : formatDuration(r.uptime_seconds),
    r.description ?? "-",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const fixed = widths.slice(0, -1).reduce((a, b) => a + b + 2, 0);
  const descWidth = Math.max(12, width - fixed);
  const line = (c: string[]) =>
    c
      .map((v, i) => (i === c.length - 1 ? truncate(v, descWidth) : v.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(header), ...cells.map(line)].join("\n") + "\n";
}

function truncate(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, Math.max(0, n - 1))}…`;
}

function formatDuration(s: number): string {
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  const h = Math.floor(s / 3600);
  return h < 48 ? `${h}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m` : `${Math.floor(h / 24)}d${h % 24}h`;
}
