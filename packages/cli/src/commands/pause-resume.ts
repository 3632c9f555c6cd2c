/** `culture pause|resume <nick|--all>`: stop or restart feeding prompts to agents. */
import type { Command } from "commander";
import { configOption } from "../options.js";
import { assertOwnerShell, controlAgent } from "../control.js";
import { loadConfigIfAny, runningDaemons, selectNicks } from "../fleet.js";

/** Registers `culture pause` and `culture resume`. */
export function registerPauseResume(program: Command): void {
  for (const verb of ["pause", "resume"] as const) {
    program
      .command(verb)
      .description(verb === "pause" ? "stop feeding new prompts to agents (mentions are kept)" : "resume paused agents (and restart one whose circuit is open)")
      .argument("[nick]", "the agent")
      .option("--all", "every agent: the config's and every daemon running under the culture home")
      .action(async (nick: string | undefined, opts: { all?: boolean }, command: Command) => {
        assertOwnerShell(`culture ${verb}`);
        const config = await loadConfigIfAny(configOption(command));
        const nicks = selectNicks(config, await runningDaemons(), nick, opts.all, verb);
        const replies = await Promise.all(nicks.map(async (n) => ({ nick: n, reply: await controlAgent(n, verb) })));
        let failed = false;
        for (const { nick: n, reply } of replies) {
          if (!reply.running) process.stdout.write(`${n} is not running\n`);
          else if (!reply.ok) {
            failed = true;
            process.stderr.write(`${n}: ${reply.error}\n`);
          } else process.stdout.write(`${verb === "pause" ? "Paused" : "Resumed"} ${n}\n`);
        }
        if (failed) process.exitCode = 1;
      });
  }
}
