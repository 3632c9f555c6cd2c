/**
 * The `culture` binary. A tiny dispatcher: `culture channel ...` is run by agents on every IRC
 * action, so it takes a fast path that loads neither commander nor the @culture/core barrel;
 * `culture mcp` (the IRC tools as an MCP server) likewise skips commander, and so does
 * `culture start <nick> --foreground`, the daemon every `culture start` spawns per agent
 * (foreground-args.ts says which command lines), and so does a plain `culture start <nick>` or
 * `culture start --all`, the parent of a fleet start (start-args.ts); every other command line,
 * errors included, is commander's.
 */
import { createRequire } from "node:module";
import { foregroundArgs } from "./foreground-args.js";
import { startArgs } from "./start-args.js";

const argv = process.argv.slice(2);
const foreground = foregroundArgs(argv);
const start = foreground ? null : startArgs(argv);
if (argv[0] === "channel") {
  const { runChannel } = await import("./channel/run.js");
  process.exitCode = await runChannel(argv.slice(1));
} else if (argv[0] === "mcp") {
  // The MCP server (stdio); the only path that loads the MCP SDK. dist/mcp.js, the bundle
  // bin/culture.cjs runs (tsup.config.ts), by URL so this build does not hold a second copy.
  const { runMcp } = (await import(new URL("./mcp.js", import.meta.url).href)) as typeof import("./mcp/server.js");
  process.exitCode = await runMcp(argv.slice(1));
  process.exit();
} else if (foreground) {
  // From the daemon image when the install has one (its code compiled from a V8 code cache,
  // bin/daemon-image.cjs, docs/performance.md); else, or with CULTURE_NO_DAEMON_IMAGE set, the
  // daemon's ES modules.
  const image = createRequire(import.meta.url)("../bin/daemon-image.cjs") as { useDaemonImage(env: NodeJS.ProcessEnv): boolean; runDaemonImage(argv: string[]): Promise<void> };
  if (image.useDaemonImage(process.env)) await image.runDaemonImage(argv);
  else {
    const { runForegroundCommand } = await import("./foreground-daemon.js");
    await runForegroundCommand(foreground);
  }
} else if (start) {
  // The parent of a fleet start: config, spawn, wait (start-fleet.ts), without the program.
  const { runStartCommand } = await import("./start-fleet.js");
  await runStartCommand(start);
} else {
  const { runCli } = await import("./program.js");
  await runCli(argv);
}
