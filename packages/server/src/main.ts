#!/usr/bin/env node
/**
 * `culture-ircd`: runs the embedded IRC server in the foreground. `culture server start` runs
 * this file as a detached child; it writes the PID file itself, only once it is listening, so
 * a PID file always names a server that got as far as accepting connections.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { accountStorePath } from "./account-store.js";
import { channelRegistryPath } from "./channel-registry.js";
import { startServer } from "./irc-server.js";
import { defaultStateDir, type ServerLogger } from "./server-options.js";
import { ensurePrivateDir } from "./private-files.js";

const USAGE = `Usage: culture-ircd [options]

Runs culture's embedded IRC server in the foreground.

Options:
  --port N            TCP port (default 6667; 0 picks a free one)
  --host H            interface to bind (default 127.0.0.1)
  --name NAME         server name (default culture.local)
  --state-dir DIR     where history is kept (default $CULTURE_HOME/server)
  --no-state          keep history in memory only
  --history-size N    messages kept per channel (default 1000)
  --accounts-file F   the account store (default <state-dir>/accounts.json; manage it
                      with culture server user add|remove|list|passwd)
  --channels-file F   the channel registry: channels owned by accounts (default
                      <state-dir>/channels.json; culture server start writes it
                      from agents.yaml)
  --open              let clients register without logging in (anonymous)
  --accounts FILE     JSON file {"account": "password"} for SASL PLAIN (plain passwords;
                      tests only)
  --no-flood-control  do not throttle clients (benchmarks only)
  --pid-file FILE     write "<pid>\\n<host>:<port>" here once listening; removed on exit
  --log-level LEVEL   debug | info | warn | error (default info)
  -h, --help          this text`;

const LEVELS = ["debug", "info", "warn", "error"] as const;

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: "string" },
        host: { type: "string" },
        name: { type: "string" },
        "state-dir": { type: "string" },
        "no-state": { type: "boolean" },
        "history-size": { type: "string" },
        accounts: { type: "string" },
        "accounts-file": { type: "string" },
        "channels-file": { type: "string" },
        open: { type: "boolean" },
        "no-flood-control": { type: "boolean" },
        "pid-file": { type: "string" },
        "log-level": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`culture-ircd: ${err instanceof Error ? err.message : String(err)}\n\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const level = (values["log-level"] ?? "info") as (typeof LEVELS)[number];
  if (!LEVELS.includes(level)) return usage(`--log-level must be one of ${LEVELS.join(", ")}`);
  const port = values.port === undefined ? 6667 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return usage(`--port must be a number from 0 to 65535, got "${values.port}"`);
  const historySize = values["history-size"] === undefined ? undefined : Number(values["history-size"]);
  if (historySize !== undefined && (!Number.isInteger(historySize) || historySize < 0)) return usage("--history-size must be a whole number");
  let accounts: Record<string, string> | undefined;
  if (values.accounts) {
    try {
      accounts = JSON.parse(readFileSync(values.accounts, "utf8")) as Record<string, string>;
      if (typeof accounts !== "object" || accounts === null || Object.values(accounts).some((v) => typeof v !== "string")) throw new Error("expected an object of account: password strings");
    } catch (err) {
      process.stderr.write(`culture-ircd: cannot read --accounts ${values.accounts}: ${err instanceof Error ? err.message : String(err)}\n`);
      return 1;
    }
  }

  const logger = lineLogger(level);
  const stateDir = values["no-state"] ? null : (values["state-dir"] ?? defaultStateDir());
  const accountsFile = values["accounts-file"] ?? (stateDir ? accountStorePath(stateDir) : null);
  const channelsFile = values["channels-file"] ?? (stateDir ? channelRegistryPath(stateDir) : null);
  const open = values.open === true || accountsFile === null;
  if (open) logger.warn("anonymous clients may connect (--open or no account store): anyone who can reach this port can talk to the agents");
  const pidFile = values["pid-file"];
  let server;
  try {
    server = await startServer({
      port,
      host: values.host ?? "127.0.0.1",
      name: values.name,
      stateDir,
      historySize,
      accounts,
      accountsFile,
      channelsFile,
      open,
      flood: values["no-flood-control"] ? false : undefined,
      logger,
    });
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  if (pidFile) writePidFile(pidFile, `${process.pid}\n${server.host}:${server.port}\n`);
  process.stdout.write(`culture-ircd listening on ${server.host}:${server.port} (pid ${process.pid})\n`);
  process.stdout.write(open ? "anonymous clients may connect (open)\n" : `every client must log in (accounts: ${accountsFile})\n`);

  await new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      logger.info("shutting down", { signal });
      resolve();
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  });
  await server.close();
  if (pidFile) removePidFile(pidFile);
  return 0;
}

function usage(message: string): number {
  process.stderr.write(`culture-ircd: ${message}\n`);
  return 2;
}

/** Writes the PID file atomically (a reader never sees it half-written), 0600 in a 0700 folder. */
function writePidFile(path: string, content: string): void {
  ensurePrivateDir(dirname(path));
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode: 0o600 });
  renameSync(tmp, path);
}

/** Removes the PID file if it still names this process (a newer server may have replaced it). */
function removePidFile(path: string): void {
  try {
    if (readFileSync(path, "utf8").split("\n")[0] === String(process.pid)) rmSync(path);
  } catch {
    // Already gone.
  }
}

function lineLogger(min: (typeof LEVELS)[number]): ServerLogger {
  const at = LEVELS.indexOf(min);
  const log = (lvl: (typeof LEVELS)[number]) => (message: string, fields?: Record<string, unknown>) => {
    if (LEVELS.indexOf(lvl) < at) return;
    const tail = fields ? Object.entries(fields).map(([k, v]) => ` ${k}=${JSON.stringify(v)}`).join("") : "";
    process.stderr.write(`${new Date().toISOString()} ${lvl.toUpperCase()} [ircd] ${message}${tail}\n`);
  };
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}

// Exit explicitly: a client that never closes its end must not keep a stopped server alive.
process.exit(await main());
