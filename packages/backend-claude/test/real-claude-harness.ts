/**
 * The world of the real-CLI suite: the real Claude Code CLI (pinned in scripts/agent-clis.json,
 * found with agentCli("claude")) run by culture's real daemon with `agent: claude`, talking to a
 * scripted Anthropic Messages API on 127.0.0.1 instead of Anthropic, with a private HOME and
 * CLAUDE_CONFIG_DIR, a dummy key, and the real `culture` CLI on its PATH so its Bash tool can
 * run `culture channel send`. The only fake is the model.
 */
import { createLogger, type DaemonTimings } from "@culture/core";
import {
  agentCli,
  connectRawClient,
  parseRawLine,
  startScriptedModelApi,
  startTestDaemon,
  type RawIrcClient,
  type ScriptedModelApi,
  type TestDaemon,
  type ModelScript,
  embeddedIrcSuite,
  type EmbeddedIrcSuite,
} from "@culture/core/testing";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll } from "vitest";

/** The real `culture` executable of this checkout (`npm run build` first). */
export const CULTURE_BIN = fileURLToPath(new URL("../../cli/bin/culture.cjs", import.meta.url));

/**
 * The environment that points the real Claude Code at a local Anthropic-compatible endpoint
 * (what docs/backends/claude.md tells users): the base URL, a key, no telemetry or updates.
 * IS_SANDBOX=1 only when running as root: Claude Code refuses bypassPermissions as root
 * otherwise (the suite's own test of that refusal leaves it out).
 */
export function localModelEnv(baseUrl: string, home: string): Record<string, string> {
  const env: Record<string, string> = {
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: "dummy-key-for-the-scripted-api",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
  };
  if (process.getuid?.() === 0) env.IS_SANDBOX = "1";
  return env;
}

/** Options of {@link startRealClaude}. */
export interface RealClaudeOptions {
  ircPort: number;
  nick?: string;
  /** The model's script (also replaceable later with `api.setScript`). */
  script: ModelScript;
  /** More agent fields (merged over agent: claude, executable, directory). */
  agent?: Record<string, unknown>;
  /** More top-level config (supervisor, operators, restart ...). */
  config?: Record<string, unknown>;
  /** Environment over {@link localModelEnv}; a key set to undefined is removed. */
  env?: Record<string, string | undefined>;
  /** Daemon timings over the test daemon's (e.g. `retryNoticeMs`). */
  timings?: Partial<DaemonTimings>;
}

/** A daemon running the real Claude Code against a scripted model API. */
export interface RealClaude {
  d: TestDaemon;
  api: ScriptedModelApi;
  nick: string;
  /** The agent's working directory. */
  directory: string;
  /** Claude Code's private HOME. */
  home: string;
  /** The daemon's log lines (debug level). */
  lines: string[];
  /** Pids of the Claude Code processes running in the agent's directory now. */
  claudePids(): number[];
  stop(): Promise<void>;
}

/** Starts the scripted API and a daemon whose agent is the real Claude Code. */
export async function startRealClaude(opts: RealClaudeOptions): Promise<RealClaude> {
  const cli = agentCli("claude");
  if (!cli.bin) throw new Error(`${cli.package} has no bin in scripts/agent-clis.json`);
  const claudeBin = cli.bin;
  const root = realpathSync(mkdtempSync(join(tmpdir(), "culture-rc-")));
  const home = join(root, "home");
  const directory = join(root, "project");
  const bin = join(root, "bin");
  for (const dir of [home, directory, bin, join(root, "culture")]) mkdirSync(dir, { recursive: true });
  symlinkSync(CULTURE_BIN, join(bin, "culture"));
  const api = await startScriptedModelApi({ script: opts.script });
  const nick = opts.nick ?? "spark-claude";
  const lines: string[] = [];
  const env: Record<string, string> = { ...localModelEnv(api.url, home), PATH: `${bin}:${process.env.PATH ?? ""}` };
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  let d: TestDaemon;
  try {
    d = await startTestDaemon({
      port: opts.ircPort,
      nick,
      home: join(root, "culture"),
      agent: { agent: "claude", directory, executable: claudeBin, api_retry_delay_seconds: 0.2, ...opts.agent },
      config: { operators: ["olga"], operators_by_nick: true, ...opts.config },
      env,
      ...(opts.timings ? { timings: opts.timings } : {}),
      logger: createLogger({ level: "debug", write: (line) => lines.push(line), scope: nick }),
    });
  } catch (err) {
    await api.close();
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
  const exe = realpathSync(claudeBin);
  return {
    d,
    api,
    nick,
    directory,
    home,
    lines,
    claudePids: () => processesIn(directory, exe),
    stop: async () => {
      await d.stop().catch(() => undefined);
      await api.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Pids of processes running `exe` with `cwd` as their working directory (Linux /proc). */
export function processesIn(cwd: string, exe: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`) !== cwd) continue;
      if (readlinkSync(`/proc/${entry}/exe`) !== exe) continue;
      // A zombie keeps its links until reaped: only count live ones.
      if (/\) Z /.test(readFileSync(`/proc/${entry}/stat`, "utf8"))) continue;
      pids.push(Number(entry));
    } catch {
      /* gone, or not ours to read */
    }
  }
  return pids;
}

/** Connects a human to the IRC server and joins the channels. */
export async function human(port: number, nick: string, channels: string[] = ["#test", "#alerts"]): Promise<RawIrcClient> {
  const c = await connectRawClient(port, nick);
  for (const ch of channels) await c.join(ch);
  return c;
}

/** A matcher for a PRIVMSG from `from` to `target` whose text matches. */
export const privmsg = (from: string, target: string, text: RegExp) => (line: string) => {
  const p = parseRawLine(line);
  return p.command === "PRIVMSG" && p.nick === from && p.params[0] === target && text.test(p.params[1] ?? "");
};

/** The texts `from` sent to `target` among `lines`. */
export function saidTo(lines: readonly string[], from: string, target: string): string[] {
  return lines
    .map(parseRawLine)
    .filter((p) => p.command === "PRIVMSG" && p.nick === from && p.params[0] === target)
    .map((p) => p.params[1] ?? "");
}

/** The embedded IRC server for a describe block, and per-test cleanups (core's embeddedIrcSuite). */
export function ircSuite(): EmbeddedIrcSuite {
  return embeddedIrcSuite({ beforeAll, afterAll, afterEach });
}
