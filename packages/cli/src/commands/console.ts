/**
 * `culture console [--port N] [--host H] [--tls-cert F --tls-key F] [--network]`: the fleet in
 * a web page (docs/console.md). Serves on 127.0.0.1 by default; prints the URL and a one-time
 * login token, then runs until Ctrl-C. The server side lives in console/, built into its own
 * dist/console-server.js with hono bundled in, and is loaded only by this command.
 */
import type { Command } from "commander";
import { usageError } from "@culture/core";
import { configOption } from "../options.js";
import { assertOwnerShell } from "../control.js";
import { loadConfigIfAny } from "../fleet.js";

/** Registers `culture console`. */
export function registerConsole(program: Command): void {
  program
    .command("console")
    .description("the fleet in a web page: status, live transcripts, approvals with buttons (127.0.0.1 by default)")
    .option("--port <n>", "TCP port (0: any free port)", "7717")
    .option("--host <host>", "address to listen on; anything but loopback needs --tls-cert and --tls-key", "127.0.0.1")
    .option("--tls-cert <file>", "PEM certificate: serve HTTPS")
    .option("--tls-key <file>", "PEM private key of --tls-cert")
    .option("--network", "also show every culture agent seen on the IRC network (through presence)")
    .option("--interval <seconds>", "how often the fleet's status is read", "1")
    .action(async (opts: { port: string; host: string; tlsCert?: string; tlsKey?: string; network?: boolean; interval: string }, command: Command) => {
      assertOwnerShell("culture console");
      const port = Number(opts.port);
      if (!/^\d+$/.test(opts.port) || port > 65535) throw usageError(`--port must be a number 0..65535, got "${opts.port}"`);
      const interval = Number(opts.interval);
      if (!Number.isFinite(interval) || interval < 0.1) throw usageError(`--interval must be a number of seconds >= 0.1, got "${opts.interval}"`);
      const config = await loadConfigIfAny(configOption(command));
      // dist/console-server.js, its own bundle (tsup.config.ts): hono is bundled there, not installed.
      const { startConsole } = (await import(new URL("./console-server.js", import.meta.url).href)) as typeof import("../console/console-server.js");
      const running = await startConsole({ host: opts.host, port, tlsCert: opts.tlsCert, tlsKey: opts.tlsKey, intervalSeconds: interval, network: opts.network === true, config });
      process.stdout.write(`culture console on ${running.url}\nOne-time login token (or log in with an account of the embedded server): ${running.token}\n`);
      await new Promise<void>((resolve) => {
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
      await running.close();
    });
}
