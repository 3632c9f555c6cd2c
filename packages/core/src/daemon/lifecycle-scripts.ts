/**
 * Lifecycle scripts (docs/schedules.md "Lifecycle scripts"): the agent's `scripts:` run around
 * its turns, as agent-kernel's pre-tick / post-tick / pre-stop hooks do. Written as a plugin on
 * the daemon's tapable hooks (`beforePrompt`, `turnEnd`, `shutdown`), so a JavaScript plugin
 * can do the same at the same points:
 *
 * - `before_turn`: before each prompt reaches the agent (not the daemon's own /compact); the
 *   scripts' stdout lines are appended to the prompt as context (at most 8 KB).
 * - `after_turn`: after each turn, in the background (the next turn does not wait), one run at
 *   a time, with `CULTURE_TURN_STATUS` (normal|abnormal), `CULTURE_TURN_DURATION` (seconds),
 *   `CULTURE_LAST_MESSAGE`, `CULTURE_SESSION_ID`, `CULTURE_TURN_ERROR` when it failed.
 * - `before_stop`: when the daemon stops, before the agent does, with the last message and session id.
 *
 * Every script also gets `CULTURE_NICK`, `CULTURE_HOOK` (which one), `CULTURE_TURN` (the turn's
 * number) and `CULTURE_PROMPT_SOURCE` (mention, dm, schedule, trigger, ...). Scripts run in
 * the order listed (a folder's executables in sorted filename order), in the agent's
 * directory, each killed after `timeout_seconds`. A failing, missing or slow script is logged
 * and skipped; it never stops the turn or the daemon.
 */
import { execFile } from "node:child_process";
import { accessSync, constants as fsConstants, readdirSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import type { ScriptsConfig } from "../config/scripts-schema.js";
import type { TurnResult } from "../events.js";
import type { DaemonHooks } from "../hooks.js";
import type { Logger } from "../logger.js";

const PLUGIN_NAME = "LifecycleScripts";
const MAX_CONTEXT_BYTES = 8192;
const MAX_ENV_MESSAGE = 16_384;

/** Which list of scripts runs. */
export type LifecycleHook = "before_turn" | "after_turn" | "before_stop";

/** What the scripts need from the daemon. */
export interface LifecycleScriptsOptions {
  nick: string;
  config: ScriptsConfig;
  /** The agent's directory: relative script paths and the scripts' working directory. */
  directory: string;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** The agent's session id now, or null. */
  sessionId(): string | null;
}

/** What one script run did (the log says the same). */
export interface ScriptRun {
  script: string;
  ok: boolean;
  stdout: string;
  /** Why it failed: exit code, signal, timeout, or could not start. */
  error: string | null;
}

/** Taps the agent's lifecycle scripts onto the daemon's hooks. */
export function applyLifecycleScripts(hooks: DaemonHooks, o: LifecycleScriptsOptions): void {
  const { config, logger } = o;
  let turn = 0;
  let lastMessage = "";
  let background: Promise<void> = Promise.resolve();
  const run = (hook: LifecycleHook, extra: Record<string, string>) => runScripts(hook, config[hook], { ...o, extraEnv: { CULTURE_TURN: String(turn), ...extra } });

  if (config.before_turn.length) {
    hooks.beforePrompt.tapPromise(PLUGIN_NAME, async (prompt, origin) => {
      if (prompt === null || origin.kind === "system") return prompt;
      turn++;
      const runs = await run("before_turn", { CULTURE_PROMPT_SOURCE: origin.kind });
      const lines = runs.flatMap((r) => r.stdout.split("\n")).map((l) => l.trimEnd()).filter((l) => l.trim() !== "");
      if (!lines.length) return prompt;
      let context = lines.join("\n");
      if (Buffer.byteLength(context) > MAX_CONTEXT_BYTES) {
        logger.warn(`before_turn scripts printed ${Buffer.byteLength(context)} bytes; the prompt gets the first ${MAX_CONTEXT_BYTES}`);
        context = Buffer.from(context).subarray(0, MAX_CONTEXT_BYTES).toString("utf8");
      }
      return `${prompt}\n\n[context from before_turn scripts]\n${context}`;
    });
  } else {
    hooks.beforePrompt.tap(PLUGIN_NAME, (prompt, origin) => {
      if (prompt !== null && origin.kind !== "system") turn++;
      return prompt;
    });
  }

  hooks.turnEnd.tap(PLUGIN_NAME, (result: TurnResult) => {
    if (result.origin.kind === "system") return;
    if (result.finalText.trim()) lastMessage = result.finalText;
    if (!config.after_turn.length) return;
    const env = { CULTURE_TURN: String(turn), ...afterTurnEnv(result, o.sessionId()) };
    // In the background, one after another: the next turn does not wait for them.
    background = background.then(() => run("after_turn", env).then(() => undefined));
  });

  hooks.shutdown.tapPromise(PLUGIN_NAME, async () => {
    await background;
    if (!config.before_stop.length) return;
    await run("before_stop", { CULTURE_LAST_MESSAGE: lastMessage.slice(0, MAX_ENV_MESSAGE), CULTURE_SESSION_ID: o.sessionId() ?? "" });
  });
}

/** The environment of `after_turn` scripts for one finished turn. */
export function afterTurnEnv(result: TurnResult, sessionId: string | null): Record<string, string> {
  return {
    CULTURE_PROMPT_SOURCE: result.origin.kind,
    CULTURE_TURN_STATUS: result.error ? "abnormal" : "normal",
    CULTURE_TURN_DURATION: (result.durationMs / 1000).toFixed(1),
    CULTURE_LAST_MESSAGE: result.finalText.slice(0, MAX_ENV_MESSAGE),
    CULTURE_SESSION_ID: sessionId ?? "",
    ...(result.error ? { CULTURE_TURN_ERROR: result.error.slice(0, 2000) } : {}),
  };
}

/** Runs one hook's scripts in order; never throws. */
export async function runScripts(
  hook: LifecycleHook,
  entries: readonly string[],
  o: Pick<LifecycleScriptsOptions, "nick" | "config" | "directory" | "env" | "logger"> & { extraEnv: Record<string, string> },
): Promise<ScriptRun[]> {
  const runs: ScriptRun[] = [];
  for (const script of expand(entries, o.directory, hook, o.logger)) {
    const r = await runOne(script, hook, o);
    runs.push(r);
    if (r.ok) o.logger.info(`${hook} script ${script} ran`, { bytes: Buffer.byteLength(r.stdout) });
    else o.logger.warn(`${hook} script ${script} failed (${r.error}); carrying on`);
  }
  return runs;
}

/** The scripts of a list: files as given, folders expanded to their executables, sorted by name. */
function expand(entries: readonly string[], directory: string, hook: LifecycleHook, logger: Logger): string[] {
  const out: string[] = [];
  for (const entry of entries) {
    const path = isAbsolute(entry) ? entry : resolve(directory, entry);
    let isDir = false;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      logger.warn(`${hook} script ${path} does not exist; skipped`);
      continue;
    }
    if (!isDir) {
      out.push(path);
      continue;
    }
    for (const name of readdirSync(path).sort()) {
      const file = join(path, name);
      try {
        if (statSync(file).isFile()) {
          accessSync(file, fsConstants.X_OK);
          out.push(file);
        }
      } catch {
        /* not an executable file: folders hold helpers and READMEs too */
      }
    }
  }
  return out;
}

function runOne(script: string, hook: LifecycleHook, o: Pick<LifecycleScriptsOptions, "nick" | "config" | "directory" | "env"> & { extraEnv: Record<string, string> }): Promise<ScriptRun> {
  const timeoutMs = o.config.timeout_seconds * 1000;
  return new Promise((resolvePromise) => {
    execFile(
      script,
      [],
      {
        cwd: o.directory,
        env: { ...o.env, CULTURE_NICK: o.nick, CULTURE_HOOK: hook, ...o.extraEnv },
        timeout: timeoutMs,
        killSignal: "SIGKILL",
        maxBuffer: 1024 * 1024,
        encoding: "utf8",
      },
      (err, stdout, stderr) => {
        if (!err) return resolvePromise({ script, ok: true, stdout, error: null });
        const e = err as NodeJS.ErrnoException & { killed?: boolean; signal?: string | null; code?: number | string | null };
        const tail = String(stderr ?? "").trim().split("\n").slice(-1)[0] ?? "";
        let why: string;
        if (e.killed && e.signal) why = `timed out after ${o.config.timeout_seconds}s and was killed`;
        else if (typeof e.code === "number") why = `exit ${e.code}${tail ? `: ${tail.slice(0, 200)}` : ""}`;
        else if (e.signal) why = `killed by ${e.signal}`;
        else why = `could not start: ${e.code ?? e.message}`;
        resolvePromise({ script, ok: false, stdout: "", error: why });
      },
    );
  });
}
