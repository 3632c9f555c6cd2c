/**
 * The shared setup of the real-agent suites (opencode.real.test.ts, gemini.real.test.ts): the
 * real agent CLI (installed by scripts/install-agent-clis.mjs) runs through culture's real
 * daemon on the embedded IRC server, with its own HOME and config pointing it at a scripted
 * model API on 127.0.0.1. The model is the only fake. The config files written here are the
 * ones docs/backends/acp.md shows.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer, type IrcServer } from "@culture/server";
import type { DaemonTimings } from "@culture/core";
import {
  agentCli,
  connectRawClient,
  eventually,
  parseRawLine,
  startScriptedModelApi,
  startTestDaemon,
  type ModelScript,
  type RawIrcClient,
  type ScriptedModelApi,
  type TestDaemon,
} from "@culture/core/testing";

/** The real ACP agents these suites run. */
export type RealAcpAgentName = "opencode" | "gemini";

/** Where an agent's model lives and how it is started. */
export interface RealAcpAgent {
  /** `acp_command` of the agent entry. */
  command: string[];
  /** `env:` of the agent entry (its private HOME, its API settings). */
  env: Record<string, string>;
  /** The agent's private HOME. */
  home: string;
  /** A pattern matching the agent's process command line (for kill -9). */
  processPattern: RegExp;
}

const CULTURE_BIN = fileURLToPath(new URL("../../cli/bin/culture.cjs", import.meta.url));

/**
 * A folder holding only a `culture` link to this checkout's CLI: put first on the agent's
 * PATH, it is the `culture` the agent's shell runs for `culture channel send`.
 */
export function cultureBinDir(root: string): string {
  if (!existsSync(join(CULTURE_BIN, "..", "..", "dist", "channel.cjs"))) {
    throw new Error(`build the CLI first (npm run build): ${join(CULTURE_BIN, "..", "..", "dist", "channel.cjs")} is missing`);
  }
  const bin = join(root, "bin");
  mkdirSync(bin, { recursive: true });
  symlinkSync(CULTURE_BIN, join(bin, "culture"));
  return bin;
}

/**
 * OpenCode (`opencode acp`) against an OpenAI-compatible endpoint: `~/.config/opencode/opencode.json`
 * declares a provider with the `@ai-sdk/openai-compatible` package (bundled in the opencode
 * binary: nothing is downloaded for it) and makes its model the default.
 */
export function openCodeAgent(root: string, baseUrl: string, path: string, contextLimit?: number): RealAcpAgent {
  const cli = agentCli("opencode");
  const home = join(root, "home");
  mkdirSync(join(home, ".config", "opencode"), { recursive: true });
  writeFileSync(
    join(home, ".config", "opencode", "opencode.json"),
    JSON.stringify(
      {
        $schema: "https://opencode.ai/config.json",
        model: "local/scripted-model",
        small_model: "local/scripted-model",
        autoupdate: false,
        share: "disabled",
        provider: {
          local: {
            npm: "@ai-sdk/openai-compatible",
            name: "Local model",
            options: { baseURL: `${baseUrl}/v1`, apiKey: "dummy" },
            // With a context limit OpenCode reports the window's fill (`usage_update`).
            models: { "scripted-model": { name: "Scripted model", tool_call: true, ...(contextLimit ? { limit: { context: contextLimit, output: 4096 } } : {}) } },
          },
        },
      },
      null,
      2,
    ),
  );
  const env = {
    HOME: home,
    PATH: path,
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    // Test only: no npm registry, to prove OpenCode runs offline. At start it tries to
    // `npm install @opencode-ai/plugin` into ~/.config/opencode; that fails quietly, and the
    // @ai-sdk/openai-compatible provider is bundled in the binary (nothing is downloaded).
    npm_config_registry: "http://127.0.0.1:9/",
  };
  // OpenCode 1.18.33 creates its database on the first run, and that first run sometimes dies
  // ("Failed query: CREATE TABLE `workspace`", exit 1 during initialize) on a busy machine.
  // `opencode models` once beforehand creates it (docs/backends/acp.md: known limits).
  execFileSync(cli.bin!, ["models"], { cwd: home, env: { ...env, PATH: process.env.PATH }, stdio: "ignore", timeout: 60_000 });
  return {
    command: [cli.bin!, "acp"],
    home,
    env,
    processPattern: /opencode acp/,
  };
}

/**
 * Gemini CLI (`gemini --acp`) against a Gemini-API endpoint: `GOOGLE_GEMINI_BASE_URL` and an
 * API key, `~/.gemini/settings.json` selects API-key auth and turns telemetry and updates off.
 */
export function geminiAgent(root: string, baseUrl: string, path: string): RealAcpAgent {
  const cli = agentCli("gemini");
  const home = join(root, "home");
  mkdirSync(join(home, ".gemini"), { recursive: true });
  writeFileSync(
    join(home, ".gemini", "settings.json"),
    JSON.stringify(
      {
        security: { auth: { selectedType: "gemini-api-key" } },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
      },
      null,
      2,
    ),
  );
  return {
    command: [cli.bin!, "--acp"],
    home,
    env: {
      HOME: home,
      PATH: path,
      GEMINI_API_KEY: "dummy",
      GOOGLE_GEMINI_BASE_URL: baseUrl,
      GEMINI_CLI_TRUST_WORKSPACE: "true",
    },
    processPattern: /gemini --acp/,
  };
}

/** One real agent in a real daemon, and a human on IRC talking to it. */
export interface RealAcpRig {
  irc: IrcServer;
  api: ScriptedModelApi;
  agent: RealAcpAgent;
  d: TestDaemon;
  nick: string;
  /** A human (an operator) in #test and #alerts. */
  olga: RawIrcClient;
  /** Waits for a PRIVMSG from the agent to `target` whose text matches. */
  said(target: string, text: RegExp, timeoutMs?: number): Promise<string>;
  /** Every PRIVMSG text the agent sent to `target` so far. */
  lines(target: string): string[];
  /** The pids of the agent processes the daemon spawned (its live children matching the agent's command). */
  agentPids(): number[];
  close(): Promise<void>;
}

/** Options of {@link startRealAcpRig}. */
export interface RealAcpRigOptions {
  agent: RealAcpAgentName;
  script: ModelScript;
  nick?: string;
  /** Extra fields of the agent entry (turn_timeout_seconds ...). */
  entry?: Record<string, unknown>;
  /** Extra top-level config (supervisor, restart ...). */
  config?: Record<string, unknown>;
  /**
   * Called the moment the daemon has joined #test (before its agent is ready): a test that
   * speaks to a starting daemon sends its mention here.
   */
  onJoined?(olga: RawIrcClient, nick: string): void;
  /** The scripted model API's port (default: any free one). */
  apiPort?: number;
  /**
   * The agent runs in a sandbox (`entry.sandbox`): the daemon gets the agent's HOME (the box
   * binds the CLI's folders under the daemon's HOME), and OpenCode's `sandbox.allow` names the
   * model API (its base URL is in opencode.json, not in the environment).
   */
  sandboxed?: boolean;
  /** OpenCode only: the model's context window in opencode.json (`limit.context`); default none. */
  contextLimit?: number;
  /** The daemon's timings (retryNoticeMs ...). */
  timings?: Partial<DaemonTimings>;
  /** Called before the daemon starts, with the agent's HOME and culture's home (to plant files). */
  beforeStart?(paths: { home: string; cultureHome: string }): void;
}

/**
 * Starts the embedded IRC server, the scripted model API, a human `olga` in #test and
 * #alerts, and a daemon whose agent is the real CLI. Resolves once the daemon has started.
 */
export async function startRealAcpRig(opts: RealAcpRigOptions): Promise<RealAcpRig> {
  const nick = opts.nick ?? `spark-${opts.agent}`;
  const root = mkdtempSync(join(tmpdir(), `culture-real-${opts.agent}-`));
  const closers: Array<() => Promise<unknown>> = [async () => rmSync(root, { recursive: true, force: true })];
  const close = async () => {
    for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
  };
  try {
    const irc = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
    closers.push(() => irc.close());
    const api = await startScriptedModelApi({ script: opts.script, ...(opts.apiPort ? { port: opts.apiPort } : {}) });
    closers.push(() => api.close());
    const path = `${cultureBinDir(root)}:${process.env.PATH ?? ""}`;
    const agent = opts.agent === "opencode" ? openCodeAgent(root, api.url, path, opts.contextLimit) : geminiAgent(root, api.url, path);
    const olga = await connectRawClient(irc.port, "olga");
    closers.push(() => olga.close());
    await olga.join("#test");
    await olga.join("#alerts");
    const joined = olga.waitFor((_l, p) => p.command === "JOIN" && p.nick === nick && p.params[0] === "#test", 60_000);
    joined.catch(() => undefined); // a failed start is reported by `started`
    const cultureHome = mkdirp(join(root, "culture"));
    opts.beforeStart?.({ home: agent.home, cultureHome });
    const entry = { ...opts.entry };
    if (opts.sandboxed && opts.agent === "opencode" && entry.sandbox && typeof entry.sandbox === "object") entry.sandbox = { ...entry.sandbox, allow: [api.url] };
    const started = startTestDaemon({
      port: irc.port,
      nick,
      agent: { agent: "acp", acp_command: agent.command, env: agent.env, ...entry },
      ...(opts.sandboxed ? { env: { HOME: agent.home } } : {}),
      config: { operators: ["olga"], operators_by_nick: true, ...opts.config },
      home: cultureHome,
      ...(opts.timings ? { timings: opts.timings } : {}),
    });
    await Promise.race([joined, started]);
    await joined;
    opts.onJoined?.(olga, nick);
    const d = await started;
    closers.push(() => d.stop());
    const isFrom = (target: string, text: RegExp) => (line: string) => {
      const p = parseRawLine(line);
      return p.command === "PRIVMSG" && p.nick === nick && p.params[0] === target && text.test(p.params[1] ?? "");
    };
    return {
      irc,
      api,
      agent,
      d,
      nick,
      olga,
      said: (target, text, timeoutMs = 90_000) => olga.waitFor(isFrom(target, text), timeoutMs),
      lines: (target) => olga.lines.filter(isFrom(target, /./)).map((l) => parseRawLine(l).params[1] ?? ""),
      agentPids: () => processesMatching(agent.processPattern),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Waits until the daemon is idle with a running agent (its turn, and any restart, over). */
export async function idle(rig: RealAcpRig, what = "the agent to be idle"): Promise<void> {
  await eventually(() => {
    const s = rig.d.daemon.status();
    return s.running && s.activity === "idle";
  }, what, 60_000);
}

/** The live children of this process (the in-process daemon spawns its agent) whose command line matches. */
function processesMatching(pattern: RegExp): number[] {
  const out = execFileSync("ps", ["-eo", "pid=,ppid=,stat=,args="], { encoding: "utf8" });
  return out
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && Number(m[2]) === process.pid && !m[3]!.startsWith("Z") && pattern.test(m[4]!))
    .map((m) => Number(m[1]));
}

function mkdirp(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}
