/**
 * Every error culture expects to happen has a code and a message that says what failed,
 * where, and how to fix it. The CLI prints a CultureError's message alone (a stack only with
 * `--debug`); anything else is a bug and is printed with its stack.
 *
 * One factory per condition keeps the wording in one place; tests assert the code and the
 * key sentence.
 */

/** Every error code culture uses. */
export type CultureErrorCode =
  | "E_CONFIG_NOT_FOUND"
  | "E_CONFIG_PARSE"
  | "E_CONFIG_INVALID"
  | "E_CONFIG_ENV"
  | "E_AGENT_NOT_FOUND"
  | "E_BACKEND_NOT_FOUND"
  | "E_BACKEND_LOAD_FAILED"
  | "E_BACKEND_INVALID"
  | "E_BACKEND_API_MISMATCH"
  | "E_BACKEND_OPTIONS"
  | "E_PLUGIN_NOT_FOUND"
  | "E_PLUGIN_LOAD_FAILED"
  | "E_HOOK_FAILED"
  | "E_SOCKET_PATH_TOO_LONG"
  | "E_ALREADY_RUNNING"
  | "E_NOT_RUNNING"
  | "E_CONTROL_FROM_AGENT"
  | "E_NICK_MISSING"
  | "E_NICK_INVALID"
  | "E_IRC_UNREACHABLE"
  | "E_IPC"
  | "E_TIMEOUT"
  | "E_USAGE"
  | "E_AGENT_AUTH"
  // buffer + IPC
  | "E_INVALID_ARGUMENT"
  // supervisor
  | "E_EVALUATOR_FAILED"
  | "E_EVALUATOR_UNAVAILABLE"
  // agent processes (backends)
  | "E_AGENT_COMMAND_NOT_FOUND"
  | "E_AGENT_EXITED"
  | "E_AGENT_PROTOCOL"
  // agent turns and startup (backend-claude)
  | "E_AGENT_START_REFUSED"
  | "E_AGENT_API_ERROR"
  // IRC transport
  | "E_IRC_INVALID_TARGET"
  | "E_IRC_NOT_JOINED"
  | "E_IRC_NOT_CONNECTED"
  | "E_IRC_JOIN_FAILED"
  | "E_IRC_QUEUE_FULL"
  | "E_IRC_COMMAND_FAILED"
  // embedded IRC server (culture server start|stop|status)
  | "E_SERVER_LISTEN"
  | "E_SERVER_STATE"
  | "E_SERVER_START_FAILED"
  | "E_SERVER_ACCOUNTS"
  // fleet CLI (culture init, send, doctor, skills)
  | "E_FILE_EXISTS"
  | "E_AGENT_DIRECTORY"
  // culture backend create
  | "E_NPM_INSTALL_FAILED"
  // sandbox (sandbox/sandbox-errors.ts)
  | "E_SANDBOX_PATH"
  | "E_SANDBOX_UNAVAILABLE"
  // a daemon part loaded when first needed (daemon/lazy-part.ts)
  | "E_PART_LOAD";

/** An expected failure with a code and an actionable message. */
export class CultureError extends Error {
  override name = "CultureError";
  readonly code: CultureErrorCode;
  /** Extra facts for programs (paths tried, key paths, ...). */
  readonly details: Record<string, unknown>;

  constructor(code: CultureErrorCode, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details ?? {};
  }
}

/** True when `err` is a CultureError (optionally with the given code), across module copies. */
export function isCultureError(err: unknown, code?: CultureErrorCode): err is CultureError {
  return (
    err instanceof Error &&
    (err as { name?: string }).name === "CultureError" &&
    typeof (err as { code?: unknown }).code === "string" &&
    (code === undefined || (err as { code?: string }).code === code)
  );
}

/** The message of any thrown value. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A hook tap threw or rejected. The daemon reports it and keeps running. */
export function hookFailed(hookName: string, tapName: string, cause: unknown): CultureError {
  return new CultureError(
    "E_HOOK_FAILED",
    `Daemon.hooks.${hookName}: the tap "${tapName}" failed: ${errorMessage(cause)}`,
    { cause, details: { hook: hookName, tap: tapName } },
  );
}

/** The Unix socket path does not fit in sockaddr_un. */
export function socketPathTooLong(path: string, limit: number): CultureError {
  return new CultureError(
    "E_SOCKET_PATH_TOO_LONG",
    `The IPC socket path is ${Buffer.byteLength(path)} bytes, over the AF_UNIX limit of ${limit}:\n  ${path}\n` +
      `Set XDG_RUNTIME_DIR or CULTURE_HOME to a shorter directory, or use a shorter nick.`,
    { details: { path, limit } },
  );
}

/** A second daemon for a nick whose daemon is alive. */
export function alreadyRunning(nick: string, pid: number | null): CultureError {
  return new CultureError(
    "E_ALREADY_RUNNING",
    `agent ${nick} is already running (pid ${pid ?? "unknown"})`,
    { details: { nick, pid } },
  );
}

/** No daemon answers on the nick's socket. */
export function notRunning(nick: string, socketPath: string): CultureError {
  return new CultureError(
    "E_NOT_RUNNING",
    `agent ${nick} is not running (no daemon answers on ${socketPath}).\nStart it with: culture start ${nick}`,
    { details: { nick, socketPath } },
  );
}

/** The IRC server could not be reached at startup. */
export function ircUnreachable(host: string, port: number, cause: unknown): CultureError {
  return new CultureError(
    "E_IRC_UNREACHABLE",
    `culture couldn't reach the IRC server at ${host}:${port}: ${errorMessage(cause)}\n` +
      `Start the embedded server with: culture server start --port ${port}\n` +
      `or point server.host / server.port in agents.yaml at a running IRC server.`,
    { cause, details: { host, port } },
  );
}

/**
 * The IRC server was reached but the first connection never registered (refused login, ban,
 * nick, or closed before registration on every try). The server is running: the advice is
 * about the login and the machine's load, not about starting a server.
 */
export function ircRegistrationFailed(host: string, port: number, reason: string, attempts: number): CultureError {
  return new CultureError(
    "E_IRC_UNREACHABLE",
    `culture reached the IRC server at ${host}:${port} but could not register (${attempts} attempt${attempts === 1 ? "" : "s"}): ${reason}\n` +
      `The server is running: do not start another one.\n` +
      `If it refused the login, check server.sasl / server.password in agents.yaml (culture doctor checks the setup).\n` +
      `If it closed the connection before registration, the machine was too busy: start fewer agents at once\n` +
      `(culture start --all --parallel 2); the embedded server logs why in $CULTURE_HOME/logs/server.log.`,
    { details: { host, port, reason, attempts } },
  );
}

/** The config names no agent with this nick. */
export function agentNotFound(nick: string, file: string, known: string[]): CultureError {
  return new CultureError(
    "E_AGENT_NOT_FOUND",
    `No agent with nick "${nick}" in ${file}.` +
      (known.length ? `\nConfigured agents: ${known.join(", ")}` : "\nThe config has no agents."),
    { details: { nick, file, known } },
  );
}

/** A usage error: wrong arguments to a command. The CLI exits 2. */
export function usageError(message: string): CultureError {
  return new CultureError("E_USAGE", message);
}

// --- configuration (config/load-config.ts) ---

/** One problem found in a config file: where (key path, line) and what. */
export interface ConfigProblem {
  /** Key path like `agents[1].channels[0]`; empty for the top level. */
  path: string;
  message: string;
  /** 1-based line in the file, when known. */
  line?: number;
}

/** No config file was found anywhere culture looks. */
export function configNotFound(searched: { cwd: string; stopDir?: string | null; searchPlaces: readonly string[]; fallback: string }): CultureError {
  return new CultureError(
    "E_CONFIG_NOT_FOUND",
    `culture couldn't find a config file.\n` +
      `Looked for: ${searched.searchPlaces.join(", ")}\n` +
      `        in: ${searched.cwd} and every folder above it${searched.stopDir ? ` up to ${searched.stopDir}` : ""}\n` +
      `      then: ${searched.fallback} ($CULTURE_HOME/agents.yaml)\n\n` +
      `Create one:   culture init\n` +
      `or pass one:  culture --config PATH ...`,
    { details: { ...searched } },
  );
}

/** The config file named by `--config` (or CULTURE_CONFIG) cannot be read. */
export function configFileMissing(path: string, source: string, cause?: unknown): CultureError {
  const reason = (cause as { code?: string } | undefined)?.code === "EISDIR" ? "is a directory, not a file" : "does not exist";
  return new CultureError(
    "E_CONFIG_NOT_FOUND",
    `The config file ${path} (from ${source}) ${reason}.\nCreate one with: culture init`,
    { cause, details: { path, source } },
  );
}

/** The config file is not valid YAML / JSON, or a JS config failed to load. */
export function configParseError(file: string, detail: string, cause?: unknown): CultureError {
  return new CultureError("E_CONFIG_PARSE", `${file}: ${detail}`, { cause, details: { file } });
}

/** The config file parsed but does not match the schema: one line per problem. */
export function configInvalid(file: string, problems: readonly ConfigProblem[]): CultureError {
  return new CultureError("E_CONFIG_INVALID", problems.map((p) => formatProblem(file, p)).join("\n"), {
    details: { file, problems },
  });
}

/** `${VAR}` references to environment variables that are not set. */
export function configEnvMissing(file: string, missing: readonly (ConfigProblem & { variable: string })[]): CultureError {
  const first = missing[0]?.variable ?? "VAR";
  return new CultureError(
    "E_CONFIG_ENV",
    missing.map((p) => formatProblem(file, p)).join("\n") +
      `\nSet ${missing.length === 1 ? "it" : "them"} in the environment (export ${first}=...), ` +
      `give a default with \${${first}:-value}, or write $\${...} for a literal "\${".`,
    { details: { file, missing } },
  );
}

function formatProblem(file: string, problem: ConfigProblem): string {
  return `${file}: ${problem.path ? `${problem.path}: ` : ""}${problem.message}${problem.line === undefined ? "" : ` (line ${problem.line})`}`;
}

// --- buffer + IPC ---

/** A value outside what a function accepts (a read limit of 0, a ring size of -1). */
export function invalidArgument(name: string, value: unknown, expected: string): CultureError {
  return new CultureError("E_INVALID_ARGUMENT", `${name} must be ${expected} (got ${JSON.stringify(value) ?? String(value)})`, {
    details: { name, value, expected },
  });
}

/** The IPC server could not listen on its socket (a file is in the way, no permission, ...). */
export function ipcListenFailed(path: string, cause: unknown): CultureError {
  const code = (cause as { code?: unknown } | null)?.code;
  const hint =
    code === "EADDRINUSE"
      ? `
A file is already at that path. If no daemon answers on it (culture status), remove it and start again.`
      : code === "EACCES"
        ? `
Check the permissions of ${path.slice(0, path.lastIndexOf("/")) || "/"}.`
        : "";
  return new CultureError("E_IPC", `couldn't listen on the IPC socket ${path}: ${errorMessage(cause)}${hint}`, {
    cause,
    details: { path },
  });
}

// ---------------------------------------------------------------- supervisor

/** An evaluator command could not run, or exited non-zero. */
export function evaluatorFailed(command: readonly string[], detail: string, cause?: unknown): CultureError {
  return new CultureError(
    "E_EVALUATOR_FAILED",
    `The supervisor's evaluator command failed: ${detail}\n  command: ${command.map((a) => JSON.stringify(a)).join(" ")}\n` +
      `Check supervisor.command in agents.yaml; the command reads the prompt on stdin and prints one verdict line on stdout.`,
    { ...(cause === undefined ? {} : { cause }), details: { command: [...command] } },
  );
}

/** One evaluation took longer than supervisor.timeout_seconds. */
export function evaluatorTimedOut(seconds: number): CultureError {
  return new CultureError(
    "E_TIMEOUT",
    `The supervisor's evaluation took longer than ${seconds}s and was abandoned. ` +
      `Raise supervisor.timeout_seconds in agents.yaml if the evaluator is just slow.`,
    { details: { seconds } },
  );
}

/** supervisor.agent names an evaluator that cannot be made (no command, or a backend without one). */
export function evaluatorUnavailable(agent: string, why: string, fix: string): CultureError {
  return new CultureError("E_EVALUATOR_UNAVAILABLE", `The supervisor can't use "${agent}" as its evaluator: ${why}\n${fix}`, {
    details: { agent },
  });
}

// ---------------------------------------------------------------- backend discovery

/** Who referenced a backend or plugin, for the last clause of an error message. */
export interface ConfigReference {
  /** The agent whose `agent:` names the backend. */
  nick?: string | undefined;
  /** The config file that names it. */
  configFile?: string | undefined;
}

/** What {@link backendNotFound} reports. */
export interface BackendSearchReport extends ConfigReference {
  /** The `agent:` value. */
  agent: string;
  /** Every package name (or the resolved path) tried. */
  candidates: readonly string[];
  /** Every place searched, with a label (`project`, `culture's install`, `global`). */
  places: readonly { label: string; dir: string }[];
  /** The package to `npm install`, or null for a path. */
  installName: string | null;
  /** The name for `culture backend create`. */
  createName: string;
  /** The `--dir` for `culture backend create`, for a path. */
  createDir?: string | undefined;
  /** The config file's folder (npm install runs there). */
  configDir: string;
  /** A backend culture knows or has installed whose name is close: a typo, so no install advice. */
  didYouMean?: string | null | undefined;
  /** The `acp_command` of a known ACP agent named as a backend (`opencode` -> `["opencode", "acp"]`). */
  acpCommand?: readonly string[] | null | undefined;
}

/** No candidate of an `agent:` value is installed anywhere culture looks. */
export function backendNotFound(report: BackendSearchReport): CultureError {
  const head = `culture couldn't find the backend "${report.agent}"${referencedBy(report)}.`;
  const tried = `Tried: ${report.candidates.join(", ")}`;
  const where = report.places.length
    ? `\n   in: ${report.places.map((p) => `${p.dir} (${p.label})`).join(", ")}`
    : `\n   (relative to ${report.configDir})`;
  const fix = report.acpCommand
    ? `"${report.agent}" is an ACP agent, not a backend: use the acp backend that comes with culture:\n` +
      `    agent: acp\n    acp_command: ${JSON.stringify(report.acpCommand)}`
    : report.didYouMean
      ? `Did you mean "${report.didYouMean}"?  (agent: ${report.didYouMean})`
      : report.installName
        ? `Install it:     culture backend add ${report.agent.trim()}   (runs: npm install ${report.installName}, in ${report.configDir})\n` +
          `or for every project:  culture backend add ${report.agent.trim()} --global\n` +
          `or create one:  culture backend create ${report.createName}`
        : `Fix the path, or create one:  culture backend create ${report.createName}${report.createDir ? ` --dir ${report.createDir}` : ""}`;
  return new CultureError("E_BACKEND_NOT_FOUND", `${head}\n\n${tried}${where}\n\n${fix}`, {
    details: { ...report },
  });
}

/** What {@link backendLoadFailed} reports. */
export interface BackendLoadFailure extends ConfigReference {
  agent: string;
  /** The package name, or the path, that was found. */
  what: string;
  /** The file that failed. */
  path: string;
  /** The real error (syntax error, missing dependency, exception at import time). */
  cause: unknown;
  /** Where a syntax error is (`file:///x.js:3`, the line and a caret), when known. */
  frame?: string | null | undefined;
}

/** A backend was found but importing it failed. The real cause is shown, never "not found". */
export function backendLoadFailed(failure: BackendLoadFailure): CultureError {
  const missing = (failure.cause as { code?: unknown } | null)?.code === "ERR_MODULE_NOT_FOUND";
  const isPath = failure.what.startsWith("/") || failure.what.startsWith(".");
  const reinstall = isPath ? "run npm install in its folder" : `npm install ${failure.what}`;
  const fix = missing
    ? `A dependency of the backend is missing. Reinstall it: ${reinstall}`
    : `Fix the backend, or reinstall it: ${reinstall}`;
  return new CultureError(
    "E_BACKEND_LOAD_FAILED",
    `culture found the backend "${failure.agent}" (${failure.what === failure.path ? failure.path : `${failure.what} at ${failure.path}`})` +
      `${referencedBy(failure)}, but it failed to load:\n${indent((failure.frame ? `${failure.frame}\n` : "") + describeCause(failure.cause))}\n\n${fix}`,
    { cause: failure.cause, details: { agent: failure.agent, what: failure.what, path: failure.path } },
  );
}

/** A module was loaded but its default export is not a backend: one line per problem. */
export function backendInvalid(where: string, problems: readonly string[], ref: ConfigReference = {}): CultureError {
  return new CultureError(
    "E_BACKEND_INVALID",
    `${where}${referencedBy(ref)} is not a valid culture backend:\n${problems.map((p) => `  - ${p}`).join("\n")}\n\n` +
      `A backend default-exports defineBackend({ name, apiVersion, configSchema, createRunner }) from @culture/core.`,
    { details: { where, problems: [...problems] } },
  );
}

/** A backend was written for another backend API version. */
export function backendApiMismatch(where: string, found: number, expected: number, ref: ConfigReference = {}): CultureError {
  const fix =
    found > expected
      ? `Upgrade culture (npm install -g culture@latest), or install a version of the backend written for API ${expected}.`
      : `Upgrade the backend to a version written for API ${expected}, or use an older culture.`;
  return new CultureError(
    "E_BACKEND_API_MISMATCH",
    `${where}${referencedBy(ref)} was written for backend API version ${found}, but this culture implements version ${expected}.\n${fix}`,
    { details: { where, found, expected } },
  );
}

/** An agent entry's backend-specific fields do not match the backend's configSchema. */
export function backendOptionsInvalid(backend: string, lines: readonly string[], ref: ConfigReference = {}): CultureError {
  const agent = ref.nick ? `The agent "${ref.nick}"` : "An agent";
  return new CultureError(
    "E_BACKEND_OPTIONS",
    `${agent}${ref.configFile ? ` in ${ref.configFile}` : ""} has invalid fields for the backend "${backend}":\n` +
      lines.map((l) => `  ${l}`).join("\n"),
    { details: { backend, lines: [...lines], nick: ref.nick, configFile: ref.configFile } },
  );
}

/** A `plugins:` entry is not installed. */
export function pluginNotFound(name: string, tried: readonly string[], ref: ConfigReference = {}): CultureError {
  return new CultureError(
    "E_PLUGIN_NOT_FOUND",
    `culture couldn't find the plugin "${name}"${ref.configFile ? ` listed in ${ref.configFile}` : ""}.\n\n` +
      `Tried: ${tried.join(", ")}\n\n` +
      (name.startsWith(".") || name.startsWith("/") ? `Fix the path in plugins:.` : `Install it:  npm install ${name}`),
    { details: { name, tried: [...tried], configFile: ref.configFile } },
  );
}

/** A `plugins:` entry failed to import, or is not a plugin. */
export function pluginLoadFailed(name: string, path: string, reason: string, cause?: unknown, ref: ConfigReference = {}): CultureError {
  return new CultureError(
    "E_PLUGIN_LOAD_FAILED",
    `The plugin "${name}" (${path})${ref.configFile ? ` listed in ${ref.configFile}` : ""} ${reason}` +
      (cause === undefined ? "" : `:\n${indent(describeCause(cause))}`),
    { ...(cause === undefined ? {} : { cause }), details: { name, path } },
  );
}

function referencedBy(ref: ConfigReference): string {
  if (ref.nick && ref.configFile) return ` used by agent "${ref.nick}" in ${ref.configFile}`;
  if (ref.nick) return ` used by agent "${ref.nick}"`;
  if (ref.configFile) return ` named in ${ref.configFile}`;
  return "";
}

/**
 * An error as a user needs to see it: `Name: message`, with the file and line Node puts
 * before a SyntaxError's message (`file:///x/index.js:3` and the code frame).
 */
function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const head = `${cause.name}: ${cause.message}`;
  const stack = cause.stack ?? "";
  // Node prefixes parse errors with "<url>:<line>\n<code>\n   ^\n\n" before "SyntaxError: ...".
  const frame = stack.startsWith(cause.name) ? "" : stack.slice(0, stack.indexOf("\n\n")).trim();
  return frame && stack.includes("\n\n") ? `${frame}\n${head}` : head;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");
}

// --- agent processes (backends) ---

/** The agent command a backend spawns does not exist (or is not executable). */
export function agentCommandNotFound(command: readonly string[], configKey: string, cause?: unknown): CultureError {
  const program = command[0] ?? "";
  return new CultureError(
    "E_AGENT_COMMAND_NOT_FOUND",
    `culture couldn't run the agent command "${command.join(" ")}": ${program} was not found on PATH (or is not executable).\n` +
      `Install the agent, or set ${configKey} in agents.yaml to the command that starts it.`,
    { cause, details: { command: [...command], configKey } },
  );
}

/** The agent process exited while culture was waiting for it (during startup or a turn). */
export function agentExited(command: readonly string[], code: number, during: string): CultureError {
  return new CultureError(
    "E_AGENT_EXITED",
    `The agent "${command.join(" ")}" exited with code ${code} during ${during}.\nIts stderr is in the agent's log (culture logs <nick>).`,
    { details: { command: [...command], code, during } },
  );
}

/** The agent answered a protocol request with an error (other than "sign in first"). */
export function agentProtocolError(command: readonly string[], method: string, cause: unknown): CultureError {
  return new CultureError(
    "E_AGENT_PROTOCOL",
    `The agent "${command.join(" ")}" failed ${method}: ${errorMessage(cause)}`,
    { cause, details: { command: [...command], method } },
  );
}

/** The agent needs the user to sign in before it can start a session. */
export function agentAuthRequired(command: readonly string[], loginMethods: readonly string[], cause?: unknown): CultureError {
  return new CultureError(
    "E_AGENT_AUTH",
    `The agent "${command.join(" ")}" requires authentication before it can start a session.\n` +
      (loginMethods.length
        ? `Sign in with one of its login methods, then restart the agent:\n${loginMethods.map((m) => `  - ${m}`).join("\n")}`
        : `Sign in to it (run it once by hand), then restart the agent.`),
    { cause, details: { command: [...command], loginMethods: [...loginMethods] } },
  );
}

/**
 * The agent runs, but its model API refused the credentials it uses (HTTP 401/403 passed on by
 * the agent). Nothing culture retries fixes that: a human fixes the key, then resumes.
 */
export function agentModelAuthFailed(command: readonly string[], detail: string, fix: string, cause?: unknown): CultureError {
  return new CultureError(
    "E_AGENT_AUTH",
    `The agent "${command.join(" ")}" could not use its model: the model API refused its credentials (${detail}).\n${fix}`,
    { cause, details: { command: [...command], detail } },
  );
}

// ---------------------------------------------------------------- IRC transport (irc/)

/** A message target or channel name that cannot be used (empty, spaces, commas, no prefix). */
export function ircInvalidTarget(target: string, why: string): CultureError {
  return new CultureError("E_IRC_INVALID_TARGET", `Invalid IRC target ${JSON.stringify(target)}: ${why}.`, {
    details: { target },
  });
}

/** A send to a channel the agent has not joined (sending would create typo channels or fail silently). */
export function ircNotJoined(channel: string, joined: readonly string[]): CultureError {
  return new CultureError(
    "E_IRC_NOT_JOINED",
    `not in channel ${channel}: join it first` +
      (joined.length ? ` (joined: ${joined.join(", ")})` : " (not in any channel)") +
      `
Join it with: culture channel join '${channel}'`,
    { details: { channel, joined: [...joined] } },
  );
}

/** An operation that needs a live IRC connection while there is none. */
export function ircNotConnected(host: string, port: number, action: string): CultureError {
  return new CultureError(
    "E_IRC_NOT_CONNECTED",
    `can't ${action}: not connected to the IRC server at ${host}:${port} right now (culture keeps reconnecting; try again shortly).`,
    { details: { host, port, action } },
  );
}

/** The server refused a JOIN (403/405/471-477), or did not confirm it in time. */
export function ircJoinFailed(channel: string, code: string, reason: string): CultureError {
  return new CultureError("E_IRC_JOIN_FAILED", `couldn't join ${channel}: ${reason}${/^\d+$/.test(code) ? ` (IRC ${code})` : ""}`, {
    details: { channel, code, reason },
  });
}

/** The bounded outgoing queue is full (a long outage, or a flood of text): the text was not accepted. */
export function ircQueueFull(limit: number, host: string, port: number, connected: boolean): CultureError {
  return new CultureError(
    "E_IRC_QUEUE_FULL",
    `the IRC send queue is full (${limit} lines ${connected ? "waiting for the send-rate limit" : `queued while disconnected from ${host}:${port}`}); ` +
      `the message was not accepted. Send less, or wait for the queue to drain.`,
    { details: { limit, host, port, connected } },
  );
}

/** The server answered an IRC command (TOPIC, PART, ...) with an error numeric. */
export function ircCommandFailed(command: string, target: string, code: string, reason: string): CultureError {
  return new CultureError("E_IRC_COMMAND_FAILED", `the IRC server refused ${command} ${target}: ${reason} (IRC ${code})`, {
    details: { command, target, code, reason },
  });
}

// --- embedded IRC server (culture server) ---

/** `culture server start`: the server process exited, or never accepted connections. */
export function serverStartFailed(address: string, logPath: string, detail: string): CultureError {
  return new CultureError(
    "E_SERVER_START_FAILED",
    `The IRC server did not start on ${address}: ${detail}
` +
      `Its log is ${logPath}.
` +
      `Pick another port with: culture server start --port N`,
    { details: { address, logPath } },
  );
}

// --- fleet CLI (culture init, send, doctor, skills) ---

/** A command would overwrite a file the user did not ask it to replace. */
export function fileExists(path: string, fix: string): CultureError {
  return new CultureError("E_FILE_EXISTS", `${path} already exists; not overwriting it.\n${fix}`, { details: { path } });
}

// --- agent turns and startup (backend-claude) ---

/** The agent refused to start with the configured settings (e.g. Claude Code's bypass mode as root). */
export function agentStartRefused(command: readonly string[], reason: string, fix: string): CultureError {
  return new CultureError("E_AGENT_START_REFUSED", `The agent "${command.join(" ")}" refused to start: ${reason}\n${fix}`, {
    details: { command: [...command], reason },
  });
}

/** A turn failed with a model-API error that retrying does not fix (or whose retries ran out). */
export function agentApiError(command: readonly string[], detail: string, fix: string, details: Record<string, unknown> = {}): CultureError {
  return new CultureError("E_AGENT_API_ERROR", `The agent "${command.join(" ")}" could not finish the turn: ${detail}\n${fix}`, {
    details: { command: [...command], ...details },
  });
}

// --- culture backend create ---

/** `npm install` failed in a package culture just wrote. The files are there; only the install is missing. */
export function npmInstallFailed(dir: string, exitCode: number | null, hint: string): CultureError {
  return new CultureError(
    "E_NPM_INSTALL_FAILED",
    `npm install failed in ${dir} (${exitCode === null ? "it could not be run" : `exit code ${exitCode}`}); npm's output is above.\n` +
      `The package was written. Fix the problem, then run: cd ${dir} && npm install\n${hint}`,
    { details: { dir, exitCode } },
  );
}

/** `culture server user ...` could not change the account store. */
export function accountStoreFailed(path: string, reason: string): CultureError {
  return new CultureError("E_SERVER_ACCOUNTS", `culture server user: ${reason}.\nAccount store: ${path}`, { details: { path } });
}

/**
 * An owner's control command (`culture approvals`, `pause`, `resume`, `stop`, `send`) run in an
 * agent's environment (CULTURE_NICK is set): refused, so an agent cannot answer its own
 * approvals or stop itself. docs/security.md.
 */
export function controlFromAgent(command: string, agentNick: string): CultureError {
  return new CultureError(
    "E_CONTROL_FROM_AGENT",
    `${command}: refused in an agent's environment (CULTURE_NICK=${agentNick} is set). ` +
      "Starting agents or the IRC server, answering or listing approvals, pausing, resuming, stopping agents and sending as an operator are their owner's commands, not an agent's.\n" +
      `Run ${command} from your own shell (one where CULTURE_NICK is not set).`,
    { details: { command, agentNick } },
  );
}

/** A daemon part loaded only when configured or first needed (budget, schedules, sandbox...) failed to load. */
export function partLoadFailed(part: string, cause: unknown): CultureError {
  return new CultureError(
    "E_PART_LOAD",
    `the daemon's ${part} could not be loaded: ${errorMessage(cause)}\nThe installation may be incomplete: reinstall culture (npm i -g culture) and restart the agent.`,
    { cause, details: { part } },
  );
}
