/**
 * How a detached daemon tells the `culture start` that spawned it that it is up (or why it is
 * not): one JSON line on a socket the parent gives it as file descriptor 3, named by an
 * environment variable. Not Node's IPC channel: a process started with one sets it up (with
 * `net`, `child_process` and the streams) while Node boots, before the daemon's loader can put
 * V8's flags back to the defaults that Node's own code cache needs, so each daemon compiled
 * those modules from source (~8 ms of CPU per daemon, issue 30). Node marks the descriptor
 * close-on-exec as it starts, so the agents a daemon runs never hold it.
 *
 * Its own file, with only node:fs, so that the `culture start` parent (start-fleet.ts) does not
 * load the daemon's code to learn a name.
 */
import { closeSync, fstatSync, writeSync } from "node:fs";
import type { Readable } from "node:stream";
import type { ChannelRefusal } from "@culture/core/config";

/** Set by `culture start` in a detached child: report readiness (or the error) on the descriptor it names. */
export const READY_ENV = "CULTURE_DAEMON_READY_CHANNEL";

/** The descriptor of the report channel in the daemon (the fourth of `spawn`'s stdio). */
export const READY_FD = 3;

/** What a daemon reports: `ready` (with what the server refused, and why the agent cannot run, if so) or `error`. */
export interface ReadyReport {
  type: "ready" | "error";
  pid?: number;
  message?: string;
  channels_refused?: ChannelRefusal[];
  cannot_run?: string | null;
}

/**
 * In the daemon: the report channel `culture start` gave it, or null when it was started some
 * other way (by hand, by systemd) — then descriptor 3 is not ours, and is left alone. Takes the
 * variable out of the environment, so the agent processes the daemon starts do not see it.
 */
export function openReadyChannel(env: NodeJS.ProcessEnv = process.env, fd = READY_FD): ReadyChannel | null {
  const named = env[READY_ENV];
  delete env[READY_ENV];
  if (named !== String(fd)) return null;
  try {
    if (!fstatSync(fd).isSocket()) return null;
  } catch {
    return null;
  }
  return new ReadyChannel(fd);
}

/** The daemon's end: one report, then closed. */
export class ReadyChannel {
  private open = true;

  constructor(private readonly fd: number) {}

  /** Writes the report as one line and closes the channel; false when it is closed already or the parent is gone. */
  send(report: ReadyReport): boolean {
    if (!this.open) return false;
    this.open = false;
    const line = Buffer.from(`${JSON.stringify(report)}\n`);
    try {
      for (let at = 0; at < line.length; ) at += writeSync(this.fd, line, at);
      return true;
    } catch {
      return false; // the parent exited (EPIPE): nobody waits for the report
    } finally {
      closeSync(this.fd);
    }
  }
}

/**
 * In `culture start`: calls `onReport` with each report line the daemon writes on `channel`
 * (its stdio[3]), and `onEnd` once the daemon's end is closed (it reported, or exited). A line
 * that is not a report is passed on as an `error` report that quotes it (shortened).
 */
export function readReadyReports(channel: Readable, onReport: (report: ReadyReport) => void, onEnd: () => void): void {
  let buffered = "";
  channel.setEncoding("utf8");
  channel.on("data", (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      onReport(parseReport(line));
    }
  });
  channel.on("error", () => undefined); // the daemon's end went away: "close" follows
  channel.on("close", onEnd);
}

function parseReport(line: string): ReadyReport {
  try {
    const report = JSON.parse(line) as ReadyReport;
    if (report && (report.type === "ready" || report.type === "error")) return report;
  } catch {
    // not JSON: said below
  }
  return { type: "error", message: `the daemon's readiness report is not one: ${JSON.stringify(line.slice(0, 200))}` };
}
