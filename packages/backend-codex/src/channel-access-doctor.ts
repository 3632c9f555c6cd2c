/**
 * `culture doctor`'s checks of what a Codex agent needs to speak on IRC: its `culture channel
 * ...` must reach the daemon's socket from inside Codex's sandbox (channel-access.ts says why
 * that is not a given). Asked of the real Codex, never inferred:
 *
 * - `exec-rule`: the rules file culture would write now (for the `culture` on the agent's
 *   PATH), with the user's other rules files beside it, goes through `codex execpolicy check`:
 *   it must parse (Codex 0.169 ignores every custom rule when one file does not, issue #31) and
 *   allow `culture channel send`, by name and by the path the agent's shell resolves.
 * - `network`: a `connect(2)` to the agent's socket path from `codex sandbox` with the
 *   workspace-write sandbox and network access on, as the agent runs: EPERM means blocked.
 * - `none`: a warning (the agent's replies reach IRC only through the relay).
 */
import type { DoctorCheck } from "@culture/core";
import { socketPath } from "@culture/core/paths";
import { definedEnv } from "@culture/core";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHANNEL_RULE_FILE, channelRuleFor, codexHomeOf, type ChannelAccess } from "./channel-access.js";

/** What {@link channelAccessChecks} needs: the Codex program found, the agent's env and directory. */
export interface ChannelAccessCheckInput {
  codex: string;
  access: ChannelAccess;
  env: Record<string, string | undefined>;
  cwd: string;
}

const NAME = "culture channel from the codex sandbox";

/** The checks for one Codex agent's channel access mode. */
export async function channelAccessChecks(input: ChannelAccessCheckInput): Promise<DoctorCheck[]> {
  if (input.access === "none") {
    return [
      {
        ok: true,
        warning: true,
        name: NAME,
        detail: "channel_access: none: the agent's `culture channel ...` cannot reach the daemon (connect EPERM); its replies reach IRC only through the relay",
        fix: "remove channel_access (the default, exec-rule, lets exactly `culture channel ...` leave the sandbox)",
      },
    ];
  }
  if (input.access === "network") return [await networkProbe(input)];
  return [await execRuleCheck(input)];
}

/** `codex execpolicy check` of the rules culture would write, beside the user's own rules files. */
async function execRuleCheck(input: ChannelAccessCheckInput): Promise<DoctorCheck> {
  const name = "codex rules for culture channel";
  const { content, culture } = await channelRuleFor(input.env, input.cwd);
  if (!culture) {
    return {
      ok: false,
      name,
      detail: "`culture` is not on the agent's PATH: the agent cannot run `culture channel ...` to speak on IRC",
      fix: "install the command (npm install -g culture, or in a clone: npm install -g ./packages/cli), or add its folder to PATH",
    };
  }
  const dir = mkdtempSync(join(tmpdir(), "culture-doctor-rules-"));
  try {
    const ours = join(dir, CHANNEL_RULE_FILE);
    writeFileSync(ours, content);
    const others = otherRuleFiles(input.env);
    const rules = [ours, ...others].flatMap((f) => ["--rules", f]);
    const env = definedEnv(input.env);
    // execa is loaded when a doctor runs a command, not with the backend: a daemon never needs it.
    const { execa } = await import("execa");
    for (const program of ["culture", culture]) {
      const argv = [program, "channel", "send", "#general", "hello"];
      const r = await execa(input.codex, ["execpolicy", "check", "--resolve-host-executables", ...rules, ...argv], {
        cwd: input.cwd,
        env,
        extendEnv: false,
        reject: false,
        timeout: 30_000,
        stdin: "ignore",
      });
      if (r.exitCode !== 0) {
        const output = `${String(r.stderr)}\n${String(r.stdout)}`;
        const why = policyError(output);
        const file = [ours, ...others].find((f) => output.includes(f)) ?? "";
        return {
          ok: false,
          name,
          detail: `codex execpolicy check refused the rules (${why}): Codex then applies no custom rule and \`culture channel\` fails with connect EPERM`,
          fix:
            file && file !== ours
              ? `fix or remove ${file} (one rules file Codex cannot parse disables them all)`
              : "upgrade culture: this version writes a rules file your Codex refuses (or set channel_access: network)",
        };
      }
      const decision = decisionOf(String(r.stdout));
      if (decision !== "allow") {
        return {
          ok: false,
          name,
          detail: `codex execpolicy check does not allow \`${argv.join(" ")}\` (decision: ${decision ?? "none"}${others.length ? `; other rules: ${others.join(", ")}` : ""})`,
          fix: `remove the rule that forbids or prompts for culture in ${join(codexHomeOf(input.env), "rules")}`,
        };
      }
    }
    return {
      ok: true,
      name,
      detail: `codex execpolicy check allows \`culture channel ...\` (${culture}) to leave the sandbox, and nothing else of culture's`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A connect(2) to the agent's socket path from `codex sandbox`, workspace-write with network access, as the agent runs. */
async function networkProbe(input: ChannelAccessCheckInput): Promise<DoctorCheck> {
  const nick = input.env.CULTURE_NICK ?? "agent";
  const sock = socketPath(nick, input.env as NodeJS.ProcessEnv);
  const probe = `require("net").connect(${JSON.stringify(sock)}).on("connect",()=>{console.log("CONNECTED");process.exit(0)}).on("error",(e)=>{console.log("ERR "+e.code);process.exit(0)})`;
  const { execa } = await import("execa");
  const r = await execa(
    input.codex,
    ["sandbox", "-c", 'sandbox_mode="workspace-write"', "-c", "sandbox_workspace_write.network_access=true", "--", process.execPath, "-e", probe],
    { cwd: input.cwd, env: definedEnv(input.env), extendEnv: false, reject: false, timeout: 30_000, stdin: "ignore" },
  );
  const said = /^(CONNECTED|ERR \S+)$/m.exec(String(r.stdout))?.[1];
  if (!said || said === "ERR EPERM" || said === "ERR EACCES") {
    return {
      ok: false,
      name: NAME,
      detail: `from \`codex sandbox\` with network access, connect to ${sock} gave ${said ?? `no answer (exit ${r.exitCode ?? "?"}: ${String(r.stderr).trim().split("\n").at(-1) ?? ""})`}`,
      fix: "remove channel_access (exec-rule, the default), or check your Codex sandbox settings",
    };
  }
  const state = said === "CONNECTED" ? "the daemon answered" : `${said.slice(4)}: allowed, the daemon is not running`;
  return { ok: true, name: NAME, detail: `channel_access: network: connect(2) to ${sock} is allowed from the sandbox (${state})` };
}

/** The user's own `*.rules` files in `$CODEX_HOME/rules` (Codex loads them all with culture's). */
function otherRuleFiles(env: Record<string, string | undefined>): string[] {
  const dir = join(codexHomeOf(env), "rules");
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith(".rules") && f !== CHANNEL_RULE_FILE)
      .sort()
      .map((f) => join(dir, f));
  } catch {
    return [];
  }
}

function decisionOf(stdout: string): string | undefined {
  try {
    return (JSON.parse(stdout) as { decision?: string }).decision;
  } catch {
    return undefined;
  }
}

/** The line of Codex's starlark error that says what is wrong. */
function policyError(text: string): string {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  return lines.find((l) => /^error: /.test(l))?.replace(/^error: /, "") ?? lines.find((l) => /^Error: /.test(l))?.replace(/^Error: /, "") ?? lines.find(Boolean) ?? "no output";
}
