/**
 * `culture init`: writes a commented agents.yaml with one agent. On a terminal it asks for each
 * value (the flag, when given, is the answer); otherwise the flags and the defaults are used,
 * so scripts and CI can run it. It never overwrites a file without `--force`, and what it
 * writes passes `culture config check` (given an installed backend).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import { CONFIG_CHANNEL_NAME, fileExists, LOCAL_HOSTS, NICK_RE, resolveConfig, usageError } from "@culture/core";
import { configOption } from "../options.js";
import { defaultOperatorName, ensureHumanAccount } from "./init-account.js";

/** The answers init writes into the file. */
export interface InitAnswers {
  /** The `<server>` part of every nick. */
  server: string;
  host: string;
  port: number;
  nick: string;
  /** The backend (`agent:`). */
  agent: string;
  directory: string;
  channels: string[];
  /** The human's IRC account: the first of `operators:`. */
  operator: string;
}

interface InitFlags {
  operator?: string;
  account?: boolean;
  server?: string;
  nick?: string;
  agent?: string;
  channel?: string[];
  directory?: string;
  host?: string;
  port?: string;
  force?: boolean;
}

/** Registers `culture init`. */
export function registerInit(program: Command): void {
  program
    .command("init")
    .description("write a commented agents.yaml (asks on a terminal; flags otherwise)")
    .option("--server <name>", "the server name: the <server> part of every nick (default: spark)")
    .option("--nick <nick>", "the agent's nick, <server>-<name> (default: <server>-<folder name>)")
    .option("--agent <backend>", "the agent's backend: claude, codex, copilot, acp, or a package/path (default: claude)")
    .option("--channel <channel>", "a channel to join; repeat for more (default: #general)", collect)
    .option("--directory <dir>", "the agent's working directory, relative to the file (default: .)")
    .option("--host <host>", "the IRC server's host (default: localhost)")
    .option("--port <port>", "the IRC server's port (default: 6667)")
    .option("--operator <account>", "your IRC account, put in operators: (default: your user name)")
    .option("--no-account", "do not create the account on the embedded IRC server")
    .option("--force", "overwrite an existing file")
    .action(async (flags: InitFlags, command: Command) => {
      const path = resolve(configOption(command) ?? "agents.yaml");
      if (existsSync(path) && !flags.force) throw fileExists(path, `Pass --force to replace it, or --config PATH to write another file.`);
      const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
      const answers = interactive ? await ask(flags, path) : fromFlags(flags, path);
      const text = renderConfig(answers);
      // Prove the file loads before writing it (a bad flag is a usage error, not a broken file).
      try {
        resolveConfig(parseSimple(answers), { filepath: path });
      } catch (err) {
        throw usageError(`the answers do not make a valid config: ${(err as Error).message}`);
      }
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
      const account = flags.account === false ? { text: "", next: null } : await ensureHumanAccount(answers.operator, answers);
      const withConfig = configOption(command) ? ` --config ${path}` : "";
      const next: Array<[string, string]> = [
        [`culture config check${withConfig}`, "validate it, with every default filled in"],
        [`culture server start --port ${answers.port}`, `an IRC server on this machine, unless ${answers.host}:${answers.port} has one`],
        ...(account.next ? [account.next] : []),
        [`culture start --all${withConfig}`, "start the agent"],
      ];
      const width = Math.max(...next.map(([c]) => c.length));
      process.stdout.write(`Wrote ${path}\n${account.text ? `\n${account.text}` : ""}\nNext:\n${next.map(([c, why]) => `  ${c.padEnd(width)}   # ${why}\n`).join("")}`);
    });
}

/** The answers from flags and defaults alone; bad values are usage errors. */
export function fromFlags(flags: InitFlags, path: string): InitAnswers {
  const server = flags.server ?? "spark";
  const directory = flags.directory ?? ".";
  return validate({
    server,
    host: flags.host ?? "localhost",
    port: flags.port === undefined ? 6667 : Number(flags.port),
    nick: withServer(flags.nick ?? defaultName(directory, path), server),
    agent: flags.agent ?? "claude",
    directory,
    channels: flags.channel?.length ? flags.channel : ["#general"],
    operator: flags.operator ?? defaultOperatorName(),
  });
}

/** Asks for every value on the terminal, offering the flag (or the default) as the answer. */
async function ask(flags: InitFlags, path: string): Promise<InitAnswers> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  const q = async (label: string, fallback: string): Promise<string> => (await rl.question(`${label} [${fallback}]: `)).trim() || fallback;
  try {
    process.stdout.write(`Writing ${path}. Press Enter to take the value in brackets.\n`);
    const server = await q("Server name (the <server> part of nicks)", flags.server ?? "spark");
    const host = await q("IRC server host", flags.host ?? "localhost");
    const port = await q("IRC server port", flags.port ?? "6667");
    const directory = await q("Agent's working directory", flags.directory ?? ".");
    const nick = await q("Agent nick", withServer(flags.nick ?? defaultName(directory, path), server));
    const agent = await q("Backend (claude, codex, copilot, acp, or a package)", flags.agent ?? "claude");
    const channels = await q("Channels (comma-separated)", (flags.channel ?? ["#general"]).join(","));
    const operator = await q("Your IRC account (an operator of the agents)", flags.operator ?? defaultOperatorName());
    return validate({
      server,
      host,
      port: Number(port),
      nick: withServer(nick, server),
      agent,
      directory,
      channels: channels.split(/[,\s]+/).filter(Boolean),
      operator,
    });
  } finally {
    rl.close();
  }
}

/** The file: the answers, and every other section commented out with its default. */
export function renderConfig(a: InitAnswers): string {
  const q = (s: string) => JSON.stringify(s); // a JSON string is a valid YAML double-quoted scalar
  return `# culture configuration, written by \`culture init\`.
# Check it (every default filled in):  culture config check
# Every key is described in docs/configuration.md. Write "\${NAME}" in a string to read
# a secret from the environment.

server:
  name: ${q(a.server)}            # the <server> part of every nick
  host: ${q(a.host)}
  port: ${a.port}
  # tls: false
  # password: \${IRC_PASSWORD}
  # sasl: { account: ${a.nick}, password: "\${SASL_PASSWORD}" }

# Without a supervisor section the supervisor uses its cheap local checks only. Uncomment
# to let an LLM review the agents' work:
# supervisor:
#   agent: claude
#   window_size: 20
#   eval_interval: 5
#   escalation_threshold: 3

webhooks:
  irc_channel: "#alerts"   # quote channel names: a bare # starts a YAML comment
  # url: \${CULTURE_WEBHOOK_URL}   # Discord / ntfy / Slack-compatible JSON POST
  # secret: \${CULTURE_WEBHOOK_SECRET}

# IRC accounts (not nicks) allowed to \`@nick resume\` / \`@nick abort\` and to answer
# approval requests from IRC. Empty: nobody on IRC (culture pause/resume and culture approvals
# still work here). ${q(a.operator)} is yours: on culture's embedded server, make it with
# \`culture server user add ${a.operator}\`${LOCAL_HOSTS.has(a.host.toLowerCase()) ? `; ${a.server}-operator is the account \`culture send\` uses there` : ""}.
operators: [${operatorsOf(a).map(q).join(", ")}]

# What agents may do without asking (docs/approvals.md). mode ask: \`allow\` runs unasked,
# \`deny\` never runs, and anything else is asked on IRC as "[APPROVAL <id>] ..." for an
# operator to answer (@nick approve <id> | deny <id> [reason] | always <id>), or locally
# with \`culture approvals\` (add your account to operators: to answer on IRC). mode bypass:
# agents use every tool unasked.
permissions:
  mode: ask
  allow:
${DEFAULT_ALLOW.map((p) => `    - ${q(p)}`).join("\n")}
  # deny: ["Bash(git push*)", "Bash(rm -rf*)"]
  # timeout_seconds: 600     # then on_timeout applies
  # on_timeout: deny
  # protected: ask           # credentials, ~/.ssh, hooks ... are never allowed by a pattern: ask|deny

# restart: { delay_seconds: 5, max_crashes: 3, window_seconds: 300 }

agents:
  - nick: ${q(a.nick)}      # mention it as @${a.nick} or @${a.nick.slice(a.server.length + 1)}
    agent: ${q(a.agent)}${a.agent.trim() === "acp" ? `\n${ACP_COMMAND_HINT}` : ""}
    directory: ${q(a.directory)}   # relative to this file
    channels: [${a.channels.map(q).join(", ")}]
    # model: ~               # the backend's default
    # thinking: medium       # none|low|medium|high|max
    # system_prompt: ~       # appended to the agent's prompt
    # relay: auto            # auto|always|never: post the turn's reply where the mention came from
    # turn_timeout_seconds: 600
`;
}

/**
 * The read-only allowlist `culture init` writes: reading and searching files inside the
 * agent's directory (`**` covers only paths whose real location is inside it: a symlink out
 * of it, an absolute path elsewhere and the protected paths are asked), the agent's own IRC
 * commands, and shell commands named exactly, subcommand and flags, that only look. An exact
 * shell pattern covers only that literal command (docs/approvals.md): no further words, so no
 * path outside the agent's directory and no file-writing option (`git diff --output=…`).
 */
export const DEFAULT_ALLOW: readonly string[] = [
  "Read(**)",
  "Glob(**)",
  "Grep(**)",
  "LS(**)",
  "NotebookRead(**)",
  "Bash(culture channel *)",
  "Bash(git status)",
  "Bash(git status --short)",
  "Bash(git diff)",
  "Bash(git diff --stat)",
  "Bash(git diff --cached)",
  "Bash(git log)",
  "Bash(git log --oneline)",
  "Bash(git show)",
  "Bash(git show --stat)",
  "Bash(git branch)",
  "Bash(git branch --show-current)",
  "Bash(ls)",
  "Bash(ls -l)",
  "Bash(ls -la)",
  "Bash(pwd)",
];

/** The line \`culture init --agent acp\` writes: the ACP agent to run, with the alternatives. */
const ACP_COMMAND_HINT =
  `    acp_command: ["opencode", "acp"]   # the ACP agent to run: ["gemini", "--experimental-acp"], ["cline", "--acp"], ...\n` +
  `                                       # or ["culture-demo-agent"], the offline demo agent that comes with culture (docs/backends/acp.md)`;

/** The same answers as plain data, for validation. */
function parseSimple(a: InitAnswers): unknown {
  return {
    server: { name: a.server, host: a.host, port: a.port },
    webhooks: { irc_channel: "#alerts" },
    operators: operatorsOf(a),
    permissions: { mode: "ask", allow: [...DEFAULT_ALLOW] },
    agents: [{ nick: a.nick, agent: a.agent, directory: a.directory, channels: a.channels }],
  };
}

/**
 * The human's account, and on the embedded server (a local host) the account `culture send`
 * logs in as: only the machine's owner can create accounts there. On another network anyone
 * could register `<server>-operator` with its services, so it is not listed.
 */
function operatorsOf(a: InitAnswers): string[] {
  return LOCAL_HOSTS.has(a.host.toLowerCase()) ? [a.operator, `${a.server}-operator`] : [a.operator];
}

function validate(a: InitAnswers): InitAnswers {
  if (!/^[A-Za-z0-9_]+$/.test(a.server)) throw usageError(`--server must be letters, digits or _ (it starts every nick), got "${a.server}"`);
  if (!Number.isInteger(a.port) || a.port < 1 || a.port > 65535) throw usageError(`--port must be a port number (1-65535), got "${a.port}"`);
  if (!NICK_RE.test(a.nick)) throw usageError(`"${a.nick}" is not a valid IRC nick (letters, digits, - _ [ ] \\ \` ^ { | }, not starting with a digit or -)`);
  for (const c of a.channels) if (!CONFIG_CHANNEL_NAME.test(c)) throw usageError(`"${c}" is not a channel name (like #general)`);
  if (!a.agent.trim()) throw usageError("--agent must name a backend");
  if (!a.host.trim()) throw usageError("--host must not be empty");
  if (!NICK_RE.test(a.operator)) throw usageError(`--operator "${a.operator}" is not a valid IRC account name (letters, digits, - _ [ ] \\ \` ^ { | }, not starting with a digit or -)`);
  return a;
}

/** `bot` -> `spark-bot`; `spark-bot` stays. */
function withServer(nick: string, server: string): string {
  return nick.toLowerCase().startsWith(`${server.toLowerCase()}-`) ? nick : `${server}-${nick}`;
}

/** The agent's name from its directory (the config's folder for "."), IRC-safe. */
function defaultName(directory: string, path: string): string {
  const name = basename(resolve(dirname(path), directory))
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^[-\d]+|-+$/g, "");
  return name || "agent";
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
