/**
 * `culture start <nick> --foreground`: one agent's daemon in this process, until it stops. It
 * is what `culture start` spawns for each agent (detached, reporting readiness on file
 * descriptor 3: ready-report.ts) and what the systemd unit runs, so main.ts reaches it without
 * commander or the rest of the program (foreground-args.ts); `culture start` reaches it through
 * commander.
 */
import { createAgentDaemon, createLogger, endOwnProcessGroup, errorMessage, isCultureError, type AgentDaemon, type Logger } from "@culture/core";
import { assertOwnerShell } from "./control.js";
import type { ForegroundArgs } from "./foreground-args.js";
import { reportCultureError } from "./report-error.js";
import { logTranscript } from "./transcript-log.js";
import { cannotRunNote, refusedNote } from "./start-notes.js";
import { openReadyChannel, type ReadyReport } from "./ready-report.js";
import { endStartupTiering, forgetDaemonEnv } from "./daemon-flags.js";

/** What the process that runs a daemon may add to its start. */
export interface ForegroundHooks {
  /** A line for the daemon's log as it starts: how its code was loaded (bin/daemon-image.cjs). */
  note?: string;
  /**
   * Called once the daemon's code is loaded (config, backend, plugins), before it connects or
   * starts its agent: bin/daemon-image.cjs saves a first code cache here when other daemons of a
   * fleet wait for one.
   */
  onLoaded?: () => void;
  /**
   * Called once the daemon is up and has reported ready, before V8's usual optimization budget
   * is restored (daemon-flags.ts): bin/daemon-image.cjs saves its code cache here, while V8's
   * flags are still the ones the next daemon starts with.
   */
  onReady?: () => void;
}

/** Runs one daemon in this process until it stops. */
export async function runForeground(nick: string, configPath: string | undefined, hooks: ForegroundHooks = {}): Promise<void> {
  // The readiness report's channel when `culture start` spawned this daemon; its variable, like
  // the daemon's own, leaves the environment the agent processes inherit.
  const channel = openReadyChannel();
  const detached = channel !== null;
  forgetDaemonEnv();
  const report = (msg: ReadyReport) => void channel?.send(msg);
  const logger = createLogger({ scope: nick });
  // Signals are handled from the first moment, for as long as the process lives: a SIGTERM or
  // SIGINT stops the daemon cleanly (exit 0, PID file and socket removed), and one that arrives
  // while it is already stopping — or still loading — must not kill it half way (exit 143/130).
  let daemon: AgentDaemon | null = null;
  let stopRequested: string | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopRequested) {
      logger.info(`received ${signal} again; already stopping (culture stop escalates to SIGKILL if it hangs)`);
      return;
    }
    stopRequested = signal;
    logger.info(`received ${signal}; stopping`);
    if (daemon) void daemon.stop();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // A daemon whose terminal went away keeps running; `culture stop` ends it.
  process.on("SIGHUP", () => logger.info("received SIGHUP; ignored"));
  try {
    daemon = await createAgentDaemon({ nick, ...(configPath ? { configPath } : {}), logger });
    // Once the config named this agent: a command line that fails before prints only its error.
    if (hooks.note) logger.info(hooks.note);
    saveCache(hooks.onLoaded, logger, "loaded");
    logTranscript(daemon, logger);
    if (stopRequested) {
      logger.info(`stopped before starting (${stopRequested})`);
      report({ type: "error", message: `stopped by ${stopRequested} before it was ready` });
      return;
    }
    await daemon.start();
  } catch (err) {
    if (stopRequested) {
      // A stop asked for during startup is not a failure.
      logger.info(`stopped during startup (${stopRequested})`);
      report({ type: "error", message: `stopped by ${stopRequested} before it was ready` });
      return;
    }
    const message = isCultureError(err) ? err.message : errorMessage(err);
    report({ type: "error", message });
    if (!detached) throw err;
    // Into the log file, timestamped like every other line there.
    logger.error(isCultureError(err) ? message : (err as Error)?.stack ?? message);
    process.exitCode = 1;
    return;
  }
  const refused = daemon.channelsRefused;
  const cannotRun = daemon.cannotRun;
  if (detached) logger.info(cannotRun ? `Up, but the agent cannot run (pid ${process.pid})` : `Started ${daemon.nick} (pid ${process.pid})`);
  else if (cannotRun) {
    process.stderr.write(`${cannotRunNote(daemon.nick, process.pid, cannotRun, refused)}\n`);
  } else {
    process.stdout.write(`Started ${daemon.nick} (pid ${process.pid})\n`);
    const { warning } = refusedNote(daemon.nick, refused);
    if (warning) process.stderr.write(`${warning}\n`);
  }
  // What the server refused is known by now (the transport waits for every configured JOIN's answer).
  report({ type: "ready", pid: process.pid, channels_refused: refused, cannot_run: cannotRun });
  saveCache(hooks.onReady, logger, "up");
  endStartupTiering();
  await daemon.done;
  // Everything the daemon runs has stopped: what its agent left running in the daemon's process
  // group (a tool's shell it did not end) goes too (core's process/own-group.ts).
  await endOwnProcessGroup(logger, LEFTOVER_GRACE_MS);
}

/** Runs a hook that saves the code cache; a failure is a warning in the log, never the daemon's end. */
function saveCache(hook: (() => void) | undefined, logger: Logger, stage: "loaded" | "up"): void {
  try {
    hook?.();
  } catch (err) {
    logger.warn(`the daemon is ${stage}, but its code cache was not saved: ${errorMessage(err)}`);
  }
}

/** How long processes left in the daemon's process group get after SIGTERM, and after SIGKILL (`culture stop` waits 10 s). */
const LEFTOVER_GRACE_MS = 2000;

/**
 * `culture start <nick> --foreground` as main.ts's fast path runs it: what the commander
 * action does for these arguments (the owner-shell check, `--config` or CULTURE_CONFIG), with
 * errors reported by the same policy (report-error.ts).
 */
export async function runForegroundCommand(args: ForegroundArgs, hooks: ForegroundHooks = {}): Promise<void> {
  try {
    // An agent starting daemons would run them with its own environment (and its owner's powers).
    assertOwnerShell("culture start");
    await runForeground(args.nick, args.config ?? (process.env.CULTURE_CONFIG || undefined), hooks);
  } catch (err) {
    process.exitCode = reportCultureError(err, args.debug);
  }
}
