/**
 * `culture channel <cmd>`: the agent's IRC client, a thin rendering of the catalogue of IRC
 * commands (core's irc-commands/): each command's arguments, help and answer formatting come
 * from its definition, and every check (joined? nick online?) is the daemon's, so this client
 * and the MCP tools cannot disagree. The agent runs it (through its shell tool) on every IRC
 * action, so it is the hottest path in culture: arguments are parsed by hand and it imports
 * only `@culture/core/paths`, `@culture/core/ipc-client` and `@culture/core/channel-commands`,
 * which load nothing but node builtins. bench/channel-cold-start.mjs keeps it honest.
 *
 * Exit status: 0 ok, 1 failure (daemon not running, an `ok:false` answer, bad CULTURE_NICK),
 * 2 usage error.
 */
import { NICK_RE, socketPath, socketPathFits, UNIX_SOCKET_PATH_LIMIT } from "@culture/core/paths";
import { IpcClient, type IpcWhisper } from "@culture/core/ipc-client";
import {
  ChannelUsageError,
  commandHelp,
  fieldsFromWords,
  IRC_COMMANDS,
  positiveInt,
  textFrom,
  usageOf,
  type IrcCommand,
} from "@culture/core/channel-commands";

/** Where output goes (tests and embedding may replace it). */
export interface ChannelIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
}

const defaultIo: ChannelIo = {
  stdout: (t) => write(process.stdout, t),
  stderr: (t) => write(process.stderr, t),
  env: process.env,
};

/** Writes through {@link defaultIo} not yet handed to the OS. */
let pendingWrites = 0;
let onWritten: (() => void) | null = null;

function write(stream: NodeJS.WriteStream, text: string): void {
  pendingWrites++;
  stream.write(text, () => {
    if (--pendingWrites === 0) onWritten?.();
  });
}

/**
 * Resolves once everything `runChannel` printed has been written (stdout and stderr are
 * asynchronous pipes on some platforms, macOS among them). bin/culture.cjs then exits at once
 * instead of letting Node tear the process down at its leisure: the agent waits for the exit,
 * and the natural teardown (closing the socket's handle, another turn of the event loop) is
 * ~1 ms of a ~30 ms call (bench/channel-cold-start.mjs).
 */
export function outputWritten(): Promise<void> {
  if (pendingWrites === 0) return Promise.resolve();
  return new Promise((resolve) => {
    onWritten = resolve;
  });
}

/** Options of {@link runChannel}. */
export interface RunChannelOptions {
  /**
   * The caller ends the process as soon as `runChannel` resolves (bin/culture.cjs does, once
   * the output is written): the IPC connection is then left open for the exit to close,
   * instead of being destroyed first. Destroying a socket makes Node create `process.stderr`
   * (net's `Socket._destroy` compares the socket with it), a stream over a pipe when an agent
   * runs the command: ~0.5 ms of a ~28 ms call (bench/channel-cold-start.mjs). Without this
   * option the connection is closed, so an embedding process is not kept alive by it.
   */
  exiting?: boolean;
}

/** Runs `culture channel` with the arguments after `channel`; returns the exit status. */
export async function runChannel(argv: string[], io: ChannelIo = defaultIo, options: RunChannelOptions = {}): Promise<number> {
  let parsed: Parsed;
  try {
    parsed = parseArgv(argv);
  } catch (err) {
    if (!(err instanceof ChannelUsageError)) throw err;
    const cmd = findCommand(argv);
    io.stderr(`culture channel${cmd ? ` ${cmd.name}` : ""}: ${err.message}\n${cmd ? `usage: culture channel ${usageOf(cmd)}\n` : overview()}`);
    return 2;
  }
  if (parsed.kind === "help") {
    io.stdout(parsed.command ? commandHelp(parsed.command) : overview());
    return 0;
  }
  const { command, fields, json } = parsed;

  const nick = io.env.CULTURE_NICK;
  if (nick === undefined || nick.length === 0) {
    io.stderr(
      "culture channel: CULTURE_NICK is not set.\n" +
        "It names the agent whose daemon to talk to; the daemon sets it in the agent's environment.\n" +
        "Outside an agent, set it yourself: CULTURE_NICK=<nick> culture channel " + command.name + " ...\n",
    );
    return 1;
  }
  if (!NICK_RE.test(nick)) {
    io.stderr(
      `culture channel: CULTURE_NICK=${JSON.stringify(nick)} is not a valid nick.\n` +
        "A nick is letters, digits and [ ] \\ ` _ ^ { | } -, and does not start with a digit or -.\n",
    );
    return 1;
  }
  const path = socketPath(nick, io.env);
  if (!socketPathFits(path)) {
    io.stderr(
      `culture channel: the IPC socket path is over the AF_UNIX limit of ${UNIX_SOCKET_PATH_LIMIT} bytes:\n  ${path}\n` +
        "Set XDG_RUNTIME_DIR or CULTURE_HOME to a shorter directory (the daemon must use the same one).\n",
    );
    return 1;
  }

  let client: IpcClient;
  try {
    client = await IpcClient.connect(path);
  } catch (err) {
    io.stderr(connectFailure(err, nick, path));
    return 1;
  }
  try {
    const res = await client.request(command.ipcType, fields, command.clientTimeoutMs ? { timeoutMs: command.clientTimeoutMs(fields) } : {});
    printWhispers(client.whispers, io);
    if (!res.ok) {
      io.stderr(`culture channel ${command.name}: ${res.error ?? "the daemon refused the request"}\n`);
      return 1;
    }
    const data = res.data ?? {};
    const out = json ? JSON.stringify(data, null, 2) : command.format(data, fields);
    if (out.length > 0) io.stdout(out + "\n");
    return 0;
  } catch (err) {
    printWhispers(client.whispers, io);
    io.stderr(`culture channel ${command.name}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    if (!options.exiting) client.close();
  }
}

type Parsed =
  | { kind: "help"; command: IrcCommand | null }
  | { kind: "run"; command: IrcCommand; fields: Record<string, unknown>; json: boolean };

/**
 * Options (`--json`, `--help`/`-h`, a command's own `--name N`) are recognised anywhere before
 * a `--`; other dash-words are text where a command takes free text, and errors elsewhere.
 */
function parseArgv(argv: string[]): Parsed {
  let json = false;
  let help = false;
  const options: Record<string, number> = {};
  let command: IrcCommand | null = null;
  const args: string[] = [];
  let optionsDone = false;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (!optionsDone) {
      if (word === "--") {
        optionsDone = true;
        continue;
      }
      if (word === "--json") {
        json = true;
        continue;
      }
      if (word === "--help" || word === "-h") {
        help = true;
        continue;
      }
      const flag = /^--([a-z][a-z-]*)(?:=|$)/.exec(word)?.[1];
      if (flag !== undefined && OPTION_FLAGS.has(flag)) {
        if (command) requireOption(command, flag);
        const value = word === `--${flag}` ? argv[++i] : word.slice(flag.length + 3);
        if (value === undefined) throw new ChannelUsageError(`--${flag} needs a number`);
        options[flag] = positiveInt(value, `--${flag}`);
        continue;
      }
    }
    if (command === null) {
      if (word === "help") {
        help = true;
        continue;
      }
      command = IRC_COMMANDS.find((c) => c.name === word) ?? null;
      if (!command) throw new ChannelUsageError(`unknown command '${word}'`);
      for (const flag of Object.keys(options)) requireOption(command, flag);
      continue;
    }
    const from = textFrom(command);
    const isText = from !== undefined && args.length >= from;
    if (!optionsDone && !isText && /^-./.test(word)) throw new ChannelUsageError(`unknown option ${word}`);
    args.push(word);
  }
  if (help) return { kind: "help", command };
  if (!command) throw new ChannelUsageError("missing command");
  return { kind: "run", command, fields: fieldsFromWords(command, args, options), json };
}

/** Every command's own options (`timeout`). */
const OPTION_FLAGS = new Set(IRC_COMMANDS.flatMap((c) => (c.options ?? []).map((o) => o.flag)));

function requireOption(command: IrcCommand, flag: string): void {
  if ((command.options ?? []).some((o) => o.flag === flag)) return;
  const takers = IRC_COMMANDS.filter((c) => (c.options ?? []).some((o) => o.flag === flag)).map((c) => c.name);
  throw new ChannelUsageError(`unknown option --${flag} (only ${takers.join(", ")} take${takers.length === 1 ? "s" : ""} it)`);
}

function findCommand(argv: string[]): IrcCommand | undefined {
  const word = argv.find((w) => IRC_COMMANDS.some((c) => c.name === w));
  return IRC_COMMANDS.find((c) => c.name === word);
}

function connectFailure(err: unknown, nick: string, path: string): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === "E_NOT_RUNNING") {
    return (
      `agent ${nick} is not running (no daemon answers on ${path}).\n` +
      `CULTURE_NICK=${nick} names the agent whose daemon to talk to: is it right? culture status lists the agents.\n` +
      `If it is, start it with: culture start ${nick}\n`
    );
  }
  return `culture channel: ${err instanceof Error ? err.message : String(err)}\n`;
}

function printWhispers(whispers: IpcWhisper[], io: ChannelIo): void {
  for (const w of whispers.splice(0)) io.stderr(`[SUPERVISOR/${w.whisper_type}] ${w.message}\n`);
}

/** The overview `culture channel --help` prints. */
export function overview(): string {
  const usages = IRC_COMMANDS.map((c) => [usageOf(c), c.summary] as const);
  const width = Math.max(...usages.map(([u]) => u.length));
  return (
    "usage: culture channel <command> [--json] [args]\n\n" +
    "Talk on IRC as your agent, through its daemon (CULTURE_NICK names the agent).\n\n" +
    "Commands:\n" +
    usages.map(([u, summary]) => `  ${u.padEnd(width)}  ${summary}`).join("\n") +
    "\n\nOptions:\n" +
    "  --json      print the daemon's raw answer (JSON) instead of text\n" +
    "  -h, --help  help for a command: culture channel <command> --help\n" +
    "  --          everything after it is arguments (for text that looks like an option)\n\n" +
    "Supervisor whispers are printed to stderr as [SUPERVISOR/<TYPE>] <message>.\n"
  );
}
