/**
 * The runner: one agent session, driven as a child process. This is the part you adapt to
 * your agent: how it is started (argv, environment), how a prompt is written to it, and how
 * its output becomes AgentMessages. The rest — one turn at a time, crash vs. requested stop,
 * idempotent stop, restart after stop — is what culture's daemon relies on, and what the
 * conformance test (test/conformance.test.ts) checks.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { constants } from "node:os";
import { AgentRunnerBase, agentCommandNotFound, agentExited, type RunnerContext } from "@culture/core";
import { agentCommand, type Options } from "./options.js";
import { AgentLineError, parseAgentLine, readLines, type AgentLine, type RunnerLine } from "./wire-protocol.js";

/** A turn waiting for its `done`. */
interface PendingTurn {
  resolve(): void;
  reject(error: Error): void;
}

/** Runs the agent CLI as a child process speaking newline-delimited JSON (see agent.mjs). */
export class AgentCliRunner extends AgentRunnerBase {
  readonly #ctx: RunnerContext<Options>;
  readonly #command: string[];
  #child: ChildProcessWithoutNullStreams | null = null;
  #ready = false;
  #stopping: Promise<void> | null = null;
  #exited: Promise<number> = Promise.resolve(0);
  #session: string | null;
  readonly #turns = new Map<number, PendingTurn>();
  #nextId = 1;
  /** Serialises turns: the daemon sends one at a time, but start(initialPrompt) may leave one running. */
  #queue: Promise<unknown> = Promise.resolve();
  /** Serialises the handling of the agent's lines, so messages are delivered in order. */
  #lines: Promise<void> = Promise.resolve();

  constructor(ctx: RunnerContext<Options>) {
    super();
    this.#ctx = ctx;
    this.#command = agentCommand(ctx.options);
    // After a crash the daemon makes a new runner and hands it the old session to resume.
    this.#session = ctx.previousSessionId;
  }

  /** The agent process's pid while it runs (tests kill it to simulate a crash). */
  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  get sessionId(): string | null {
    return this.#session;
  }

  isRunning(): boolean {
    return this.#child !== null && this.#ready && this.#stopping === null;
  }

  async start(initialPrompt?: string): Promise<void> {
    if (this.#child) throw new Error("start() called while the agent is already running");
    const ctx = this.#ctx;
    const [file = "", ...args] = this.#command;
    // Adapt these flags to your agent CLI (the stand-in understands all three).
    if (this.#session) args.push("--resume", this.#session);
    if (ctx.model) args.push("--model", ctx.model);
    args.push("--system-prompt", ctx.systemPrompt);

    const child = spawn(file, args, { cwd: ctx.directory, env: ctx.env, stdio: ["pipe", "pipe", "pipe"] });
    this.#child = child;
    this.#ready = false;
    this.#stopping = null;
    let markReady!: () => void;
    let failStart!: (error: Error) => void;
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failStart = reject;
    });
    this.#exited = new Promise<number>((resolve) => {
      child.once("close", (code, signal) => {
        const exitCode = code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1);
        this.#handleExit(child, exitCode, failStart);
        resolve(exitCode);
      });
    });
    child.once("error", (error: NodeJS.ErrnoException) => {
      failStart(
        error.code === "ENOENT" || error.code === "EACCES"
          ? agentCommandNotFound(this.#command, "command", error)
          : new Error(`could not start the agent "${this.#command.join(" ")}": ${error.message}`, { cause: error }),
      );
    });
    // EPIPE after a crash: the exit handler reports the crash itself.
    child.stdin.on("error", () => undefined);
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (text: string) => {
      for (const line of text.split("\n")) if (line.trim()) ctx.logger.debug(line, { stream: "stderr" });
    });
    readLines(child.stdout, (line) => {
      this.#lines = this.#lines.then(() => this.#handleLine(child, line, markReady));
    });

    await ready;
    if (initialPrompt) {
      this.sendPrompt(initialPrompt).catch((error: Error) => ctx.logger.warn(`the initial prompt failed: ${error.message}`));
    }
  }

  async stop(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    if (!this.#stopping) {
      const exited = this.#exited;
      this.#stopping = (async () => {
        // Graceful first: the agent exits on EOF. Then by force.
        child.stdin.end();
        const timer = setTimeout(() => child.kill("SIGKILL"), this.#ctx.options.stop_grace_ms);
        await exited;
        clearTimeout(timer);
        await this.#lines;
      })();
    }
    await this.#stopping;
  }

  sendPrompt(text: string): Promise<void> {
    const run = (): Promise<void> => {
      const child = this.#child;
      if (!child || !this.isRunning()) return Promise.reject(new Error("the agent is not running"));
      const id = this.#nextId++;
      return new Promise<void>((resolve, reject) => {
        this.#turns.set(id, { resolve, reject });
        this.#write(child, { type: "prompt", id, text });
      });
    };
    const turn = this.#queue.then(run, run);
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  override async interrupt(): Promise<void> {
    const child = this.#child;
    if (child && this.isRunning()) this.#write(child, { type: "interrupt" });
  }

  #write(child: ChildProcessWithoutNullStreams, line: RunnerLine): void {
    child.stdin.write(`${JSON.stringify(line)}\n`);
  }

  async #handleLine(child: ChildProcessWithoutNullStreams, line: string, markReady: () => void): Promise<void> {
    if (child !== this.#child) return;
    let message: AgentLine;
    try {
      message = parseAgentLine(line);
    } catch (error) {
      // A line we do not understand fails the turns in flight: their answers cannot be trusted.
      const failure = error instanceof AgentLineError ? error : new Error(String(error));
      this.#ctx.logger.warn(failure.message);
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
        await this.onMessage?.({
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

  #handleExit(child: ChildProcessWithoutNullStreams, code: number, failStart: (error: Error) => void): void {
    if (child !== this.#child) return;
    const wasReady = this.#ready;
    const requested = this.#stopping !== null;
    this.#child = null;
    this.#ready = false;
    // Deliver the lines already read before the turns are failed and the exit reported.
    this.#lines = this.#lines.then(async () => {
      this.#failTurns(requested ? new Error("the agent was stopped during the turn") : agentExited(this.#command, code, "a turn"));
      if (!wasReady) failStart(agentExited(this.#command, code, "startup"));
      // A requested stop is not a crash: onExit is for the exits nobody asked for.
      else if (!requested) await this.onExit?.(code);
    });
  }

  #failTurns(error: Error): void {
    for (const [id, turn] of this.#turns) {
      this.#turns.delete(id);
      turn.reject(error);
    }
  }
}
