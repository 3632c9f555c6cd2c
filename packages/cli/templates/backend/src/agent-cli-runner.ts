/**
 * The runner: one agent session, driven as a child process. This is the part you adapt to
 * your agent: how it is started (argv, environment), how a prompt is written to it, and how
 * its output becomes AgentMessages. The lifecycle — one turn at a time, crash vs. requested
 * stop, idempotent stop, stop during start, exit codes — comes from culture's ManagedRunner,
 * and the process (spawn, stderr, end of input -> SIGTERM -> SIGKILL) from its AgentProcess.
 * The conformance test (test/conformance.test.ts) checks what the daemon relies on.
 */
import { AgentProcess, ManagedRunner, agentExited, type RunnerContext } from "@culture/core";
import { agentCommand, type Options } from "./options.js";
import { AgentLineError, parseAgentLine, readLines, type AgentLine, type RunnerLine } from "./wire-protocol.js";

/** A turn waiting for its `done`. */
interface PendingTurn {
  resolve(): void;
  reject(error: Error): void;
}

/** Runs the agent CLI as a child process speaking newline-delimited JSON (see agent.mjs). */
export class AgentCliRunner extends ManagedRunner {
  readonly #ctx: RunnerContext<Options>;
  readonly #command: string[];
  #proc: AgentProcess | null = null;
  #session: string | null;
  /** Whether the agent has said `ready` (an exit before that fails start(), not a crash). */
  #ready = false;
  readonly #turns = new Map<number, PendingTurn>();
  #nextId = 1;
  /** Serialises the handling of the agent's lines, so messages are delivered in order. */
  #lines: Promise<void> = Promise.resolve();

  constructor(ctx: RunnerContext<Options>) {
    super(ctx.logger);
    this.#ctx = ctx;
    this.#command = agentCommand(ctx.options);
    // After a crash the daemon makes a new runner and hands it the old session to resume.
    this.#session = ctx.previousSessionId;
  }

  /** The agent process's pid while it runs (tests kill it to simulate a crash). */
  get pid(): number | null {
    return this.#proc?.pid ?? null;
  }

  get sessionId(): string | null {
    return this.#session;
  }

  override async interrupt(): Promise<void> {
    if (this.#proc && this.isRunning()) this.#write(this.#proc, { type: "interrupt" });
  }

  protected hasAgent(): boolean {
    return this.#proc !== null;
  }

  protected async startAgent(initialPrompt?: string): Promise<void> {
    const ctx = this.#ctx;
    const command = [...this.#command];
    // Adapt these flags to your agent CLI (the stand-in understands all three).
    if (this.#session) command.push("--resume", this.#session);
    if (ctx.model) command.push("--model", ctx.model);
    command.push("--system-prompt", ctx.systemPrompt);
    const proc = await AgentProcess.spawn({ command, cwd: ctx.directory, env: ctx.env, logger: ctx.logger, configKey: "command", stderrLevel: "debug" });
    this.#proc = proc;
    let markReady!: () => void;
    let failStart!: (error: Error) => void;
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failStart = reject;
    });
    readLines(proc.stdout, (line) => {
      this.#lines = this.#lines.then(() => this.#handleLine(proc, line, markReady));
    });
    void proc.exited.then((code) => this.#handleExit(proc, code, failStart));
    try {
      await ready;
      this.throwIfStopRequested();
    } catch (error) {
      await proc.shutdown(ctx.options.stop_grace_ms);
      this.#proc = null;
      throw error;
    }
    this.setRunning(true);
    if (initialPrompt) {
      this.sendPrompt(initialPrompt).catch((error: Error) => ctx.logger.warn(`the initial prompt failed: ${error.message}`));
    }
  }

  protected async stopAgent(): Promise<void> {
    const proc = this.#proc;
    if (!proc) return;
    // Graceful first: the agent exits on EOF. Then by force.
    try {
      await proc.shutdown(this.#ctx.options.stop_grace_ms);
      await this.#lines;
    } finally {
      this.#proc = null;
    }
  }

  protected runTurn(text: string): Promise<void> {
    const proc = this.#proc;
    if (!proc) return Promise.reject(new Error("the agent is not running"));
    const id = this.#nextId++;
    return new Promise<void>((resolve, reject) => {
      this.#turns.set(id, { resolve, reject });
      this.#write(proc, { type: "prompt", id, text });
    });
  }

  #write(proc: AgentProcess, line: RunnerLine): void {
    proc.stdin.write(`${JSON.stringify(line)}\n`);
  }

  async #handleLine(proc: AgentProcess, line: string, markReady: () => void): Promise<void> {
    if (proc !== this.#proc) return;
    let message: AgentLine;
    try {
      message = parseAgentLine(line);
    } catch (error) {
      // A line we do not understand fails the turns in flight: their answers cannot be trusted.
      const failure = error instanceof AgentLineError ? error : new Error(String(error));
      this.logger.warn(failure.message);
      this.#failTurns(failure);
      return;
    }
    switch (message.type) {
      case "ready":
        this.#session = message.session_id;
        this.#ready = true;
        markReady();
        return;
      case "text":
        if (!this.#turns.has(message.id)) return;
        await this.emit({
          type: "assistant",
          ...(this.#ctx.model ? { model: this.#ctx.model } : {}),
          content: [{ type: "text", text: message.text }],
        });
        return;
      case "done": {
        const turn = this.#turns.get(message.id);
        this.#turns.delete(message.id);
        turn?.resolve();
        return;
      }
    }
  }

  #handleExit(proc: AgentProcess, code: number, failStart: (error: Error) => void): void {
    if (proc !== this.#proc) return;
    const wasReady = this.#ready;
    this.#ready = false;
    if (!this.stopRequested) this.#proc = null;
    // Deliver the lines already read before the turns are failed and the exit reported.
    this.#lines = this.#lines.then(async () => {
      this.#failTurns(this.stopRequested ? new Error("the agent was stopped during the turn") : agentExited(this.#command, code, "a turn"));
      if (!wasReady) failStart(agentExited(this.#command, code, "startup"));
      else await this.reportExit(code);
    });
  }

  #failTurns(error: Error): void {
    for (const [id, turn] of this.#turns) {
      this.#turns.delete(id);
      turn.reject(error);
    }
  }
}
