/**
 * `culture channel ...` in the program's help. bin/culture.cjs and main.ts run
 * `culture channel` on a fast path that never loads commander; this entry only makes the
 * command visible in `culture --help` and lets `culture help channel` print its help, both
 * by handing the words to the same runner.
 */
import type { Command } from "commander";
import { overview, runChannel } from "../channel/run.js";

/** Registers `culture channel` (a pass-through to the channel runner). */
export function registerChannel(program: Command): void {
  const channel = program
    .command("channel")
    .description("talk on IRC as your agent: send, read, ask, join, who... (agents run it; culture channel --help)")
    .argument("[words...]", "a channel command and its arguments")
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (words: string[]) => {
      process.exitCode = await runChannel(words.length ? words : ["--help"]);
    });
  // `culture help channel`: the channel runner's own help, not commander's summary of the stub.
  channel.helpInformation = () => overview();
}
