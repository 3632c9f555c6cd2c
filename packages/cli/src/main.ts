/**
 * The `culture` binary. A tiny dispatcher: `culture channel ...` is run by agents on every IRC
 * action, so it takes a fast path that loads neither commander nor the @culture/core barrel;
 * `culture mcp` (the IRC tools as an MCP server) likewise skips commander, and so does
 * `culture start <nick> --foreground`, the daemon every `culture start` spawns per agent
 * (foreground-args.ts says which command lines), and so does a plain `culture start <nick>` or
 * `culture start --all`, the parent of a fleet start (start-args.ts); every other command line,
 * errors included, is commander's.
 */
import { foregroundArgs } from "./foreground-args.js";
import { startArgs } from "./start-args.js";

const argv = process.argv.slice(2);
const foreground = foregroundArgs(argv);
const start = foreground ? null : startArgs(argv);
if (argv[0] === "channel") {
  const { runChannel } = await import("./channel/run.js");
  process.exitCode = await runChannel(argv.slice(1));
} else if (argv[0] === "mcp") {
  // The MCP server (stdio); the only path that loads the MCP SDK.
  const { runMcp } = await import("./mcp/server.js");
  process.exitCode = await runMcp(argv.slice(1));
  process.exit();
} else if (foreground) {
  const { runForegroundCommand } = await import("./foreground-daemon.js");
  await runForegroundCommand(foreground);
} else if (start) {
  // The parent of a fleet start: config, spawn, wait (start-fleet.ts), without the program.
  const { runStartCommand } = await import("./start-fleet.js");
  await runStartCommand(start);
} else {
  const { runCli } = await import("./program.js");
  await runCli(argv);
}
