/**
 * `culture doctor` for Codex agents: does the Codex CLI run (`codex --version`), and is it
 * signed in (`codex login status`, which exits 0 when it has credentials and 1 with
 * "Not logged in" otherwise — openai/codex `codex-rs/cli/src/login.rs`)?
 */
import type { DoctorCheck } from "@culture/core";
import { execa } from "execa";
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
  const status = await run(["login", "status"]);
  const said = firstLine(String(status.stderr || status.stdout));
  checks.push(
    status.exitCode === 0
      ? { ok: true, name: "codex login", detail: said || "signed in" }
      : {
          ok: false,
          name: "codex login",
          detail: said || `codex login status exited with code ${status.exitCode ?? "?"}`,
          fix: "Sign in: codex login (or: printenv OPENAI_API_KEY | codex login --with-api-key)",
        },
  );
  return checks;
}

function firstLine(text: string): string {
  return text.trim().split(/\r?\n/)[0] ?? "";
}

