#!/usr/bin/env node
// The `culture` executable. It is CommonJS on purpose: `culture channel ...` (run by agents on
// every IRC action) then starts without Node's ESM loader and loads one bundled file
// (dist/channel.cjs) with nothing but node builtins. Everything else is the ESM program.
"use strict";
if (process.argv[2] === "channel") {
  const channel = require("../dist/channel.cjs");
  channel
    // exiting: the process ends below, which closes the IPC connection (see RunChannelOptions).
    .runChannel(process.argv.slice(3), undefined, { exiting: true })
    .then(
      // Exit as soon as the output is written: the agent is waiting for this process to end.
      (code) => channel.outputWritten().then(() => process.exit(code)),
      // Exits too: an IPC connection left open (exiting) would keep the process alive.
      (err) => process.stderr.write(`culture channel: unexpected error (this is a bug)\n${err && err.stack ? err.stack : err}\n`, () => process.exit(1)),
    );
} else if (process.argv[2] === "mcp") {
  import("../dist/mcp.js")
    .then((m) => m.runMcp(process.argv.slice(3)))
    .then(
      (code) => {
        process.exitCode = code;
        process.exit();
      },
      (err) => {
        process.stderr.write(`culture mcp: unexpected error (this is a bug)\n${err && err.stack ? err.stack : err}\n`);
        process.exit(1);
      },
    );
} else {
  import("../dist/main.js");
}
