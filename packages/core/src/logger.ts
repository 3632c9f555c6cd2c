import { maskInput, maskSecrets } from "./approvals/secret-mask.js";

/**
 * Where culture writes what it does. Fields are printed as `key=value` after the message.
 * Every line is masked (secret-mask.ts) before it is written: backends log permission
 * decisions, tool inputs and prompts, and `culture logs` must not show the passwords in them.
 */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** A logger whose lines carry `scope` (e.g. `irc`, `supervisor`). */
  child(scope: string): Logger;
}

/** Log levels, lowest first. */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
const LEVELS: LogLevel[] = ["debug", "info", "warn", "error", "silent"];

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go; default stderr. */
  write?: (line: string) => void;
  scope?: string;
}

let failedWrites = 0;
let guarded = false;

/**
 * Log lines that could not be written (a full disk, a closed terminal) in this process. A
 * failed write is counted, never fatal: the daemon reports the count in its status.
 */
export function logWriteFailures(): number {
  return failedWrites;
}

/**
 * Makes a failed write to stdout or stderr (ENOSPC, EPIPE, EIO) a counted event instead of an
 * uncaught `error` that kills the process. Called by every default logger; safe to call again.
 */
export function guardStdio(): void {
  if (guarded) return;
  guarded = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", () => {
      failedWrites++;
    });
  }
}

/** A line logger with ISO timestamps: `2026-11-22T01:02:03.456Z INFO [irc] connected host=...`. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? (process.env.CULTURE_LOG_LEVEL as LogLevel | undefined) ?? "info";
  const min = Math.max(0, LEVELS.indexOf(level));
  if (!options.write) guardStdio();
  const target = options.write ?? ((line: string) => process.stderr.write(line + "\n"));
  const write = (line: string) => {
    try {
      target(line);
    } catch {
      failedWrites++;
    }
  };
  const make = (scope: string | undefined): Logger => {
    const log = (lvl: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
      if (LEVELS.indexOf(lvl) < min) return;
      const tail = fields
        ? Object.entries(maskInput(fields) as Record<string, unknown>)
            .map(([k, v]) => `${k}=${typeof v === "string" ? JSON.stringify(v) : safeJson(v)}`)
            .join(" ")
        : "";
      write(`${new Date().toISOString()} ${lvl.toUpperCase()}${scope ? ` [${scope}]` : ""} ${maskSecrets(String(message))}${tail ? " " + tail : ""}`);
    };
    return {
      debug: log("debug"),
      info: log("info"),
      warn: log("warn"),
      error: log("error"),
      child: (s) => make(scope ? `${scope}:${s}` : s),
    };
  };
  return make(options.scope);
}

/** A logger that drops everything (tests, library defaults). */
export const silentLogger: Logger = createLogger({ level: "silent" });

function safeJson(v: unknown): string {
  if (v instanceof Error) return JSON.stringify(v.message);
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}
