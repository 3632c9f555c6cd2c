/**
 * `culture doctor` checks of the Claude backend: the Claude Code CLI is there and runs, and
 * some credentials are present. It names where credentials come from and never prints them.
 */
import { agentAuthRequired, errorMessage, type CultureError, type DoctorCheck, definedEnv } from "@culture/core";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { CLAUDE_LOGIN_METHODS } from "./claude-errors.js";
import { resolveClaudeExecutable } from "./claude-executable.js";
import { claudeOptionsSchema, type ClaudeOptions } from "./claude-options.js";

/** Runs the Claude backend's doctor checks for one agent entry's options. */
export async function claudeDoctor(options: Partial<ClaudeOptions> | undefined, env: Record<string, string | undefined>): Promise<DoctorCheck[]> {
  const parsed = claudeOptionsSchema.parse(options ?? {});
  const agentEnv = { ...env, ...parsed.env };
  return [await checkExecutable(parsed, agentEnv), checkCredentials(agentEnv)];
}

/**
 * The daemon's preflight: E_AGENT_AUTH when no credentials are found ({@link checkCredentials}:
 * the variables and the login file, nothing run), else null.
 */
export function claudePreflight(options: Partial<ClaudeOptions> | undefined, env: Record<string, string | undefined>): CultureError | null {
  const parsed = claudeOptionsSchema.parse(options ?? {});
  const check = checkCredentials({ ...env, ...parsed.env });
  return check.ok ? null : agentAuthRequired([parsed.executable ?? "claude"], CLAUDE_LOGIN_METHODS, new Error(check.detail));
}

/** The Claude Code CLI exists and answers `--version`. */
export async function checkExecutable(options: ClaudeOptions, env: Record<string, string | undefined>): Promise<DoctorCheck> {
  const name = "Claude Code CLI";
  let path: string;
  let script: boolean;
  try {
    ({ path, script } = await resolveClaudeExecutable(options.executable, env.PATH, process.cwd()));
  } catch (err) {
    return {
      ok: false,
      name,
      detail: errorMessage(err).split("\n")[0] ?? "not found",
      fix:
        options.executable === null
          ? "Reinstall culture without --omit=optional (the SDK's platform package carries the CLI), or set executable: in agents.yaml."
          : "Install Claude Code (npm install -g @anthropic-ai/claude-code), or fix executable: in agents.yaml.",
    };
  }
  const [program, args] = script ? [process.execPath, [path, "--version"]] : [path, ["--version"]];
  // execa is loaded when a doctor runs a command, not with the backend: a daemon never needs it.
  const { execa } = await import("execa");
  const run = await execa(program, args, { env: definedEnv(env), extendEnv: false, stdin: "ignore", reject: false, timeout: 20_000 });
  const version = String(run.stdout ?? "").split("\n")[0]?.trim() ?? "";
  if (run.exitCode === 0) return { ok: true, name, detail: `${path}${version ? ` (${version})` : ""}` };
  return {
    ok: false,
    name,
    detail: `${path} --version failed: ${run.timedOut ? "no answer within 20s" : (String(run.stderr ?? "").split("\n")[0] || run.shortMessage)}`,
    fix: "Run it by hand to see why; reinstall Claude Code, or point executable: in agents.yaml at a working one.",
  };
}

/**
 * Where Claude Code would get its credentials from, first match: ANTHROPIC_API_KEY,
 * CLAUDE_CODE_OAUTH_TOKEN, ANTHROPIC_AUTH_TOKEN, a cloud provider, or the login file
 * (`$CLAUDE_CONFIG_DIR/.credentials.json`, default `~/.claude/.credentials.json`).
 */
export function checkCredentials(env: Record<string, string | undefined>): DoctorCheck {
  const name = "Claude Code credentials";
  for (const variable of ["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN"]) {
    if (env[variable]) return { ok: true, name, detail: `${variable} is set` };
  }
  const providers: Array<[string, string]> = [
    ["CLAUDE_CODE_USE_BEDROCK", "Amazon Bedrock"],
    ["CLAUDE_CODE_USE_VERTEX", "Google Vertex AI"],
    ["CLAUDE_CODE_USE_FOUNDRY", "Microsoft Foundry"],
  ];
  for (const [variable, provider] of providers) {
    if (env[variable] && env[variable] !== "0") return { ok: true, name, detail: `${variable} is set: ${provider} (its own credentials are not checked)` };
  }
  const configDir = env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), ".claude");
  const file = join(configDir, ".credentials.json");
  if (existsSync(file)) return { ok: true, name, detail: `signed in (${file})` };
  if (process.platform === "darwin") {
    return { ok: true, name, detail: `no ${file}: on macOS Claude Code keeps its login in the Keychain, which culture does not read` };
  }
  return {
    ok: false,
    name,
    detail: `none found (no ANTHROPIC_API_KEY, CLAUDE_CODE_OAUTH_TOKEN or ${file})`,
    fix: `Sign Claude Code in: ${CLAUDE_LOGIN_METHODS.join("; ")}.`,
  };
}
