/**
 * One ACP agent process and the SDK connection to it. The SDK spawns nothing, so this owns
 * the process: it starts the command in the agent's directory, logs its stderr line by line,
 * turns "the process died while we waited" into one clear error instead of a bare "connection
 * closed", and stops it gracefully (stdin closed), then by SIGTERM, then by SIGKILL.
 * Shared by the runner and the evaluator.
 */
import * as acp from "@agentclientprotocol/sdk";
import type { AgentRequestMethod, AgentRequestParamsByMethod, AgentRequestResponsesByMethod } from "@agentclientprotocol/sdk";
import { agentCommandNotFound, agentExited, type CultureError, type Logger, definedEnv, settlesWithin } from "@culture/core";
import { execa, type ResultPromise } from "execa";
import { constants } from "node:os";
import { createInterface } from "node:readline";
import { Readable, Writable } from "node:stream";
import { findExecutable } from "@culture/core";

/** What {@link AcpAgentProcess.spawn} needs. */
export interface AcpAgentProcessOptions {
  /** argv of the agent (`acp_command`). */
  command: readonly string[];
  /** The agent's working directory. */
  cwd: string;
  /** The complete environment of the agent process. */
  env: Record<string, string | undefined>;
  logger: Logger;
  /** The client app serving the agent's requests to us. */
  client: acp.ClientApp;
  /** The config key that names the command, for error messages. Default `acp_command`. */
  configKey?: string;
}

/** A running ACP agent process with its SDK connection. */
export class AcpAgentProcess {
  /** Resolves with the exit code once the process has exited (128 + n for signal n). */
  readonly exited: Promise<number>;
  private exitCodeValue: number | null = null;
  private spawnError: CultureError | null = null;

  private constructor(
    private readonly options: AcpAgentProcessOptions,
    private readonly child: ResultPromise<{ buffer: false; reject: false }>,
    /** The SDK connection; `connection.agent` calls the agent. */
    readonly connection: acp.ClientConnection,
  ) {
    this.exited = this.child.then((result) => {
      const code =
        typeof result.exitCode === "number"
          ? result.exitCode
          : result.signal
            ? 128 + (constants.signals[result.signal as keyof typeof constants.signals] ?? 0)
            : 1;
      if (result.exitCode === undefined && !result.signal && result.code) {
        // The process never started (ENOENT, EACCES, ...).
        this.spawnError = agentCommandNotFound(options.command, options.configKey ?? "acp_command", result.cause);
      }
      this.exitCodeValue = code;
      connection.close();
      return code;
    });
  }

  /**
   * Starts the agent command in `cwd` and connects the SDK to its stdio. Throws
   * E_AGENT_COMMAND_NOT_FOUND when the program is neither on PATH nor an executable path.
   */
  static async spawn(options: AcpAgentProcessOptions): Promise<AcpAgentProcess> {
    const [program, ...args] = options.command;
    const configKey = options.configKey ?? "acp_command";
    if (!program || !(await findExecutable(program, options.env.PATH, options.cwd))) {
      throw agentCommandNotFound(options.command, configKey);
    }
    const child = execa(program, args, {
      cwd: options.cwd,
      env: definedEnv(options.env),
      extendEnv: false,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      buffer: false,
      reject: false,
      // We escalate ourselves in shutdown(); execa's own timer would race it.
      forceKillAfterDelay: false,
    });
    const logger = options.logger;
    // A write to an agent that just died raises EPIPE on stdin: it is reported as the exit.
    child.stdin.on("error", (err) => logger.debug("agent stdin closed", { error: err.message }));
    child.stdout.on("error", (err) => logger.debug("agent stdout failed", { error: err.message }));
    createInterface({ input: child.stderr, crlfDelay: Infinity }).on("line", (line) => {
      if (line.trim()) logger.info(line, { stream: "stderr" });
    });
    const stream = acp.ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    );
    const connection = options.client.connect(stream);
    return new AcpAgentProcess(options, child, connection);
  }

  /** The process id, when the process started. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The exit code, or null while the process runs. */
  get exitCode(): number | null {
    return this.exitCodeValue;
  }

  /**
   * Sends a request to the agent. When the process dies before it answers, rejects with
   * E_AGENT_EXITED (or E_AGENT_COMMAND_NOT_FOUND when it never started); an error answer
   * from the agent rejects with the SDK's RequestError (its `code` is the JSON-RPC code).
   */
  async request<M extends AgentRequestMethod>(method: M, params: AgentRequestParamsByMethod[M]): Promise<AgentRequestResponsesByMethod[M]> {
    const response = this.connection.agent.request(method, params);
    type Outcome = { ok: true; value: AgentRequestResponsesByMethod[M] } | { ok: false; error: unknown } | { exit: number };
    const outcome: Outcome = await Promise.race([
      response.then(
        (value): Outcome => ({ ok: true, value }),
        (error: unknown): Outcome => ({ ok: false, error }),
      ),
      this.exited.then((code): Outcome => ({ exit: code })),
    ]);
    if ("exit" in outcome) throw this.exitError(method);
    if (outcome.ok) return outcome.value;
    if (!(outcome.error instanceof acp.RequestError)) {
      // "ACP connection closed": the process is going away; report that, not the symptom.
      if (await this.waitExit(2_000)) throw this.exitError(method);
    }
    throw outcome.error;
  }

  /** Sends a notification to the agent; a dead agent is ignored (there is nobody to tell). */
  async notifyCancel(sessionId: string): Promise<void> {
    if (this.exitCodeValue !== null) return;
    await this.connection.agent.notify(acp.methods.agent.session.cancel, { sessionId }).catch((err: unknown) => {
      this.options.logger.debug("session/cancel not sent", { error: (err as Error).message });
    });
  }

  /**
   * Stops the process: closes its stdin (ACP agents exit at end of input), then SIGTERM after
   * `graceMs`, then SIGKILL after another `graceMs`. Resolves with the exit code.
   */
  async shutdown(graceMs: number): Promise<number> {
    if (this.exitCodeValue !== null) return this.exitCodeValue;
    this.connection.close();
    this.child.stdin.end();
    if (await this.waitExit(graceMs)) return this.exited;
    this.options.logger.warn(`the agent did not exit within ${graceMs} ms of end of input; sending SIGTERM`);
    this.child.kill("SIGTERM");
    if (await this.waitExit(graceMs)) return this.exited;
    this.options.logger.warn(`the agent ignored SIGTERM for ${graceMs} ms; sending SIGKILL`);
    this.child.kill("SIGKILL");
    return this.exited;
  }

  /** The error for "the process exited while we waited for `during`". */
  exitError(during: string): CultureError {
    return this.spawnError ?? agentExited(this.options.command, this.exitCodeValue ?? 1, during);
  }

  private waitExit(ms: number): Promise<boolean> {
    return settlesWithin(this.exited, ms);
  }
}

