/**
 * The `culture` binary. A tiny dispatcher: `culture channel ...` is run by agents on every IRC
 * action, so it takes a fast path that loads neither commander nor the @culture/core barrel;
 * `culture mcp` (the IRC tools as an MCP server) likewise skips commander, and so does
 * `culture start <nick> --foreground`, the daemon every `culture start` spawns per agent
 * (foreground-args.ts says which command lines; every other one, errors included, is commander's).
 */
import { foregroundArgs } from "./foreground-args.js";

const argv = process.argv.slice(2);
const foreground = foregroundArgs(argv);
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
} else {
  const { runCli } = await import("./program.js");
  await runCli(argv);
}
