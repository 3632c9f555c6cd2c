/**
 * `culture logs --all [-f] [--level L]`: every agent's log under the culture home
 * (`$CULTURE_HOME/logs/agent-<nick>.log`) as one stream, each line prefixed with the agent's
 * nick. The tail is merged by time (lines start with an ISO timestamp; a line without one, such
 * as an agent's stderr, keeps the time of the line before it); followed lines are printed in
 * the order they are read. A log that appears later (an agent started meanwhile) joins the stream.
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import { join } from "node:path";

/** The log levels, lowest first. */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
/** One of {@link LOG_LEVELS}. */
export type LogLevelName = (typeof LOG_LEVELS)[number];

const LINE = /^(\d{4}-\d\d-\d\dT[\d:.]+Z) (DEBUG|INFO|WARN|ERROR) /;

/** The agent logs in `dir`, by nick. */
export function agentLogs(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const n of names.sort()) {
    const m = /^agent-(.+)\.log$/.exec(n);
    if (m) out.set(m[1]!, join(dir, n));
  }
  return out;
}

/** True when `line` is at `level` or above; lines without a level (an agent's own output) always pass. */
export function passesLevel(line: string, level: LogLevelName): boolean {
  const m = LINE.exec(line);
  if (!m) return true;
  return LOG_LEVELS.indexOf(m[2]!.toLowerCase() as LogLevelName) >= LOG_LEVELS.indexOf(level);
}

/** The last `n` lines of every log, merged by time, prefixed `<nick> | `. */
export function mergedTail(logs: Map<string, string>, n: number, level: LogLevelName): string[] {
  const all: Array<{ at: string; seq: number; text: string }> = [];
  let seq = 0;
  const width = Math.max(0, ...[...logs.keys()].map((k) => k.length));
  for (const [nick, path] of logs) {
    let last = "";
    const lines = readFileSync(path, "utf8").split("\n").filter((l) => l !== "");
    for (const line of lines) {
      const m = LINE.exec(line);
      if (m) last = m[1]!;
      if (passesLevel(line, level)) all.push({ at: last, seq: seq++, text: prefix(nick, width, line) });
    }
  }
  all.sort((a, b) => (a.at === b.at ? a.seq - b.seq : a.at < b.at ? -1 : 1));
  return n === 0 ? [] : all.slice(-n).map((l) => l.text);
}

/** Prints what is appended to every log (and to logs that appear) until the process ends. */
export function followAll(dir: string, level: LogLevelName, write: (text: string) => void): Promise<never> {
  const offsets = new Map<string, number>();
  const partial = new Map<string, string>();
  for (const [, path] of agentLogs(dir)) offsets.set(path, existsSync(path) ? statSync(path).size : 0);
  const pump = () => {
    const logs = agentLogs(dir);
    const width = Math.max(0, ...[...logs.keys()].map((k) => k.length));
    for (const [nick, path] of logs) {
      let size: number;
      try {
        size = statSync(path).size;
      } catch {
        continue;
      }
      let pos = offsets.get(path) ?? 0;
      if (size < pos) pos = 0; // truncated: start over
      if (size === pos) continue;
      const fd = openSync(path, "r");
      try {
        const chunk = Buffer.alloc(size - pos);
        const read = readSync(fd, chunk, 0, chunk.length, pos);
        offsets.set(path, pos + read);
        const text = (partial.get(path) ?? "") + chunk.subarray(0, read).toString("utf8");
        const lines = text.split("\n");
        partial.set(path, lines.pop() ?? "");
        const out = lines.filter((l) => l !== "" && passesLevel(l, level)).map((l) => `${prefix(nick, width, l)}\n`);
        if (out.length) write(out.join(""));
      } finally {
        closeSync(fd);
      }
    }
  };
  setInterval(pump, 250);
  return new Promise<never>(() => undefined);
}

function prefix(nick: string, width: number, line: string): string {
  return `${nick.padEnd(width)} | ${line}`;
}
