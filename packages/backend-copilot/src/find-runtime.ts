/**
 * Which Copilot runtime culture starts. The SDK can find its bundled runtime itself, but it
 * reports a missing one as a bare "Could not resolve ..." only when the first session is
 * created; resolving it here lets the runner, `culture doctor` and the error messages say
 * exactly which file is used and how to get one.
 *
 * Order: the agent's `executable`, then `COPILOT_CLI_PATH` (which the SDK honours too), then
 * the SDK's bundled runtime (the optional `@github/copilot-sdk-<platform>` package), then
 * `copilot` (the Copilot CLI, `npm install -g @github/copilot`) on PATH.
 */
import { agentCommandNotFound, CultureError } from "@culture/core";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { findExecutable } from "./find-executable.js";
import type { CopilotOptions } from "./copilot-options.js";

/** Where a runtime was found. */
export interface RuntimeLocation {
  /** Absolute path of the runtime (an executable, or a `.js` file the SDK runs with node). */
  path: string;
  /** How it was chosen. */
  source: "executable" | "COPILOT_CLI_PATH" | "bundled" | "PATH";
}

/**
 * Finds the runtime for an agent entry. `cwd` is the agent's directory (relative paths are
 * relative to it). Throws E_AGENT_COMMAND_NOT_FOUND naming what was tried and the fix.
 */
export async function findRuntime(options: Pick<CopilotOptions, "executable">, env: Record<string, string | undefined>, cwd: string): Promise<RuntimeLocation> {
  if (options.executable) {
    const path = await findExecutable(options.executable, env.PATH, cwd);
    if (!path) throw agentCommandNotFound([options.executable], "executable");
    return { path, source: "executable" };
  }
  const fromEnv = env.COPILOT_CLI_PATH;
  if (fromEnv) {
    const path = await findExecutable(fromEnv, env.PATH, cwd);
    if (!path) throw agentCommandNotFound([fromEnv], "executable (or unset COPILOT_CLI_PATH)");
    return { path, source: "COPILOT_CLI_PATH" };
  }
  const bundled = bundledRuntimePath();
  if (bundled) return { path: bundled, source: "bundled" };
  const onPath = await findExecutable("copilot", env.PATH, cwd);
  if (onPath) return { path: onPath, source: "PATH" };
  throw runtimeNotFound();
}

/**
 * The runtime bundled with `@github/copilot-sdk` (its optional platform package), or null
 * when that package is not installed (e.g. `npm install --omit=optional`).
 */
export function bundledRuntimePath(): string | null {
  const platform = runtimePlatform();
  if (!platform) return null;
  const packageName = `@github/copilot-sdk-${platform}`;
  let searchPaths: string[];
  try {
    const sdkEntry = createRequire(import.meta.url).resolve("@github/copilot-sdk");
    searchPaths = createRequire(sdkEntry).resolve.paths(packageName) ?? [];
  } catch {
    return null;
  }
  const wrapper = platform.startsWith("win32") ? "copilot-runtime.exe" : "copilot-runtime";
  for (const base of searchPaths) {
    const dir = join(base, packageName, "prebuilds", platform);
    if (existsSync(join(dir, wrapper)) && existsSync(join(dir, "runtime.node"))) return join(dir, wrapper);
  }
  return null;
}

/** The E_AGENT_COMMAND_NOT_FOUND error for "no runtime anywhere". */
export function runtimeNotFound(): CultureError {
  return new CultureError(
    "E_AGENT_COMMAND_NOT_FOUND",
    `culture couldn't find a GitHub Copilot runtime to run.\n` +
      `Tried: executable (not set), COPILOT_CLI_PATH (not set), the runtime bundled with @github/copilot-sdk ` +
      `(@github/copilot-sdk-${runtimePlatform() ?? process.platform} is not installed), copilot on PATH.\n` +
      `Install the Copilot CLI:  npm install -g @github/copilot   (then sign in: run copilot and type /login)\n` +
      `or set executable in agents.yaml to the path of a copilot binary.`,
    { details: { command: ["copilot"], configKey: "executable" } },
  );
}

/** The SDK's platform names: linux-x64, linuxmusl-arm64, darwin-arm64, win32-x64, ... */
function runtimePlatform(): string | null {
  const arch = process.arch;
  if (arch !== "x64" && arch !== "arm64") return null;
  if (process.platform === "linux") {
    const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
    return `${report?.header?.glibcVersionRuntime === undefined ? "linuxmusl" : "linux"}-${arch}`;
  }
  if (process.platform === "darwin" || process.platform === "win32") return `${process.platform}-${arch}`;
  return null;
}
