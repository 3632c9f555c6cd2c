/**
 * Runs a real AgentDaemon (in this process) against a real IRC server, with the echo backend
 * (a real child process) as its agent, a private CULTURE_HOME, and the real `culture` CLI.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { stringify } from "yaml";
import { createAgentDaemon } from "../../src/daemon/create-daemon.js";
import type { AgentDaemon, DaemonTimings } from "../../src/daemon/agent-daemon.js";
import { createLogger } from "../../src/logger.js";

/** The echo backend folder (see fixtures/echo-backend/README.md). */
export const ECHO_BACKEND = fileURLToPath(new URL("../fixtures/echo-backend", import.meta.url));
/** The built CLI. */
export const CLI = fileURLToPath(new URL("../../../cli/dist/main.js", import.meta.url));

/** Options of {@link startTestDaemon}. */
export interface TestDaemonOptions {
  port: number;
  nick?: string;
  channels?: string[];
  /** Extra fields of the agent entry. */
  agent?: Record<string, unknown>;
  /** Extra top-level config keys. */
  config?: Record<string, unknown>;
  timings?: Partial<DaemonTimings>;
}

/** A running test daemon. */
export interface TestDaemon {
  daemon: AgentDaemon;
  nick: string;
  home: string;
  configPath: string;
  env: NodeJS.ProcessEnv;
  /** Runs `culture <args>` with this daemon's environment (and CULTURE_NICK). */
  culture(args: string[], opts?: { nick?: string | null }): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  stop(): Promise<void>;
}

/** The environment of a test daemon with its own CULTURE_HOME. */
export function testEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CULTURE_HOME: home, CULTURE_GLOBAL_MODULES: join(home, "no-global") };
  delete env.XDG_RUNTIME_DIR;
  delete env.CULTURE_CONFIG;
  return env;
}

/** Writes a config and starts its daemon. */
export async function startTestDaemon(opts: TestDaemonOptions): Promise<TestDaemon> {
  const home = mkdtempSync(join(tmpdir(), "culture-d-"));
  const nick = opts.nick ?? "spark-bot";
  const configPath = join(home, "agents.yaml");
  const config = {
    server: { name: "spark", host: "127.0.0.1", port: opts.port },
    restart: { delay_seconds: 0.2, max_crashes: 3, window_seconds: 300 },
    ...opts.config,
    agents: [{ nick, agent: ECHO_BACKEND, directory: home, channels: opts.channels ?? ["#test"], ...opts.agent }],
  };
  writeFileSync(configPath, stringify(config));
  const env = testEnv(home);
  const logger = createLogger({ level: process.env.CULTURE_TEST_LOG === "1" ? "debug" : "silent", scope: nick });
  const daemon = await createAgentDaemon({
    nick,
    configPath,
    env,
    logger,
    timings: { reconnectMinMs: 200, reconnectMaxMs: 1000, interruptGraceMs: 2000, ...opts.timings },
  });
  try {
    await daemon.start();
  } catch (err) {
    rmSync(home, { recursive: true, force: true });
    throw err;
  }
  return {
    daemon,
    nick,
    home,
    configPath,
    env,
    culture: async (args, o = {}) => {
      const cliEnv: NodeJS.ProcessEnv = { ...env };
      if (o.nick !== null) cliEnv.CULTURE_NICK = o.nick ?? nick;
      const r = await execa(process.execPath, [CLI, ...args], { env: cliEnv, extendEnv: false, reject: false, timeout: 30_000 });
      return { exitCode: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr };
    },
    stop: async () => {
      await daemon.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it returns a truthy value; rejects with `what` after `timeoutMs`. */
export async function eventually<T>(check: () => T | Promise<T>, what: string, timeoutMs = 15_000): Promise<T> {
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
