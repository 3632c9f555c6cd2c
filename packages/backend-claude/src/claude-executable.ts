/**
 * Which Claude Code CLI culture runs. The SDK spawns the CLI itself, but it only checks that a
 * path exists and reports a missing bundled binary with its own wording; resolving it here
 * first gives every caller (runner, evaluator, `culture doctor`) one answer and one error:
 * E_AGENT_COMMAND_NOT_FOUND naming the `executable` key.
 */
import { CultureError, agentCommandNotFound, findExecutable } from "@culture/core";
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { isAbsolute, resolve } from "node:path";

/** The SDK package whose optional platform packages carry the native CLI. */
export const SDK_PACKAGE = "@anthropic-ai/claude-agent-sdk";

/** A resolved Claude Code CLI. */
export interface ClaudeExecutable {
  /** Absolute path handed to the SDK as `pathToClaudeCodeExecutable`. */
  path: string;
  /** True for the CLI bundled with the SDK (no `executable` configured). */
  bundled: boolean;
  /** Where it came from: the SDK's bundled CLI, the `claude` on PATH (fallback), or `executable:`. */
  source: "bundled" | "path" | "executable";
  /** True when the SDK runs it with node (a `.js`/`.mjs` file) rather than spawning it directly. */
  script: boolean;
}

/** File endings the SDK runs through a JavaScript runtime instead of spawning directly. */
const SCRIPT_ENDINGS = [".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx"];

/**
 * Resolves the `executable` option: a name with a slash is a path (relative to `cwd`), a bare
 * name is looked up on `PATH`, and null means the native CLI bundled with the SDK — or, when
 * that was not installed (`--omit=optional`), a `claude` on `PATH` (the usual global install).
 * Throws E_AGENT_COMMAND_NOT_FOUND when there is nothing to run.
 */
export async function resolveClaudeExecutable(executable: string | null, pathVariable: string | undefined, cwd: string): Promise<ClaudeExecutable> {
  if (executable === null) {
    const bundled = bundledClaudeExecutable();
    if (bundled) return { path: bundled, bundled: true, source: "bundled", script: false };
    const onPath = await findExecutable("claude", pathVariable, cwd);
    if (onPath) return { path: onPath, bundled: false, source: "path", script: false };
    throw bundledExecutableMissing();
  }
  const script = SCRIPT_ENDINGS.some((ending) => executable.endsWith(ending));
  if (script) {
    // Run with node: it needs to be a readable file, not an executable one.
    const path = isAbsolute(executable) ? executable : resolve(cwd, executable);
    if (!isFile(path)) throw agentCommandNotFound([executable], "executable");
    return { path, bundled: false, source: "executable", script: true };
  }
  const found = await findExecutable(executable, pathVariable, cwd);
  if (!found) throw agentCommandNotFound([executable], "executable");
  return { path: found, bundled: false, source: "executable", script: false };
}

/**
 * The native Claude Code binary from the SDK's optional platform package
 * (`@anthropic-ai/claude-agent-sdk-<platform>-<arch>[-musl]/claude`), or null when that
 * package is not installed (e.g. `npm ci --omit=optional`).
 */
export function bundledClaudeExecutable(): string | null {
  let require: NodeJS.Require;
  try {
    require = createRequire(createRequire(import.meta.url).resolve(SDK_PACKAGE));
  } catch {
    return null;
  }
  const exe = process.platform === "win32" ? "claude.exe" : "claude";
  const base = `${SDK_PACKAGE}-${process.platform}-${process.arch}`;
  const candidates = process.platform === "linux" ? [base, `${base}-musl`] : [base];
  for (const pkg of candidates) {
    try {
      const path = require.resolve(`${pkg}/${exe}`);
      if (existsSync(path)) return path;
    } catch {
      /* not installed: try the next one */
    }
  }
  return null;
}

/**
 * How the Claude Code CLI appears in error messages: once resolved, the path that ran and where
 * it came from (the SDK's bundled CLI, the `claude` on PATH, or `executable:`); before that, the
 * configured value, or what culture will look for.
 */
export function describeExecutable(executable: string | null, resolved?: ClaudeExecutable | null): string[] {
  if (resolved) {
    switch (resolved.source) {
      case "bundled":
        return [`${resolved.path} (the Claude Code bundled with ${SDK_PACKAGE})`];
      case "path":
        return [`${resolved.path} (the claude on PATH)`];
      case "executable":
        return [resolved.path === executable ? resolved.path : `${resolved.path} (executable: ${executable})`];
    }
  }
  return [executable ?? `claude (bundled with ${SDK_PACKAGE}, else the claude on PATH)`];
}

/** The SDK's optional platform package with the native CLI is not installed. */
export function bundledExecutableMissing(): CultureError {
  const pkg = `${SDK_PACKAGE}-${process.platform}-${process.arch}`;
  return new CultureError(
    "E_AGENT_COMMAND_NOT_FOUND",
    `culture couldn't find the Claude Code CLI bundled with ${SDK_PACKAGE}: its platform package ${pkg} is not installed ` +
      `(npm skips it with --omit=optional), and there is no \`claude\` on PATH either.\n` +
      `Install Claude Code (npm install -g @anthropic-ai/claude-code), reinstall culture without --omit=optional, ` +
      `or set executable in agents.yaml to a Claude Code CLI.`,
    { details: { command: describeExecutable(null), configKey: "executable", package: pkg } },
  );
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
