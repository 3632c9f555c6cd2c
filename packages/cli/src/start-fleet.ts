/**
 * What `culture start [nick|--all]` does in its own process (the parent of a fleet start): load
 * agents.yaml, register the agents' channels with the embedded server, and spawn each agent's
 * daemon detached (own process group, stdin closed, output appended to
 * `$CULTURE_HOME/logs/agent-<nick>.log`), at most `--parallel` at once, each reporting on its
 * file descriptor 3 (ready-report.ts) when it is connected, joined and running — or the real
 * error. Only then does it print `Started <nick> (pid N)`.
 *
 * It imports the lean entries of core (`@culture/core/config`) and of the server
 * (`@culture/server/channel-registry`), never the barrels: the parent runs before and beside
 * every daemon of a fleet start, on the same cores, so what it evaluates delays them all
 * (issue 30). main.ts reaches it without commander for the plain command lines (start-args.ts).
 */
import { spawn } from "node:child_process";
import { closeSync } from "node:fs";
import type { Readable } from "node:stream";
import { agentLogPath, loadConfig, openPrivateAppend, usageError } from "@culture/core/config";
import { assertOwnerShell } from "./control.js";
import { READY_ENV, READY_FD, readReadyReports } from "./ready-report.js";
import { cannotRunNote, refusedNote } from "./start-notes.js";
import { cleanStaleFiles, inspectAgent, selectAgents } from "./agents.js";
import { progress } from "./progress.js";
import { daemonEnv, daemonNodeFlags, daemonScript } from "./daemon-flags.js";
import { registerChannels } from "./channel-owners.js";
import { parseParallel, startInWaves } from "./start-waves.js";
import { reportCultureError } from "./report-error.js";
import type { StartArgs } from "./start-args.js";

/** The options of `culture start` (without `--foreground`), as commander hands them over. */
export interface StartOptions {
  all?: boolean;
  timeout: string;
  parallel?: string;
}

/**
 * Starts one agent (`nick`) or all (`--all`) of the config at `configPath` (undefined: the
 * usual search), prints the results and sets the exit code (1 when any did not end well).
 */
export async function runStart(nick: string | undefined, opts: StartOptions, configPath: string | undefined): Promise<void> {
  // An agent starting daemons would run them with its own environment (and its owner's powers).
  assertOwnerShell("culture start");
  const parallel = parseParallel(opts.parallel);
  const timeoutMs = timeoutOption(opts.timeout);
  const config = await loadConfig(configPath ? { configPath } : {});
  const agents = selectAgents(config, nick, opts.all, "start");
  // filepath is set for every config loaded from a file, which is the only kind loadConfig returns.
  const configFile = config.filepath!;
  // The embedded server gives ops in the agents' channels only to their owners (channel-owners.ts).
  registerChannels(config);
  // In waves: a bounded number at once, so a busy machine does not make the server refuse them.
  const results = await startInWaves(agents, parallel, (a) => progress(`Starting ${a.nick}`, () => startDetached(a.nick, configFile, timeoutMs)));
  if (printStartResults(results)) process.exitCode = 1;
}

/** Parses `--timeout <seconds>` of start and restart into milliseconds. */
export function timeoutOption(value: string): number {
  const ms = Number(value) * 1000;
  if (!Number.isFinite(ms) || ms <= 0) throw usageError(`--timeout must be a positive number of seconds, got "${value}"`);
  return ms;
}

/**
 * Prints start results the way `culture start` does (notes and `Started` on stdout, warnings and
 * errors on stderr) and returns how many did not end well (exit 1 when any).
 */
export function printStartResults(results: readonly StartResult[]): number {
  let failed = 0;
  for (const r of results) {
    for (const note of r.notes) process.stdout.write(`${note}\n`);
    if (r.ok) process.stdout.write(`${r.message}\n`);
    if (r.ok && r.warning) {
      failed += 1;
      process.stderr.write(`${r.warning}\n`);
    } else if (!r.ok) {
      failed += 1;
      process.stderr.write(`${r.message}\n`);
    }
  }
  return failed;
}

/** What starting one agent came to. */
export interface StartResult {
  ok: boolean;
  /** Started, but not all is well (channels the server refused): printed on stderr, exit 1. */
  warning?: string;
  /** `Started <nick> (pid N)`, `<nick> is already running (pid N)`, or the error. */
  message: string;
  /** Things done on the way (stale files removed). */
  notes: string[];
}

/** Spawns one detached daemon and waits for its readiness report (start and restart). */
export async function startDetached(nick: string, configFile: string, timeoutMs: number): Promise<StartResult> {
  const state = await inspectAgent(nick);
  if (state.answering || state.busy || state.pid !== null) {
    const busy = state.answering ? "" : " but does not answer yet; see culture status";
    return { ok: true, message: `${nick} is already running (pid ${state.pid ?? "unknown"})${busy}`, notes: [] };
  }
  const cleaned = cleanStaleFiles(state);
  const notes = cleaned ? [`${nick}: ${cleaned}`] : [];
  const logPath = agentLogPath(nick);
  // The log holds every prompt and DM: 0600 in a 0700 folder, an older 0644 one tightened.
  const log = openPrivateAppend(logPath);
  // The daemon image's loader, else the same entry script this CLI runs from (dist/main.js, or
  // the bin wrapper that loads it): daemon-flags.ts daemonScript.
  const script = daemonScript(process.argv[1]!);
  const child = spawn(process.execPath, [...daemonNodeFlags(), script, "start", nick, "--foreground", "--config", configFile], {
    detached: true, // its own session and process group: a terminal's ^C or hangup does not reach it
    stdio: ["ignore", log, log, "pipe"], // fd 3: its readiness report (ready-report.ts)
    env: { ...process.env, ...daemonEnv(), [READY_ENV]: String(READY_FD) },
  });
  closeSync(log);
  const channel = child.stdio[READY_FD] as Readable;
  const result = await new Promise<{ ok: boolean; message: string; warning?: string }>((resolve) => {
    let settled = false;
    let channelClosed = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    const finish = (r: { ok: boolean; message: string; warning?: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.removeAllListeners();
      channel.destroy();
      child.unref();
      resolve(r);
    };
    const timer = setTimeout(
      () =>
        finish({
          ok: false,
          message: `${nick}: the daemon (pid ${child.pid}) did not report ready within ${timeoutMs / 1000}s; it may still be starting.\nSee ${logPath}, or stop it with: culture stop ${nick}`,
        }),
      timeoutMs,
    );
    const exited = ({ code, signal }: { code: number | null; signal: NodeJS.Signals | null }) =>
      finish({
        ok: false,
        message: `${nick}: the daemon exited (${signal ? `signal ${signal}` : `code ${code}`}) before it was ready; see ${logPath}`,
      });
    readReadyReports(
      channel,
      (m) => {
        if (m.type === "ready" && m.cannot_run) finish({ ok: false, message: cannotRunNote(nick, m.pid ?? child.pid ?? 0, m.cannot_run, m.channels_refused) });
        else if (m.type === "ready") finish({ ok: true, message: `Started ${nick} (pid ${m.pid ?? child.pid})`, ...refusedNote(nick, m.channels_refused) });
        else finish({ ok: false, message: `${nick}: ${m.message ?? "the daemon failed to start"}\n(log: ${logPath})` });
      },
      () => {
        channelClosed = true;
        if (exit) exited(exit);
      },
    );
    child.on("exit", (code, signal) => {
      // A report written just before exiting may still be in the channel: wait for its end.
      exit = { code, signal };
      if (channelClosed) exited(exit);
    });
    child.on("error", (err) => finish({ ok: false, message: `${nick}: could not start the daemon: ${err.message}` }));
  });
  return { ...result, notes };
}

/**
 * `culture start <nick>` / `culture start --all` as main.ts's fast path runs it: what the
 * commander action does for these arguments (`--config` or CULTURE_CONFIG), with errors
 * reported by the same policy (report-error.ts).
 */
export async function runStartCommand(args: StartArgs): Promise<void> {
  try {
    await runStart(args.nick, args.options, args.config ?? (process.env.CULTURE_CONFIG || undefined));
  } catch (err) {
    process.exitCode = reportCultureError(err, args.debug);
  }
}
