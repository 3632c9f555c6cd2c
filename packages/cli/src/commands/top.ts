/**
 * `culture top [--network] [--interval S]`: a live view of every agent under the culture home
 * (their daemons' status, once per interval), and with `--network` every culture agent seen on
 * the IRC network through presence. Keys act on the selected local agent through its control
 * socket, like `culture pause|resume|approvals`: p pause, r resume, a abort (twice), y approve
 * and n deny its first pending approval, q quit. Plain ANSI (top/top-rows.ts says why).
 */
import type { Command } from "commander";
import { presenceConfigOf, usageError } from "@culture/core";
import { configOption } from "../options.js";
import { loadConfigIfAny, otherDaemons } from "../fleet-status.js";
import { controlAgent } from "../control.js";
import { agentStatus } from "./status.js";
import { renderTop, rowFromStatus, type TopRow } from "../top/top-rows.js";
import { NetworkPresence } from "../top/network-presence.js";

/** Registers `culture top`. */
export function registerTop(program: Command): void {
  program
    .command("top")
    .description("a live view of every agent: state, tool, queue, approvals; keys to pause, resume, abort and answer")
    .option("--network", "also show every culture agent seen on the IRC network (through presence)")
    .option("--interval <seconds>", "refresh interval", "1")
    .action(async (opts: { network?: boolean; interval: string }, command: Command) => {
      const interval = Number(opts.interval);
      if (!Number.isFinite(interval) || interval < 0.2) throw usageError(`--interval must be a number of seconds >= 0.2, got "${opts.interval}"`);
      if (!process.stdin.isTTY || !process.stdout.isTTY) throw usageError("culture top needs a terminal; use culture status --json in scripts");
      const config = await loadConfigIfAny(configOption(command));
      let network: NetworkPresence | null = null;
      if (opts.network) {
        if (!config) throw usageError("culture top --network needs a config (its server: section says which network)");
        const channel = presenceConfigOf(config).channel;
        if (!channel) throw usageError("culture top --network needs presence.channel in the config (docs/presence.md)");
        network = new NetworkPresence(config.server, channel);
        await network.start(`${config.server.name ?? "culture"}-top${process.pid % 1000}`);
      }
      await runTop({ interval, network, localRows: async () => {
        const agents = [...(config?.agents ?? []), ...(await otherDaemons(config))];
        return (await Promise.all(agents.map((a) => agentStatus(a)))).map((r) => rowFromStatus(r));
      } });
      await network?.stop();
    });
}

interface TopOptions {
  interval: number;
  network: NetworkPresence | null;
  localRows(): Promise<TopRow[]>;
}

/** Runs the view until q / Ctrl-C. */
async function runTop(o: TopOptions): Promise<void> {
  const out = process.stdout;
  let rows: TopRow[] = [];
  let selected = 0;
  let message = "";
  let armedAbort: string | null = null;
  let closed = false;
  const draw = () => {
    if (closed) return;
    const lines = renderTop({ rows, selected, width: out.columns ?? 120, height: out.rows ?? 30, now: Date.now() / 1000, message, network: o.network !== null });
    out.write(`\x1b[H${lines.map((l) => `${l}\x1b[K`).join("\n")}\x1b[J`);
  };
  const refresh = async () => {
    const local = await o.localRows();
    const seen = new Set(local.map((r) => r.nick.toLowerCase()));
    const remote = o.network ? [...o.network.rows.values()].filter((r) => !seen.has(r.nick.toLowerCase())) : [];
    rows = [...local, ...remote.sort((a, b) => a.nick.localeCompare(b.nick))];
    selected = Math.min(selected, Math.max(0, rows.length - 1));
    draw();
  };
  const act = async (key: string) => {
    const row = rows[selected];
    if (!row) return;
    if (row.source !== "local") {
      message = `${row.nick} is on the network, not under this culture home: act on it where it runs`;
      return;
    }
    const verdict = async (type: string, fields: Record<string, unknown>, done: string) => {
      const reply = await controlAgent(row.nick, type, fields, 3000, "culture top");
      message = reply.ok ? done : `${row.nick}: ${reply.error ?? "no answer"}`;
    };
    if (key !== "a") armedAbort = null;
    switch (key) {
      case "p":
        return verdict("pause", {}, `paused ${row.nick}`);
      case "r":
        return verdict("resume", {}, `resumed ${row.nick}`);
      case "a":
        if (armedAbort !== row.nick) {
          armedAbort = row.nick;
          message = `press a again to abort ${row.nick}'s current work and queue`;
          return;
        }
        armedAbort = null;
        return verdict("abort", {}, `aborted ${row.nick}'s work`);
      case "y":
      case "n": {
        if (!row.approval) {
          message = `${row.nick} has no pending approval`;
          return;
        }
        const answer = key === "y" ? "approve" : "deny";
        return verdict("approval_answer", { approval: row.approval.id, answer }, `${answer === "approve" ? "approved" : "denied"} ${row.approval.id} of ${row.nick}`);
      }
    }
  };
  out.write("\x1b[?1049h\x1b[?25l");
  const restore = () => out.write("\x1b[?25h\x1b[?1049l");
  process.stdin.setRawMode(true);
  process.stdin.resume();
  process.stdin.setEncoding("utf8");
  await new Promise<void>((resolve) => {
    const quit = () => {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      process.stdin.setRawMode(false);
      process.stdin.pause();
      restore();
      resolve();
    };
    process.stdin.on("data", (data: string) => {
      for (const key of splitKeys(data)) {
        if (key === "q" || key === "\x03") return quit();
        if (key === "\x1b[A" || key === "k") selected = Math.max(0, selected - 1);
        else if (key === "\x1b[B" || key === "j") selected = Math.min(rows.length - 1, selected + 1);
        else void act(key).then(refresh);
      }
      draw();
    });
    process.on("SIGTERM", quit);
    const timer = setInterval(() => void refresh(), o.interval * 1000);
    void refresh();
  });
}

/** Keys in one read: arrow escape sequences stay whole. */
function splitKeys(data: string): string[] {
  return data.match(/\x1b\[[A-D]|[\s\S]/g) ?? [];
}
