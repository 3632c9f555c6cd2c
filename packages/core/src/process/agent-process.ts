/**
 * One agent child process, owned by one runner: spawned with exactly the environment it is
 * given, its stderr logged line by line, its exit reported as one number (the exit code, or
 * 128 + N for signal N), and stopped gracefully (end of input), then by SIGTERM, then by
 * SIGKILL, each after a grace period. It only ever signals the process it spawned, or with
 * `processGroup` the process group that process leads.
 *
 * Spawned with node's child_process, not execa (which culture uses where it runs a command for
 * its output): every daemon starts one agent, and execa's ~190 KB bundle cost a daemon ~20-40 ms
 * of CPU and its memory at every start for a plain spawn with pipes (issue 30).
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { constants } from "node:os";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { agentCommandNotFound, agentExited, type CultureError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { AgentSandbox } from "../sandbox/agent-sandbox.js";
import { currentAgentRecord } from "./agent-record.js";
import { definedEnv, settlesWithin } from "./child-process.js";
import { findExecutable } from "./find-executable.js";

/**
 * The exit status culture reports for a process: its exit code, or 128 + the signal's number
 * (137 for SIGKILL), or 1 when neither is known.
 */
export function exitStatus(code: number | null | undefined, signal: string | null | undefined): number {
  if (typeof code === "number") return code;
  if (signal) return 128 + (constants.signals[signal as keyof typeof constants.signals] ?? 0);
  return 1;
}

/**
 * Running agents, ended with SIGTERM when this process exits: a pid, or the negative id of the
 * process group an agent spawned with `processGroup` leads. Each leaves the set when it exits.
 */
const liveAgents = new Set<number>();
process.once("exit", () => {
  for (const pid of liveAgents) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
});

/** What {@link AgentProcess.spawn} needs. */
export interface AgentProcessOptions {
  /** argv of the agent: the program, then its arguments. */
  command: readonly string[];
  /** The agent's working directory. */
  cwd: string;
  /** The complete environment of the agent process (undefined values are dropped). */
  env: Record<string, string | undefined>;
  /** Receives the agent's stderr lines (at `stderrLevel`) and the stop escalations. */
  logger: Logger;
  /** The config key that names the command, for error messages (`acp_command`, `command`, ...). */
  configKey: string;
  /** The log level of the agent's stderr lines. Default `info`. */
  stderrLevel?: "debug" | "info";
  /** Also receives each stderr line (an agent's log that says more than its protocol does). Must not throw. */
  onStderrLine?: (line: string) => void;
  /** Whether to check that the program exists before spawning it. Default true. */
  checkExecutable?: boolean;
  /**
   * Start the agent as the leader of its own process group and signal the whole group, so
   * the agent's own children go with it: an ACP agent's MCP servers (which keep Gemini CLI
   * alive after end of input) and a relaunched agent process (whose parent ignores SIGTERM).
   * When the leader exits, what is left of its group gets SIGTERM. Default false.
   */
  processGroup?: boolean;
  /** The agent's sandbox (`RunnerContext.sandbox`): the process and everything it starts run inside. */
  sandbox?: AgentSandbox | null;
}

/** A running agent process with piped stdio. */
export class AgentProcess {
  /** Resolves with the exit status once the process has exited (128 + n for signal n). */
  readonly exited: Promise<number>;
  private exitCodeValue: number | null = null;
  private spawnError: CultureError | null = null;

  private constructor(
    private readonly options: AgentProcessOptions,
    private readonly child: ChildProcessWithoutNullStreams,
  ) {
    // `close` comes after `exit` and the end of the agent's stdio: what it wrote before exiting has
    // been read. A process that never started (ENOENT, EACCES, ...) emits `error`, then `close`.
    // Kept for the process's life: an `error` nobody listens to (a failed kill, ...) would
    // crash the daemon.
    let startError: Error | undefined;
    child.on("error", (err) => {
      if (child.pid === undefined) startError ??= err;
      else options.logger.warn(`agent process: ${err.message}`);
    });
    this.exited = new Promise((resolve) => {
      child.once("close", (code, signal) => {
        if (startError) this.spawnError = agentCommandNotFound(options.command, options.configKey, startError);
        this.exitCodeValue = startError ? 1 : exitStatus(code, signal);
        resolve(this.exitCodeValue);
      });
    });
    if (child.pid === undefined) return;
    const pid = child.pid;
    const record = currentAgentRecord();
    if (record) {
      // So that the next daemon can end it if this one is killed before it can (agent-record.ts).
      record.add(pid, options.processGroup === true);
      child.once("exit", () => record.remove(pid));
    }
    const live = options.processGroup ? -pid : pid;
    liveAgents.add(live);
    child.once("exit", () => {
      liveAgents.delete(live);
      // The leader is gone (crashed, or stopped): end the children it left behind. On `exit`, not
      // on `close`: that waits for stdout to close, and a child holding it keeps it open.
      if (options.processGroup) this.signalGroup("SIGTERM");
    });
  }

  /**
   * Starts `command` in `cwd` with exactly `env`, stdio piped. Throws E_AGENT_COMMAND_NOT_FOUND
   * when the program is neither on PATH nor an executable path.
   */
  static async spawn(options: AgentProcessOptions): Promise<AgentProcess> {
    const [program, ...args] = options.command;
    if (!program || (options.checkExecutable !== false && !(await findExecutable(program, options.env.PATH, options.cwd)))) {
      throw agentCommandNotFound(options.command, options.configKey);
    }
    const boxed = options.sandbox?.command(options.command, options.env, options.cwd);
    const [file, ...fileArgs] = boxed ? boxed.argv : [program, ...args];
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(file!, fileArgs, {
        cwd: options.cwd,
        // Exactly this environment, nothing of the daemon's own.
        env: definedEnv(boxed ? boxed.env : options.env),
        stdio: "pipe",
        detached: options.processGroup === true,
      });
    } catch (err) {
      // Arguments node refuses before trying (a NUL byte in a word, ...).
      throw agentCommandNotFound(options.command, options.configKey, err);
    }
    const logger = options.logger;
    // A write to an agent that just died raises EPIPE on stdin: it is reported as the exit.
    child.stdin.on("error", (err) => logger.debug("agent stdin closed", { error: err.message }));
    child.stdout.on("error", (err) => logger.debug("agent stdout failed", { error: err.message }));
    const level = options.stderrLevel ?? "info";
    createInterface({ input: child.stderr, crlfDelay: Infinity }).on("line", (line) => {
      if (!line.trim()) return;
      logger[level](line, { stream: "stderr" });
      options.onStderrLine?.(line);
    });
    return new AgentProcess(options, child);
  }

  /** The process id, when the process started. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The exit status, or null while the process runs. */
  get exitCode(): number | null {
    return this.exitCodeValue;
  }

  /** The agent's stdin. */
  get stdin(): Writable {
    return this.child.stdin;
  }

  /** The agent's stdout. */
  get stdout(): Readable {
    return this.child.stdout;
  }

  /** Resolves true when the process exits within `ms`. */
  waitExit(ms: number): Promise<boolean> {
    return settlesWithin(this.exited, ms);
  }

  /**
   * Stops the process: closes its stdin (unless `closeInput` is false), then SIGTERM after
   * `graceMs`, then SIGKILL after another `graceMs`. Resolves with the exit status.
   */
  async shutdown(graceMs: number, closeInput = true): Promise<number> {
    if (this.exitCodeValue !== null) return this.exitCodeValue;
    if (closeInput) {
      this.child.stdin.end();
      if (await this.waitExit(graceMs)) return this.exited;
      this.options.logger.warn(`the agent did not exit within ${graceMs} ms of end of input; sending SIGTERM`);
    }
    this.signal("SIGTERM");
    if (await this.waitExit(graceMs)) return this.exited;
    this.options.logger.warn(`the agent ignored SIGTERM for ${graceMs} ms; sending SIGKILL`);
    this.signal("SIGKILL");
    return this.exited;
  }

  /** Kills the process at once (SIGKILL) and resolves with its exit status. */
  async kill(): Promise<number> {
    if (this.exitCodeValue === null) this.signal("SIGKILL");
    return this.exited;
  }

  /** Signals the process, or its whole group when it leads one. */
  private signal(signal: NodeJS.Signals): void {
    if (!this.options.processGroup || !this.signalGroup(signal)) this.child.kill(signal);
  }

  /**
   * Signals the process group the agent leads; false when there is none (never started, or
   * every member is gone). Safe after the leader exited: Linux does not hand out a pid that
   * is still some group's id, so the group id cannot name anyone else's processes.
   */
  private signalGroup(signal: NodeJS.Signals): boolean {
    const pid = this.child.pid;
    if (pid === undefined) return false;
    try {
      process.kill(-pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  /** The error for "the process exited while we waited for `during`". */
  exitError(during: string): CultureError {
    return this.spawnError ?? agentExited(this.options.command, this.exitCodeValue ?? 1, during);
  }
}
