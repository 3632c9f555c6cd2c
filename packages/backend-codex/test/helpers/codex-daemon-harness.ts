/**
 * Runs a real AgentDaemon (in this process) with `agent: codex` against a real IRC server: the
 * backend is the built @culture/backend-codex (resolved through culture's own install, as a
 * user's would be), the agent is the fake Codex CLI, CULTURE_HOME is private, and the real
 * `culture` CLI is on hand. Build first (`npm run build`).
 */
import type { AgentDaemon, DaemonTimings } from "@culture/core";
import { eventually as kitEventually, startTestDaemon } from "@culture/core/testing";
import { execa } from "execa";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
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
  const directory = join(home, "project");
  mkdirSync(directory, { recursive: true });
  const codex = writeFakeCodexBin(join(home, "bin"));
  const logFile = join(home, "fake.log");
  const d = await startTestDaemon({
    port: opts.port,
    nick: opts.nick ?? "spark-codex",
    home,
    ...(opts.channels ? { channels: opts.channels } : {}),
    ...(opts.config ? { config: opts.config } : {}),
    timings: { interruptGraceMs: 5000, ...opts.timings },
    agent: {
      agent: "codex",
      directory,
      executable: codex,
      env: { FAKE_CODEX_LOG: logFile, FAKE_CODEX_STATE: join(home, "state"), ...opts.fakeEnv },
      ...opts.agent,
    },
  });
  const events = () =>
    existsSync(logFile)
      ? readFileSync(logFile, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as FakeEvent)
      : [];
  return {
    ...d,
    directory,
    events,
    calls: (method) => events().filter((e) => e.method === method),
    culture: async (args) => {
      const r = await execa(process.execPath, [CLI, ...args], { env: { ...d.env, CULTURE_NICK: d.nick }, extendEnv: false, reject: false, timeout: 30_000 });
      return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
    },
  };
}

/** Polls with the kit's `eventually`, with a longer default for the codex suite. */
export function eventually<T>(check: () => T | Promise<T>, what: string, timeoutMs = 20_000): Promise<T> {
  return kitEventually(check, what, timeoutMs);
}
