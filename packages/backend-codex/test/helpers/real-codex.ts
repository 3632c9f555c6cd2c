/**
 * Runs the REAL Codex CLI (the pinned @openai/codex from scripts/agent-clis.json, its native
 * binary) as a culture agent: culture's real daemon in this process, a real IRC server, and
 * Codex talking to a scripted OpenAI Responses API on 127.0.0.1 through a custom
 * `model_providers` entry in a private CODEX_HOME. The model is the only fake.
 *
 * The private CODEX_HOME/HOME lives under ~/.cache/culture/ (not /tmp: Codex warns about a
 * CODEX_HOME under the system temp folder), and a `culture` wrapper on PATH runs this
 * checkout's built CLI, so the agent's shell finds `culture channel ...` as a user's would.
 */
import type { DaemonTimings } from "@culture/core";
import {
  agentCli,
  createTestDaemon,
  startScriptedModelApi,
  startTestDaemon,
  type CreatedTestDaemon,
  type ModelScript,
  type ScriptedModelApi,
  type TestDaemon,
  type TestDaemonOptions,
  embeddedIrcSuite,
  type EmbeddedIrcSuite,
} from "@culture/core/testing";
import { afterAll, afterEach, beforeAll } from "vitest";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The built `culture` CLI of this checkout. */
export const CULTURE_CLI = fileURLToPath(new URL("../../../cli/dist/main.js", import.meta.url));

/** The env var the custom model provider reads its key from. */
export const MODEL_KEY_VAR = "CULTURE_TEST_MODEL_KEY";

/** A private home for one real Codex: CODEX_HOME, HOME and a bin folder with `culture`. */
export interface CodexHome {
  /** The folder (HOME of the agent). */
  dir: string;
  /** `<dir>/.codex` (CODEX_HOME). */
  codexHome: string;
  /** `<dir>/bin`, put first on PATH: holds the `culture` wrapper. */
  bin: string;
  /** The config.toml written. */
  configToml: string;
  /** The environment the agent entry's `env:` gets. */
  env: Record<string, string>;
  remove(): void;
}

/** The config.toml that points Codex at a local OpenAI-compatible Responses API (the docs show this one). */
export function providerConfigToml(baseUrl: string, extra = ""): string {
  return [
    `model = "scripted-model"`,
    `model_provider = "local"`,
    ``,
    `[model_providers.local]`,
    `name = "local scripted model"`,
    `base_url = "${baseUrl}/v1"`,
    `env_key = "${MODEL_KEY_VAR}"`,
    `wire_api = "responses"`,
    // Codex's own retries, kept short so failure tests take seconds.
    `request_max_retries = 2`,
    `stream_max_retries = 1`,
    extra,
  ].join("\n");
}

/** Makes a private Codex home whose config.toml points at `api`. */
export function makeCodexHome(api: ScriptedModelApi, extraToml = ""): CodexHome {
  const root = join(homedir(), ".cache", "culture", "test-homes");
  mkdirSync(root, { recursive: true });
  const dir = realpathSync(mkdtempSync(join(root, "codex-")));
  const codexHome = join(dir, ".codex");
  const bin = join(dir, "bin");
  mkdirSync(codexHome, { recursive: true });
  mkdirSync(bin, { recursive: true });
  const configToml = providerConfigToml(api.url, extraToml);
  writeFileSync(join(codexHome, "config.toml"), configToml);
  const wrapper = join(bin, "culture");
  writeFileSync(wrapper, `#!/bin/sh\nexec '${process.execPath}' '${CULTURE_CLI}' "$@"\n`);
  chmodSync(wrapper, 0o755);
  return {
    dir,
    codexHome,
    bin,
    configToml,
    env: { HOME: dir, CODEX_HOME: codexHome, [MODEL_KEY_VAR]: "dummy-key", PATH: `${bin}:${process.env.PATH ?? ""}` },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The real codex program: the npm package's bin (what `npm i -g @openai/codex` puts on PATH). */
export function realCodexExecutable(): string {
  const cli = agentCli("codex");
  if (!cli.bin) throw new Error("the codex pin has no bin");
  return cli.bin;
}

/** Options of {@link startRealCodexDaemon}. */
export interface RealCodexDaemonOptions {
  ircPort: number;
  api: ScriptedModelApi;
  home: CodexHome;
  nick?: string;
  channels?: string[];
  /** Extra fields of the agent entry (sandbox, turn_timeout_seconds, ...). */
  agent?: Record<string, unknown>;
  /** Extra top-level config keys. */
  config?: Record<string, unknown>;
  timings?: Partial<DaemonTimings>;
}

/** Starts a daemon whose agent is the real Codex (not awaited: callers talk to it as soon as it has joined). */
export function startRealCodexDaemon(opts: RealCodexDaemonOptions): Promise<TestDaemon> {
  return startTestDaemon(realCodexDaemonOptions(opts));
}

/** Creates (does not start) a daemon whose agent is the real Codex: tap its hooks, then `start()`. */
export function createRealCodexDaemon(opts: RealCodexDaemonOptions): Promise<CreatedTestDaemon> {
  return createTestDaemon(realCodexDaemonOptions(opts));
}

function realCodexDaemonOptions(opts: RealCodexDaemonOptions): TestDaemonOptions {
  return {
    port: opts.ircPort,
    nick: opts.nick ?? "spark-codex",
    ...(opts.channels ? { channels: opts.channels } : {}),
    ...(opts.config ? { config: opts.config } : {}),
    timings: { interruptGraceMs: 5_000, ...opts.timings },
    env: { PATH: opts.home.env.PATH! },
    agent: {
      agent: "codex",
      executable: realCodexExecutable(),
      env: opts.home.env,
      ...opts.agent,
    },
  };
}

/** Starts a scripted Responses API with `script`. */
export function startResponsesApi(script: ModelScript): Promise<ScriptedModelApi> {
  return startScriptedModelApi({ script });
}

/** A running Codex process of one Codex home. */
export interface CodexProcess {
  pid: number;
  /** True for the native binary; false for the npm package's node wrapper (bin/codex.js). */
  native: boolean;
  argv: string[];
}

/** The live processes (of this machine) running with this CODEX_HOME and `app-server` in their argv. */
export function codexProcesses(home: CodexHome): CodexProcess[] {
  const out: CodexProcess[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").filter(Boolean);
      if (!argv.includes("app-server")) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (/\) [ZX] /.test(stat)) continue; // zombie or dead
      const environ = readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
      if (!environ.includes(`CODEX_HOME=${home.codexHome}`)) continue;
      out.push({ pid: Number(entry), native: !/node$/.test(argv[0] ?? "") && !argv.some((a) => a.endsWith("codex.js")), argv });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return out;
}

/** The embedded IRC server for a describe block, and per-test cleanups (core's embeddedIrcSuite). */
export function ircSuite(): EmbeddedIrcSuite {
  return embeddedIrcSuite({ beforeAll, afterAll, afterEach });
}
