/**
 * A real AgentDaemon for tests: a private CULTURE_HOME, a config file written from the given
 * agent entry, the daemon started in this process against a real IRC server. Backend authors
 * use it to run their backend end to end; culture's own suites build on it.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import type { AgentDaemon, DaemonTimings } from "../daemon/agent-daemon.js";
import { createAgentDaemon } from "../daemon/create-daemon.js";
import { createLogger, type Logger } from "../logger.js";

/** Options of {@link startTestDaemon}. */
export interface TestDaemonOptions {
  /** The IRC server's port on 127.0.0.1. */
  port: number;
  /** Default `spark-bot`. */
  nick?: string;
  /** Default `["#test"]`. */
  channels?: string[];
  /** The agent entry's other fields; `agent:` names the backend (a name or a folder path). */
  agent: Record<string, unknown>;
  /** More agent entries in the same config (they are not started; the daemon counts them as agents). */
  otherAgents?: Array<Record<string, unknown>>;
  /** Extra top-level config keys (supervisor, webhooks, operators, ...). */
  config?: Record<string, unknown>;
  timings?: Partial<DaemonTimings>;
  /** An existing folder to use as CULTURE_HOME (default: a new temp folder); removed by stop(). */
  home?: string;
  /** Extra environment for the daemon (and so for its agent). */
  env?: Record<string, string>;
  /** Where the daemon logs (default: silent, or debug to stderr with CULTURE_TEST_LOG=1). */
  logger?: Logger;
}

/** A running test daemon. */
export interface TestDaemon {
  daemon: AgentDaemon;
  nick: string;
  /** Its CULTURE_HOME (also the agent's directory); removed by stop(). */
  home: string;
  configPath: string;
  /** The environment it runs with (CULTURE_HOME set, no XDG_RUNTIME_DIR). */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/** The environment of a test daemon with its own CULTURE_HOME (no global backends). */
export function testDaemonEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CULTURE_HOME: home, CULTURE_GLOBAL_MODULES: join(home, "no-global") };
  delete env.XDG_RUNTIME_DIR;
  delete env.CULTURE_CONFIG;
  return env;
}

/** A test daemon that has been created but not started (see {@link createTestDaemon}). */
export interface CreatedTestDaemon extends TestDaemon {
  /** Starts it (what {@link startTestDaemon} awaits); on failure its home is removed. */
  start(): Promise<void>;
}

/**
 * Writes a config (restart delay 0.2 s, fast reconnects) and creates its daemon without
 * starting it, so a test can act during startup (e.g. mention the agent the moment it has
 * joined, before it says ready). Set CULTURE_TEST_LOG=1 to see the daemon's log.
 */
export async function createTestDaemon(opts: TestDaemonOptions): Promise<CreatedTestDaemon> {
  const home = opts.home ?? mkdtempSync(join(tmpdir(), "culture-d-"));
  const nick = opts.nick ?? "spark-bot";
  const configPath = join(home, "agents.yaml");
  const config = {
    server: { name: nick.split("-")[0], host: "127.0.0.1", port: opts.port },
    restart: { delay_seconds: 0.2, max_crashes: 3, window_seconds: 300 },
    // No presence channel unless a test asks (docs/presence.md): suites that count channels stay as they were.
    presence: { channel: null },
    ...opts.config,
    agents: [
      { nick, directory: home, channels: opts.channels ?? ["#test"], ...opts.agent },
      ...(opts.otherAgents ?? []).map((a) => ({ directory: home, channels: ["#test"], ...opts.agent, ...a })),
    ],
  };
  writeFileSync(configPath, stringify(config));
  const env = { ...testDaemonEnv(home), ...opts.env };
  const logger = opts.logger ?? createLogger({ level: process.env.CULTURE_TEST_LOG === "1" ? "debug" : "silent", scope: nick });
  try {
    const daemon = await createAgentDaemon({
      nick,
      configPath,
      env,
      logger,
      timings: { reconnectMinMs: 200, reconnectMaxMs: 1000, interruptGraceMs: 2000, ...opts.timings },
    });
    return {
      daemon,
      nick,
      home,
      configPath,
      env,
      start: async () => {
        try {
          await daemon.start();
        } catch (err) {
          rmSync(home, { recursive: true, force: true });
          throw err;
        }
      },
      stop: async () => {
        await daemon.stop();
        rmSync(home, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(home, { recursive: true, force: true });
    throw err;
  }
}

/** {@link createTestDaemon}, then starts it: resolves once the daemon is ready. */
export async function startTestDaemon(opts: TestDaemonOptions): Promise<TestDaemon> {
  const created = await createTestDaemon(opts);
  await created.start();
  const { start: _start, ...running } = created;
  return running;
}

/** Polls `check` until it returns a truthy value; rejects naming `what` after `timeoutMs`. */
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
