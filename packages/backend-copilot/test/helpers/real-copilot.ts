/**
 * Runs the REAL GitHub Copilot runtime (the `copilot-runtime` binary of the pinned
 * @github/copilot-sdk's linux-x64 package, installed by scripts/install-agent-clis.mjs: the
 * workspace installs with --omit=optional, so the binary only exists there) as a culture
 * agent: culture's real daemon in this process, a real IRC server, and the runtime talking to
 * a scripted model API on 127.0.0.1 through the backend's BYOK `provider:` option. The model
 * is the only fake.
 *
 * Each agent gets a private HOME (the runtime keeps its sessions in ~/.copilot) with a
 * `culture` wrapper on PATH that runs this checkout's built CLI, so the agent's `bash` tool
 * finds `culture channel ...` as a user's would.
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
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll } from "vitest";

/** The built `culture` CLI of this checkout. */
export const CULTURE_CLI = fileURLToPath(new URL("../../../cli/dist/main.js", import.meta.url));

/** The env var the agent entry's `provider.api_key: ${...}` reads. */
export const MODEL_KEY_VAR = "CULTURE_TEST_MODEL_KEY";

/** The model the agent entry names (the runtime knows its limits; the scripted API answers any). */
export const MODEL = "gpt-4.1";

/** The real runtime binary; throws (with the install command) when it is missing. */
export function realCopilotRuntime(): string {
  const cli = agentCli("copilot");
  const path = join(cli.dir, "node_modules", "@github", "copilot-sdk-linux-x64", "prebuilds", "linux-x64", "copilot-runtime");
  if (!existsSync(path)) throw new Error(`the Copilot runtime is not in ${path}: run node scripts/install-agent-clis.mjs copilot`);
  return path;
}

/** A private home for one real runtime: HOME and a bin folder with `culture`. */
export interface CopilotHome {
  dir: string;
  bin: string;
  /** The agent entry's `env:`. */
  env: Record<string, string>;
  remove(): void;
}

/** Makes a private HOME with a `culture` wrapper in `<home>/bin`. */
export function makeCopilotHome(): CopilotHome {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "culture-copilot-home-")));
  const bin = join(dir, "bin");
  mkdirSync(bin, { recursive: true });
  const wrapper = join(bin, "culture");
  writeFileSync(wrapper, `#!/bin/sh\nexec '${process.execPath}' '${CULTURE_CLI}' "$@"\n`);
  chmodSync(wrapper, 0o755);
  return {
    dir,
    bin,
    env: { HOME: dir, PATH: `${bin}:${process.env.PATH ?? ""}` },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The `provider:` field the docs show, pointed at `api`. */
export function providerField(api: ScriptedModelApi, wireApi: "responses" | "completions"): Record<string, unknown> {
  return { type: "openai", wire_api: wireApi, base_url: `${api.url}/v1`, api_key: `\${${MODEL_KEY_VAR}}` };
}

/** Options of {@link startRealCopilotDaemon}. */
export interface RealCopilotDaemonOptions {
  ircPort: number;
  api: ScriptedModelApi;
  home: CopilotHome;
  nick: string;
  wireApi?: "responses" | "completions";
  /** Extra fields of the agent entry (turn_timeout_seconds, ...). */
  agent?: Record<string, unknown>;
  /** Extra top-level config keys (supervisor, operators, restart). */
  config?: Record<string, unknown>;
  timings?: Partial<DaemonTimings>;
}

/** Starts a daemon whose agent is the real Copilot runtime (not awaited: talk to it once it has joined). */
export function startRealCopilotDaemon(opts: RealCopilotDaemonOptions): Promise<TestDaemon> {
  return startTestDaemon(realCopilotDaemonOptions(opts));
}

/** Creates that daemon without starting it, so a test can tap its hooks first. */
export function createRealCopilotDaemon(opts: RealCopilotDaemonOptions): Promise<CreatedTestDaemon> {
  return createTestDaemon(realCopilotDaemonOptions(opts));
}

function realCopilotDaemonOptions(opts: RealCopilotDaemonOptions): TestDaemonOptions {
  return {
    port: opts.ircPort,
    nick: opts.nick,
    ...(opts.config ? { config: opts.config } : {}),
    timings: { interruptGraceMs: 10_000, ...opts.timings },
    env: { PATH: opts.home.env.PATH!, [MODEL_KEY_VAR]: "dummy-key" },
    agent: {
      agent: "copilot",
      executable: realCopilotRuntime(),
      model: MODEL,
      env: opts.home.env,
      provider: providerField(opts.api, opts.wireApi ?? "responses"),
      ...opts.agent,
    },
  };
}

/** Starts a scripted model API (every built-in dialect: Responses and Chat Completions). */
export function startModelApi(script: ModelScript): Promise<ScriptedModelApi> {
  return startScriptedModelApi({ script });
}

/** Pids of the real runtimes this test process started (its children running `copilot-runtime`). */
export function runtimePids(): number[] {
  const out = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(process.pid)], { encoding: "utf8" });
  return out
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.includes("copilot-runtime"))
    .map((l) => Number(l.split(/\s+/)[0]));
}

/** The embedded IRC server for a describe block, and per-test cleanups (core's embeddedIrcSuite). */
export function useRealWorld(): EmbeddedIrcSuite {
  return embeddedIrcSuite({ beforeAll, afterAll, afterEach });
}
