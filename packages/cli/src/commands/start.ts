/**
 * `culture start [nick|--all]`: each agent runs as its own detached daemon process (own process
 * group, stdin closed, output appended to `$CULTURE_HOME/logs/agent-<nick>.log`). The parent
 * waits until each child reports its daemon connected, joined and running — or the real error —
 * and only then prints `Started <nick> (pid N)`; the reference implementation said "Started"
 * before the daemon was up, and a child that failed exited 0. `--foreground` runs one daemon in
 * this process (what the detached child and the systemd unit run). This file registers the
 * command with commander; what the parent does is in start-fleet.ts, which main.ts also runs
 * without commander for the plain command lines (start-args.ts).
 */
import type { Command } from "commander";
import { usageError } from "@culture/core";
import { configOption } from "../options.js";
import { DEFAULT_START_TIMEOUT } from "../start-args.js";
import { assertOwnerShell } from "../control.js";
import { runForeground } from "../foreground-daemon.js";
import { defaultParallelStarts, STARTS_PER_CORE } from "../start-waves.js";
import { runStart, type StartOptions } from "../start-fleet.js";

export { printStartResults, startDetached, timeoutOption, type StartResult } from "../start-fleet.js";

/** Registers `culture start`. */
export function registerStart(program: Command): void {
  program
    .command("start")
    .description("start agent daemons (each a detached process)")
    .argument("[nick]", "the agent to start")
    .option("--all", "start every configured agent")
    .option("--foreground", "run one agent's daemon in this terminal (logs to stderr)")
    .option("--timeout <seconds>", "how long to wait for each daemon to come up", DEFAULT_START_TIMEOUT)
    .option("--parallel <n>", `how many daemons start at once (default: ${STARTS_PER_CORE} per CPU core, here ${defaultParallelStarts()})`)
    .action(async (nick: string | undefined, opts: StartOptions & { foreground?: boolean }, command: Command) => {
      const configPath = configOption(command);
      if (opts.foreground) {
        // An agent starting daemons would run them with its own environment (and its owner's powers).
        assertOwnerShell("culture start");
        if (!nick || opts.all) throw usageError("--foreground runs exactly one agent: culture start <nick> --foreground");
        await runForeground(nick, configPath);
        return;
      }
      await runStart(nick, opts, configPath);
    });
}

