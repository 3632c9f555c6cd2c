/**
 * A typed client for one `codex app-server` process (JSON-RPC 2.0 over stdio, one JSON
 * message per line, no `"jsonrpc"` field). The official SDK drives `codex exec` one process
 * per turn, with no interrupt or steering, so culture speaks the app-server protocol itself.
 *
 * It owns the process: spawns it in the agent's directory, logs its stderr line by line,
 * numbers requests and times them out, validates every inbound line with zod (a bad line is
 * logged with the line and dropped, never a crash), answers every server->client request
 * (never leaving the server waiting), turns "the process died while we waited" into one clear
 * error, and stops it gracefully (end of input), then by SIGTERM, then by SIGKILL.
 * Shared by the runner and the evaluator.
 */
import { AgentProcess, agentProtocolError, errorMessage, type AgentSandbox, type CultureError, type Logger } from "@culture/core";
import { createInterface } from "node:readline";
import { z } from "zod";
import {
  classifyMessage,
  METHOD_NOT_FOUND,
  notificationSchemas,
  resultSchemas,
  type ClientMethod,
  type ClientParams,
  type ClientResult,
  type InitializeParams,
  type KnownNotification,
  type NotificationParams,
  type RequestId,
} from "./app-server-protocol.js";

/** A validated notification culture handles. */
export type AppServerNotification = { [M in KnownNotification]: { method: M; params: NotificationParams<M> } }[KnownNotification];

/** What {@link AppServerClient.spawn} needs. */
export interface AppServerClientOptions {
  /** The whole argv: the Codex program, then `app-server`. */
  command: readonly string[];
  /** The working directory of the process (the agent's directory). */
  cwd: string;
  /** The complete environment of the process. */
  env: Record<string, string | undefined>;
  logger: Logger;
  /** The config key that names the program, for error messages. Default `executable`. */
  configKey?: string;
  /** How long a request may wait for its answer. Default 60000 ms. */
  requestTimeoutMs?: number;
  /** Called, in order, for every validated notification culture handles. */
  onNotification?: (notification: AppServerNotification) => void;
  /**
   * Answers a server->client request: return the result, or throw an {@link RpcRefusal} (any
   * other error is answered as an internal error). Without a handler every request is refused
   * with "method not found". `signal` is aborted when the server withdraws the request before
   * it is answered (`serverRequest/resolved`, e.g. its turn was interrupted) or the process
   * exits: nobody waits for the answer any more.
   */
  onServerRequest?: (method: string, params: unknown, signal: AbortSignal) => unknown;
  /** The agent's sandbox (RunnerContext.sandbox): Codex runs inside it. */
  sandbox?: AgentSandbox | null;
}

/** Thrown by a server-request handler to answer with a JSON-RPC error. */
export class RpcRefusal extends Error {
  override name = "RpcRefusal";
  /** @param code The JSON-RPC error code. */
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The app-server answered a request with a JSON-RPC error. */
export class AppServerRequestError extends Error {
  override name = "AppServerRequestError";
  /**
   * @param method The request that failed.
   * @param code The JSON-RPC error code.
   * @param data The error's `data`, when the server sent one.
   */
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout | undefined;
}

/** One running `codex app-server` process and the JSON-RPC session over its stdio. */
export class AppServerClient {
  /** Resolves with the exit code once the process has exited (128 + n for signal n). */
  readonly exited: Promise<number>;
  private nextId = 1;
  private readonly pending = new Map<RequestId, Pending>();
  /** Server->client requests being answered, by id: aborted when withdrawn or on exit. */
  private readonly answering = new Map<RequestId, AbortController>();
  private readonly logger: Logger;
  private readonly requestTimeoutMs: number;

  private constructor(
    private readonly options: AppServerClientOptions,
    private readonly process: AgentProcess,
  ) {
    this.logger = options.logger;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
    this.exited = process.exited.then((code) => {
      for (const controller of this.answering.values()) controller.abort();
      for (const [id, entry] of this.pending) {
        this.pending.delete(id);
        clearTimeout(entry.timer);
        entry.reject(this.exitError(entry.method));
      }
      return code;
    });
  }

  /**
   * Starts `command` in `cwd`. Throws E_AGENT_COMMAND_NOT_FOUND when the program is neither on
   * PATH nor an executable path. Does not initialize: call {@link initialize}.
   */
  static async spawn(options: AppServerClientOptions): Promise<AppServerClient> {
    const process = await AgentProcess.spawn({
      command: options.command,
      cwd: options.cwd,
      env: options.env,
      logger: options.logger,
      configKey: options.configKey ?? "executable",
      sandbox: options.sandbox ?? null,
    });
    const client = new AppServerClient(options, process);
    createInterface({ input: process.stdout, crlfDelay: Infinity }).on("line", (line) => client.onLine(line));
    return client;
  }

  /** The process id, when the process started. */
  get pid(): number | undefined {
    return this.process.pid;
  }

  /** The exit code, or null while the process runs. */
  get exitCode(): number | null {
    return this.process.exitCode;
  }

  /** The argv the process was started with. */
  get command(): readonly string[] {
    return this.options.command;
  }

  /** The handshake: `initialize`, then the `initialized` notification. */
  async initialize(clientInfo: InitializeParams["clientInfo"]): Promise<ClientResult<"initialize">> {
    const result = await this.request("initialize", { clientInfo, capabilities: null });
    this.notify("initialized");
    return result;
  }

  /**
   * Sends a request and waits for its answer. Rejects with {@link AppServerRequestError} when
   * the server answers with an error, E_AGENT_EXITED (or E_AGENT_COMMAND_NOT_FOUND) when the
   * process dies first, and E_AGENT_PROTOCOL when the answer does not come within the timeout
   * or is not the expected shape.
   */
  request<M extends ClientMethod>(method: M, params: ClientParams[M], options: { timeoutMs?: number } = {}): Promise<ClientResult<M>> {
    if (this.process.exitCode !== null) return Promise.reject(this.exitError(method));
    const id = this.nextId++;
    const schema: z.ZodType = resultSchemas[method];
    return new Promise<ClientResult<M>>((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? this.requestTimeoutMs;
      const entry: Pending = {
        method,
        resolve: (value) => {
          const parsed = schema.safeParse(value);
          if (parsed.success) resolve(parsed.data as ClientResult<M>);
          else reject(agentProtocolError(this.options.command, method, new Error(`unexpected result: ${z.prettifyError(parsed.error).replace(/\n/g, "; ")}`)));
        },
        reject,
        timer: undefined,
      };
      if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
        entry.timer = setTimeout(() => {
          this.pending.delete(id);
          reject(agentProtocolError(this.options.command, method, new Error(`no answer within ${timeoutMs} ms`)));
        }, timeoutMs);
        entry.timer.unref?.();
      }
      this.pending.set(id, entry);
      this.write({ id, method, params });
    });
  }

  /** Sends a notification (no answer). A dead process is ignored: there is nobody to tell. */
  notify(method: string, params?: unknown): void {
    this.write(params === undefined ? { method } : { method, params });
  }

  /**
   * Stops the process: closes its stdin (the app-server exits at end of input), then SIGTERM
   * after `graceMs`, then SIGKILL after another `graceMs`. Resolves with the exit code.
   */
  async shutdown(graceMs: number): Promise<number> {
    await this.process.shutdown(graceMs);
    return this.exited;
  }

  /** Kills the process at once (SIGKILL) and waits for it. */
  async kill(): Promise<number> {
    await this.process.kill();
    return this.exited;
  }

  /** The error for "the process exited while we waited for `during`". */
  exitError(during: string): CultureError {
    return this.process.exitError(during);
  }

  // ---------------------------------------------------------------- inbound

  private onLine(raw: string): void {
    const line = raw.trim();
    if (!line) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      this.protocolError(`a line that is not JSON (${errorMessage(err)})`, line);
      return;
    }
    const message = classifyMessage(value);
    if ("problem" in message) {
      this.protocolError(`a message that is not JSON-RPC (${message.problem})`, line);
      return;
    }
    switch (message.kind) {
      case "result":
      case "error": {
        const entry = this.pending.get(message.id);
        if (!entry) {
          this.logger.warn("codex app-server answered a request culture is not waiting for (a late answer?)", { id: message.id });
          return;
        }
        this.pending.delete(message.id);
        clearTimeout(entry.timer);
        if (message.kind === "result") entry.resolve(message.result);
        else entry.reject(new AppServerRequestError(entry.method, message.error.code, message.error.message, message.error.data));
        return;
      }
      case "notification":
        this.onNotification(message.method, message.params, line);
        return;
      case "request":
        void this.answer(message.id, message.method, message.params);
        return;
    }
  }

  private onNotification(method: string, params: unknown, line: string): void {
    if (method === "serverRequest/resolved") {
      // The server no longer waits for one of its requests (answered, or withdrawn when its
      // turn ended): a handler still working on it learns so through its signal.
      const id = (params as { requestId?: unknown } | null)?.requestId;
      if (typeof id === "string" || typeof id === "number") this.answering.get(id)?.abort();
      return;
    }
    if (!(method in notificationSchemas)) {
      if (method === "configWarning" || method === "warning") {
        // Codex's own warnings (a config key it ignores, fallback model metadata ...): the user should see them.
        const p = (params ?? {}) as { summary?: unknown; message?: unknown; details?: unknown };
        const text = [p.summary, p.message, p.details].filter((v) => typeof v === "string" && v).join(": ");
        this.logger.warn(`codex warns: ${text || JSON.stringify(params)}`);
        return;
      }
      this.logger.debug("codex notification", { method });
      return;
    }
    const known = method as KnownNotification;
    const parsed = notificationSchemas[known].safeParse(params);
    if (!parsed.success) {
      this.protocolError(`a ${method} notification culture cannot read (${z.prettifyError(parsed.error).replace(/\n/g, "; ")})`, line);
      return;
    }
    try {
      this.options.onNotification?.({ method: known, params: parsed.data } as AppServerNotification);
    } catch (err) {
      this.logger.error(`handling the ${method} notification failed: ${errorMessage(err)}`);
    }
  }

  /** Answers a server->client request: always exactly once. */
  private async answer(id: RequestId, method: string, params: unknown): Promise<void> {
    const controller = new AbortController();
    this.answering.set(id, controller);
    try {
      const handler = this.options.onServerRequest;
      if (!handler) throw new RpcRefusal(METHOD_NOT_FOUND, `culture does not handle ${method}`);
      const result = await handler(method, params, controller.signal);
      this.write({ id, result: result ?? {} });
    } catch (err) {
      const code = err instanceof RpcRefusal ? err.code : -32603;
      if (!(err instanceof RpcRefusal)) this.logger.error(`answering the server request ${method} failed: ${errorMessage(err)}`);
      this.write({ id, error: { code, message: errorMessage(err) } });
    } finally {
      this.answering.delete(id);
    }
  }

  private protocolError(what: string, line: string): void {
    this.logger.error(`protocol error: codex app-server sent ${what}; ignored it`, {
      line: line.length > 2000 ? `${line.slice(0, 2000)}...` : line,
    });
  }

  private write(message: Record<string, unknown>): void {
    if (this.process.exitCode !== null || this.process.stdin.destroyed || this.process.stdin.writableEnded) return;
    this.process.stdin.write(`${JSON.stringify(message)}\n`);
  }
}

