/**
 * Runs a real AgentDaemon (in this process) with `agent: codex` against a real IRC server: the
 * backend is the built @culture/backend-codex (resolved through culture's own install, as a
 * user's would be), the agent is the fake Codex CLI, CULTURE_HOME is private, and the real
 * `culture` CLI is on hand. Build first (`npm run build`).
 */
import { createAgentDaemon, createLogger, type AgentDaemon, type DaemonTimings } from "@culture/core";
import { execa } from "execa";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";
import { writeFakeCodexBin, type FakeEvent } from "./fake-codex-harness.js";

/** The built CLI. */
export const CLI = fileURLToPath(new URL("../../../cli/dist/main.js", import.meta.url));

/** Options of {@link startCodexDaemon}. */
export interface CodexDaemonOptions {
  port: number;
  nick?: string;
  channels?: string[];
  /** Extra fields of the agent entry. */
  agent?: Record<string, unknown>;
  /** Extra environment for the fake (the backend's `env` field). */
  fakeEnv?: Record<string, string>;
  /** Extra top-level config keys. */
  config?: Record<string, unknown>;
  timings?: Partial<DaemonTimings>;
}

/** A running daemon with the fake Codex. */
export interface CodexDaemon {
  daemon: AgentDaemon;
  nick: string;
  home: string;
  directory: string;
  env: NodeJS.ProcessEnv;
  /** What the fake received, across all its processes. */
  events(): FakeEvent[];
  calls(method: string): FakeEvent[];
  /** Runs `culture <args>` with this daemon's environment and CULTURE_NICK. */
  culture(args: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  stop(): Promise<void>;
}

/** Writes a config whose agent uses the codex backend with the fake, and starts its daemon. */
export async function startCodexDaemon(opts: CodexDaemonOptions): Promise<CodexDaemon> {
  const home = realpathSync(mkdtempSync(join(tmpdir(), "culture-cx-")));
  const nick = opts.nick ?? "spark-codex";
  const directory = join(home, "project");
  mkdirSync(directory, { recursive: true });
  const codex = writeFakeCodexBin(join(home, "bin"));
  const logFile = join(home, "fake.log");
  const configPath = join(home, "agents.yaml");
  const config = {
    server: { name: "spark", host: "127.0.0.1", port: opts.port },
    restart: { delay_seconds: 0.2, max_crashes: 3, window_seconds: 300 },
    ...opts.config,
    agents: [
      {
        nick,
        agent: "codex",
        directory,
        channels: opts.channels ?? ["#test"],
        executable: codex,
        env: { FAKE_CODEX_LOG: logFile, FAKE_CODEX_STATE: join(home, "state"), ...opts.fakeEnv },
        ...opts.agent,
      },
    ],
  };
  writeFileSync(configPath, stringify(config));
  const env: NodeJS.ProcessEnv = { ...process.env, CULTURE_HOME: home, CULTURE_GLOBAL_MODULES: join(home, "none") };
  delete env.XDG_RUNTIME_DIR;
  delete env.CULTURE_CONFIG;
  const logger = createLogger({ level: process.env.CULTURE_TEST_LOG === "1" ? "debug" : "silent", scope: nick });
  const daemon = await createAgentDaemon({
    nick,
    configPath,
    env,
    logger,
    timings: { reconnectMinMs: 200, reconnectMaxMs: 1000, interruptGraceMs: 5000, ...opts.timings },
  });
  try {
    await daemon.start();
  } catch (err) {
    rmSync(home, { recursive: true, force: true });
    throw err;
  }
  const events = () =>
    existsSync(logFile)
      ? readFileSync(logFile, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as FakeEvent)
      : [];
  return {
    daemon,
    nick,
    home,
    directory,
    env,
    events,
    calls: (method) => events().filter((e) => e.method === method),
    culture: async (args) => {
      const r = await execa(process.execPath, [CLI, ...args], { env: { ...env, CULTURE_NICK: nick }, extendEnv: false, reject: false, timeout: 30_000 });
      return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
    },
    stop: async () => {
      await daemon.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it returns a truthy value; rejects with `what` after `timeoutMs`. */
export async function eventually<T>(check: () => T | Promise<T>, what: string, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
