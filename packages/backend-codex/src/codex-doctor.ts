/**
 * `culture doctor` for Codex agents: does the Codex CLI run (`codex --version`), and can it
 * authenticate to its model provider: for a custom provider with `env_key` (config.toml), is
 * that variable set; for OpenAI, is it signed in (`codex login status`, which exits 0 when it
 * has credentials and 1 with "Not logged in" otherwise — openai/codex
 * `codex-rs/cli/src/login.rs`)? And can its `culture channel ...` reach the daemon from
 * Codex's sandbox (channel-access-doctor.ts)?
 */
import type { DoctorCheck } from "@culture/core";
import { channelAccessChecks } from "./channel-access-doctor.js";
import { readProviderAuth } from "./codex-config.js";
import { codexOptionsSchema, codexProgram, type CodexOptions } from "./codex-options.js";
import { findExecutable, definedEnv } from "@culture/core";

/** Runs the Codex checks for one agent's options. */
export async function codexDoctor(options: Partial<CodexOptions> | undefined, env: Record<string, string | undefined>, cwd = process.cwd()): Promise<DoctorCheck[]> {
  const parsed = codexOptionsSchema.parse(options ?? {});
  const program = codexProgram(parsed);
  const childEnv = { ...env, ...parsed.env };
  const name = `codex executable (${program})`;
  const found = await findExecutable(program, childEnv.PATH, cwd);
  if (!found) {
    return [
      {
        ok: false,
        name,
        detail: program.includes("/") ? `${program} is not an executable file` : `${program} is not on PATH`,
        fix: "Install the Codex CLI (npm install -g @openai/codex), or set executable in agents.yaml to its path.",
      },
    ];
  }
  // execa is loaded when a doctor runs a command, not with the backend: a daemon never needs it.
  const { execa } = await import("execa");
  const run = (args: string[]) =>
    execa(found, args, { cwd, env: definedEnv(childEnv), extendEnv: false, reject: false, timeout: 30_000, stdin: "ignore" });
  const version = await run(["--version"]);
  if (version.exitCode !== 0) {
    return [
      {
        ok: false,
        name,
        detail: `${found} --version failed (${version.exitCode === undefined ? "it did not run" : `exit code ${version.exitCode}`}): ${firstLine(String(version.stderr || version.stdout))}`,
        fix: "Reinstall the Codex CLI (npm install -g @openai/codex), or point executable at a working one.",
      },
    ];
  }
  const checks: DoctorCheck[] = [{ ok: true, name, detail: `${firstLine(String(version.stdout)) || "runs"} (${found})` }];
  checks.push(await authCheck(childEnv, () => run(["login", "status"])));
  checks.push(...(await channelAccessChecks({ codex: found, access: parsed.channel_access, env: childEnv, cwd })));
  return checks;
}

/**
 * How Codex will authenticate to its model provider. A custom provider with `env_key` reads
 * its API key from that variable (`codex login status` says "Not logged in" for it, which is
 * irrelevant); the OpenAI provider needs `codex login`; other providers need nothing.
 */
async function authCheck(
  env: Record<string, string | undefined>,
  loginStatus: () => Promise<{ exitCode?: number; stdout: unknown; stderr: unknown }>,
): Promise<DoctorCheck> {
  const auth = readProviderAuth(env);
  if (auth.envKey) {
    const name = `codex model provider "${auth.provider}"`;
    return env[auth.envKey]
      ? { ok: true, name, detail: `API key from $${auth.envKey} (${auth.file})` }
      : {
          ok: false,
          name,
          detail: `$${auth.envKey} is not set: ${auth.file} says the provider "${auth.provider}" reads its API key from it`,
          fix: `Set it where the daemon runs (export ${auth.envKey}=...), or in the agent's env: in agents.yaml (${auth.envKey}: \${${auth.envKey}}).`,
        };
  }
  if (!auth.openaiAuth) {
    return { ok: true, name: `codex model provider "${auth.provider}"`, detail: `no sign-in needed (${auth.file})` };
  }
  const status = await loginStatus();
  const said = meaningfulLine(String(status.stderr ?? ""), String(status.stdout ?? ""));
  return status.exitCode === 0
    ? { ok: true, name: "codex login", detail: said || "signed in" }
    : {
        ok: false,
        name: "codex login",
        detail: said || `codex login status exited with code ${status.exitCode ?? "?"}`,
        fix: "Sign in: codex login (or: printenv OPENAI_API_KEY | codex login --with-api-key)",
      };
}

/**
 * The line that says what happened: Codex prints `WARNING: ...` lines first (e.g. for a
 * CODEX_HOME under /tmp), so those are skipped; the last remaining line wins.
 */
function meaningfulLine(...texts: string[]): string {
  const lines = texts
    .join("\n")
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !/^WARNING:/i.test(l));
  return lines.at(-1) ?? "";
}

function firstLine(text: string): string {
  return text.split(/\r?\n/).map((l) => l.trim()).find((l) => l && !/^WARNING:/i.test(l)) ?? "";
}

