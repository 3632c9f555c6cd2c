/**
 * One ACP agent process and the SDK connection to it. The SDK spawns nothing, so this owns
 * the process: it starts the command in the agent's directory, logs its stderr line by line,
 * turns "the process died while we waited" into one clear error instead of a bare "connection
 * closed", and stops it gracefully (stdin closed), then by SIGTERM, then by SIGKILL.
 * Shared by the runner and the evaluator.
 */
import * as acp from "@agentclientprotocol/sdk";
import type { AgentRequestMethod, AgentRequestParamsByMethod, AgentRequestResponsesByMethod } from "@agentclientprotocol/sdk";
import { AgentProcess, type AgentSandbox, type CultureError, type Logger } from "@culture/core";
import { Readable, Writable } from "node:stream";

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
  /** The agent's sandbox (RunnerContext.sandbox): the agent and its MCP servers run inside it. */
  sandbox?: AgentSandbox | null;
  /** Receives each line of the agent's stderr (besides the log). */
  onStderrLine?: (line: string) => void;
}

/** A running ACP agent process with its SDK connection. */
export class AcpAgentProcess {
  /** Resolves with the exit code once the process has exited (128 + n for signal n). */
  readonly exited: Promise<number>;

  private constructor(
    private readonly options: AcpAgentProcessOptions,
    private readonly process: AgentProcess,
    /** The SDK connection; `connection.agent` calls the agent. */
    readonly connection: acp.ClientConnection,
  ) {
    this.exited = process.exited.then((code) => {
      connection.close();
      return code;
    });
  }

  /**
   * Starts the agent command in `cwd` and connects the SDK to its stdio. Throws
   * E_AGENT_COMMAND_NOT_FOUND when the program is neither on PATH nor an executable path.
   */
  static async spawn(options: AcpAgentProcessOptions): Promise<AcpAgentProcess> {
    const process = await AgentProcess.spawn({
      command: options.command,
      cwd: options.cwd,
      env: options.env,
      logger: options.logger,
      configKey: options.configKey ?? "acp_command",
      // The agent's MCP servers (culture mcp) are its children: they go when it goes.
      processGroup: true,
      sandbox: options.sandbox ?? null,
      ...(options.onStderrLine ? { onStderrLine: options.onStderrLine } : {}),
    });
    const stream = acp.ndJsonStream(
      Writable.toWeb(process.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(process.stdout) as ReadableStream<Uint8Array>,
    );
    const connection = options.client.connect(stream);
    return new AcpAgentProcess(options, process, connection);
  }

  /** The process id, when the process started. */
  get pid(): number | undefined {
    return this.process.pid;
  }

  /** The exit code, or null while the process runs. */
  get exitCode(): number | null {
    return this.process.exitCode;
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
    if (this.process.exitCode !== null) return;
    await this.connection.agent.notify(acp.methods.agent.session.cancel, { sessionId }).catch((err: unknown) => {
      this.options.logger.debug("session/cancel not sent", { error: (err as Error).message });
    });
  }

  /**
   * Stops the process: closes its stdin (ACP agents exit at end of input), then SIGTERM after
   * `graceMs`, then SIGKILL after another `graceMs`. Resolves with the exit code.
   */
  async shutdown(graceMs: number): Promise<number> {
    if (this.process.exitCode === null) this.connection.close();
    await this.process.shutdown(graceMs);
    return this.exited;
  }

  /** The error for "the process exited while we waited for `during`". */
  exitError(during: string): CultureError {
    return this.process.exitError(during);
  }

  private waitExit(ms: number): Promise<boolean> {
    return this.process.waitExit(ms);
  }
}
