/**
 * The built-in `command` evaluator (`supervisor.agent: command`): any program that reads a
 * prompt on stdin and prints a verdict on stdout can supervise an agent — a local model
 * (`ollama run`, `llm`), a script, or the tests' scripted fixture.
 *
 * Protocol, per evaluation (one process each; docs/supervisor.md has a runnable example):
 * - stdin: the system prompt, a blank line, then the evaluation prompt — i.e. exactly
 *   `${systemPrompt}\n\n${prompt}` — then EOF. Piping it to a model as one message works.
 * - env: the daemon's environment (with `CULTURE_NICK`), plus
 *   `CULTURE_SUPERVISOR_SYSTEM_PROMPT` holding the system prompt alone, so a script that
 *   passes a system prompt separately can strip that prefix from stdin (left out when the
 *   system prompt is over 64 KiB, to stay clear of the kernel's per-variable limit).
 * - stdout: the verdict (`OK`, `CORRECTION <message>`, ...); see `parseVerdict` for what is tolerated.
 * - exit 0: the answer stands. Non-zero: the evaluation failed (stderr is logged); the agent
 *   is unaffected. On timeout or supervisor stop the process gets SIGTERM, then SIGKILL.
 */
import { errorMessage, evaluatorFailed, evaluatorUnavailable } from "../errors.js";
import type { Logger } from "../logger.js";
import type { Evaluator } from "../supervisor-base.js";

/** The environment variable that carries the system prompt to an evaluator command. */
export const SYSTEM_PROMPT_ENV = "CULTURE_SUPERVISOR_SYSTEM_PROMPT";

/** Options of {@link createCommandEvaluator}. */
export interface CommandEvaluatorOptions {
  /** argv: the program, then its arguments (no shell). */
  command: readonly string[];
  /** Working directory of the command (default: the daemon's). */
  cwd?: string;
  /** The command's whole environment (default: the daemon's `process.env`). */
  env?: Record<string, string | undefined>;
  logger: Logger;
}

const MAX_ENV_VALUE = 64 * 1024;
const MAX_STDOUT = 1024 * 1024;

/** Creates an evaluator that runs `command` once per evaluation (stdin in, verdict out). */
export function createCommandEvaluator(options: CommandEvaluatorOptions): Evaluator {
  const [file, ...args] = options.command;
  if (!file) {
    throw evaluatorUnavailable("command", "supervisor.command is empty.", 'Set supervisor.command to an argv list, e.g. command: ["ollama", "run", "llama3.2"].');
  }
  const logger = options.logger;
  return {
    async evaluate({ systemPrompt, prompt, signal }) {
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(options.env ?? process.env)) if (v !== undefined) env[k] = v;
      if (Buffer.byteLength(systemPrompt) <= MAX_ENV_VALUE) env[SYSTEM_PROMPT_ENV] = systemPrompt;
      logger.debug("running the evaluator command", { command: file });
      // Loaded on the first evaluation: a daemon with no evaluator command never loads execa.
      const { execa } = await import("execa");
      const result = await execa(file, args, {
        input: `${systemPrompt}\n\n${prompt}`,
        ...(options.cwd ? { cwd: options.cwd } : {}),
        env,
        extendEnv: false,
        cancelSignal: signal,
        forceKillAfterDelay: 2000,
        reject: false,
        maxBuffer: MAX_STDOUT,
        stripFinalNewline: true,
      });
      if (result.isCanceled || signal.aborted) throw signal.reason ?? new Error("the evaluation was aborted");
      if (result.exitCode === 0 && !result.isTerminated) return String(result.stdout);
      const stderr = lastLines(String(result.stderr ?? ""), 10);
      const how =
        result.exitCode !== undefined
          ? `exited with code ${result.exitCode}`
          : result.signal
            ? `was killed by ${result.signal}`
            : `could not be run (${result.originalMessage ?? result.shortMessage ?? errorMessage(result)})`;
      throw evaluatorFailed(options.command, `${file} ${how}${stderr ? `\n  stderr: ${stderr.replace(/\n/g, "\n          ")}` : ""}`);
    },
  };
}

function lastLines(s: string, n: number): string {
  return s.trim().split(/\r?\n/).slice(-n).join("\n");
}
