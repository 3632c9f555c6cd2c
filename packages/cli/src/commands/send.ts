/**
 * `culture send <target> <message...>`: posts a message as an operator (nick
 * `<server>-operator`, or `--nick`) through a short-lived IRC connection — to talk to agents
 * from a script or a shell without an IRC client. It succeeds only once the server has
 * processed the message (a PING after it came back), and reports the server's refusal
 * (401 no such nick, 403 no such channel, 404 cannot send, 442 not on channel, ...) instead of
 * pretending. A channel that does not exist is not created: sending to a typo fails.
 */
import type { Command } from "commander";
import { CultureError, isEmbeddedServer, localCredentials, ircCommandFailed, ircJoinFailed, isChannelName, loadConfig, sanitizeTarget, splitMessage, textBudget, usageError, type ServerConfig } from "@culture/core";
import { assertOwnerShell } from "../control.js";
import { configOption } from "../options.js";
import { IrcLineClient, isErrorNumeric, type IrcLine } from "../irc-line-client.js";
import { progress } from "../progress.js";

/** Registers `culture send`. */
export function registerSend(program: Command): void {
  program
    .command("send")
    .description("post a message to a channel or nick as an operator (e.g. to @mention an agent)")
    .argument("<target>", "a channel (#general) or a nick")
    .argument("<message...>", "the text (several words are joined by spaces; newlines make several lines)")
    .option("--nick <nick>", "the nick to send as (default: <server>-operator)")
    .option("--timeout <seconds>", "how long to wait for the server", "15")
    .action(async (target: string, words: string[], opts: { nick?: string; timeout: string }, command: Command) => {
      // The operator's identity is the owner's: an agent has its own IRC tools (culture channel).
      assertOwnerShell("culture send");
      const timeoutMs = Number(opts.timeout) * 1000;
      if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw usageError(`--timeout must be a positive number of seconds, got "${opts.timeout}"`);
      const configPath = configOption(command);
      const config = await loadConfig(configPath ? { configPath } : {});
      const nick = opts.nick ?? operatorNick(config.server);
      const result = await progress(`Sending to ${target}`, () => sendAsOperator(config.server, nick, target, words.join(" "), timeoutMs));
      const account = config.server.sasl ? `, logged in as ${config.server.sasl.account}` : "";
      process.stdout.write(`Sent to ${result.target} as ${result.nick} (${result.lines} line${result.lines === 1 ? "" : "s"}${account})\n`);
    });
}

/** The default operator nick: `<server>-operator` (`culture-operator` when the server has no name). */
export function operatorNick(server: ServerConfig): string {
  return `${server.name ?? "culture"}-operator`;
}

/** What {@link sendAsOperator} sent. */
export interface SendResult {
  target: string;
  /** The nick the server registered (with `_` appended when the nick was taken). */
  nick: string;
  lines: number;
}

/**
 * Connects as `nick`, sends `text` to `target` and waits until the server has processed it.
 * A channel is checked first (MODE: 403 when nobody is in it), joined for the message (so
 * `+n` channels accept it) and parted. Throws the server's refusal as a CultureError.
 */
export async function sendAsOperator(server: ServerConfig, nick: string, rawTarget: string, text: string, timeoutMs: number): Promise<SendResult> {
  const target = sanitizeTarget(rawTarget);
  const budget = textBudget({ command: "PRIVMSG", target, nick: `${nick}_____` });
  const pieces = splitMessage(text, budget);
  if (pieces.length === 0) throw usageError("nothing to send: the message is empty");
  const client = await IrcLineClient.connect({
    host: server.host,
    port: server.port,
    tls: server.tls,
    tlsVerify: server.tls_verify,
    password: await loginPassword(server),
    sasl: server.sasl,
    nick,
    timeoutMs,
  });
  try {
    const channel = isChannelName(target);
    if (channel) {
      client.send(`MODE ${target}`);
      const refused = (await client.sync(timeoutMs)).find((l) => l.command === "403");
      if (refused) {
        throw new CultureError(
          "E_IRC_COMMAND_FAILED",
          `the IRC server has no channel ${target} (IRC 403: ${refused.params.at(-1) ?? "No such channel"}).\n` +
            `Nobody is in it, and culture send does not create channels: check the name (culture status shows the agents' channels).`,
          { details: { command: "PRIVMSG", target, code: "403" } },
        );
      }
      client.send(`JOIN ${target}`);
      const joinError = (await client.sync(timeoutMs)).find(isErrorNumeric);
      if (joinError) throw ircJoinFailed(target, joinError.command, joinError.params.at(-1) ?? "");
    }
    for (const piece of pieces) client.send(`PRIVMSG ${target} :${piece}`);
    if (channel) client.send(`PART ${target} :culture send`);
    const error = (await client.sync(timeoutMs)).find(isErrorNumeric);
    if (error) throw refusal(target, error);
    return { target, nick: client.nick, lines: pieces.length };
  } finally {
    await client.quit("culture send").catch(() => client.destroy());
  }
}

/**
 * What PASS carries: the configured server password, or on the embedded server (which requires
 * an account) the local operator's generated credentials as `account:password`. With
 * `server.sasl` the login is SASL's (the caller passes it too); PASS is then only the server
 * password.
 */
export async function loginPassword(server: ServerConfig, env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  if (server.password || server.sasl || !isEmbeddedServer(server, env)) return server.password;
  const creds = await localCredentials(operatorNick(server), "human", env);
  return `${creds.account}:${creds.password}`;
}

/** The server's error numeric as a CultureError naming the target, the code and its text. */
function refusal(target: string, line: IrcLine): CultureError {
  const reason = line.params.at(-1) ?? "";
  const hint: Record<string, string> = {
    "401": `\nNo user ${target} is connected (culture status lists the agents and whether they run).`,
    "404": `\nThe channel does not accept the message from ${line.params[0] ?? "us"} (moderated, or banned).`,
    "442": `\nThe operator is not on ${target}.`,
  };
  const err = ircCommandFailed("PRIVMSG", target, line.command, reason);
  const extra = hint[line.command];
  return extra ? new CultureError(err.code, err.message + extra, { details: err.details }) : err;
}
