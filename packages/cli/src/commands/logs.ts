/** `culture logs <nick> [-f] [-n N]`: an agent's daemon log. */
import { createReadStream, existsSync, statSync, watch } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { agentLogPath, CultureError, usageError } from "@culture/core";

/** Registers `culture logs`. */
export function registerLogs(program: Command): void {
  program
    .command("logs")
    .description("print an agent's daemon log")
    .argument("<nick>", "the agent")
    .option("-f, --follow", "keep printing new lines")
    .option("-n, --lines <n>", "how many lines from the end", "50")
    .action(async (nick: string, opts: { follow?: boolean; lines: string }) => {
      const n = Number(opts.lines);
      if (!Number.isInteger(n) || n < 0) throw usageError(`-n must be a whole number, got "${opts.lines}"`);
      const path = agentLogPath(nick);
      if (!existsSync(path)) throw new CultureError("E_NOT_RUNNING", `No log for ${nick} at ${path} (has it ever been started?)`);
      const text = await readFile(path, "utf8");
      const lines = text.split("\n");
      if (lines.at(-1) === "") lines.pop();
      if (n > 0) process.stdout.write(lines.slice(-n).join("\n") + (lines.length ? "\n" : ""));
      if (!opts.follow) return;
      let offset = statSync(path).size;
      await new Promise<void>(() => {
        watch(path, () => {
          const size = statSync(path).size;
          if (size < offset) offset = 0; // truncated
          if (size === offset) return;
          createReadStream(path, { start: offset, end: size - 1 }).pipe(process.stdout, { end: false });
          offset = size;
        });
      });
    });
}
