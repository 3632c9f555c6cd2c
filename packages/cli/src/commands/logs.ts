/**
 * `culture logs <nick> [-f] [-n N]`: an agent's daemon log (`$CULTURE_HOME/logs/agent-<nick>.log`,
 * where `culture start` sends the detached daemon's stdout and stderr). `-f` keeps printing
 * what is appended, and starts over when the file is truncated, until interrupted.
 */
import { closeSync, existsSync, openSync, readSync, statSync, watch } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { dirname } from "node:path";
import { agentLogPath, CultureError, usageError } from "@culture/core";
import { agentLogs, followAll, LOG_LEVELS, mergedTail, type LogLevelName } from "../log-stream.js";

/** Registers `culture logs`. */
export function registerLogs(program: Command): void {
  program
    .command("logs")
    .description("print an agent's daemon log (or, with --all, every agent's, merged)")
    .argument("[nick]", "the agent")
    .option("-f, --follow", "keep printing new lines (until ^C)")
    .option("-n, --lines <n>", "how many lines from the end (0: none)", "50")
    .option("--all", "every agent's log under the culture home, merged, each line prefixed with its nick")
    .option("--level <level>", `with --all: only lines at this level or above (${LOG_LEVELS.join(", ")})`, "debug")
    .action(async (nick: string | undefined, opts: { follow?: boolean; lines: string; all?: boolean; level: string }) => {
      const n = Number(opts.lines);
      if (!Number.isInteger(n) || n < 0) throw usageError(`-n must be a whole number, got "${opts.lines}"`);
      if (opts.all) {
        if (nick) throw usageError("culture logs takes a nick or --all, not both");
        if (!LOG_LEVELS.includes(opts.level as LogLevelName)) throw usageError(`--level must be one of ${LOG_LEVELS.join(", ")}, got "${opts.level}"`);
        const dir = dirname(agentLogPath("x"));
        const lines = mergedTail(agentLogs(dir), n, opts.level as LogLevelName);
        if (lines.length) process.stdout.write(`${lines.join("\n")}\n`);
        if (opts.follow) await followAll(dir, opts.level as LogLevelName, (text) => process.stdout.write(text));
        return;
      }
      if (!nick) throw usageError("culture logs needs a nick, or --all for every agent");
      const path = agentLogPath(nick);
      if (!existsSync(path)) {
        throw new CultureError("E_NOT_RUNNING", `No log for ${nick} at ${path} (has it been started with culture start ${nick}?)`, {
          details: { nick, path },
        });
      }
      const text = await readFile(path, "utf8");
      process.stdout.write(lastLines(text, n));
      if (opts.follow) await follow(path, Buffer.byteLength(text));
    });
}

/** The last `n` lines of `text`, each ending with a newline. */
export function lastLines(text: string, n: number): string {
  if (n === 0) return "";
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.length ? `${lines.slice(-n).join("\n")}\n` : "";
}

/** Prints what is appended to `path` from `offset` on; never resolves. */
function follow(path: string, offset: number): Promise<never> {
  let position = offset;
  const pump = () => {
    let size: number;
    try {
      size = statSync(path).size;
    } catch {
      return; // rotated away; the watcher fires again when it is back
    }
    if (size < position) position = 0; // truncated: start over
    if (size === position) return;
    // Synchronous reads: two change events can never print out of order.
    const fd = openSync(path, "r");
    try {
      const chunk = Buffer.alloc(size - position);
      const read = readSync(fd, chunk, 0, chunk.length, position);
      position += read;
      process.stdout.write(chunk.subarray(0, read));
    } finally {
      closeSync(fd);
    }
  };
  watch(path, pump);
  // fs.watch can miss events on some filesystems (network mounts): a slow poll covers them.
  setInterval(pump, 1000);
  return new Promise<never>(() => undefined);
}
