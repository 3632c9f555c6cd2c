/**
 * The `culture` binary. A tiny dispatcher: `culture channel ...` is run by agents on every IRC
 * action, so it takes a fast path that loads neither commander nor the @culture/core barrel.
 */
const argv = process.argv.slice(2);
if (argv[0] === "channel") {
  const { runChannel } = await import("./channel/run.js");
  process.exitCode = await runChannel(argv.slice(1));
} else {
  const { runCli } = await import("./program.js");
  await runCli(argv);
}
