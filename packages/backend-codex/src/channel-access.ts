/**
 * How the agent's `culture channel ...` reaches the daemon's Unix socket through Codex's
 * sandbox. Codex 0.169's Linux sandbox (codex-rs/linux-sandbox/src/seccomp.rs) installs a
 * seccomp filter whenever network access is off that answers `connect(2)` with EPERM for
 * every socket family, AF_UNIX included (only `socket(AF_UNIX)` itself is allowed), so with
 * culture's default `sandbox: workspace-write` the agent cannot speak on IRC at all.
 *
 * The narrowest opening (the default, `exec-rule`): a Codex execution-policy rule,
 * `prefix_rule(pattern = ["culture", "channel"], decision = "allow")`, in
 * `$CODEX_HOME/rules/culture.rules`. Codex runs a command outside the sandbox only when every
 * command of it is explicitly allowed by a rule (codex-rs/core/src/exec_policy.rs:
 * `bypass_sandbox` = all parsed segments match an allow rule), so exactly the plain
 * `culture channel ...` commands leave the sandbox; everything else the agent runs keeps it,
 * network off. `network` instead turns network access on for the whole workspace sandbox
 * (`sandbox_workspace_write.network_access`): every command may then reach the internet and
 * any socket. `none` changes nothing (the agent's replies reach IRC only through the relay).
 */
import { findExecutable, type Logger } from "@culture/core";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join } from "node:path";

/** The values of the `channel_access` option. */
export const CHANNEL_ACCESS_MODES = ["exec-rule", "network", "none"] as const;

/** How `culture channel` gets through Codex's sandbox. */
export type ChannelAccess = (typeof CHANNEL_ACCESS_MODES)[number];

/** The file culture owns in `$CODEX_HOME/rules/`. */
export const CHANNEL_RULE_FILE = "culture.rules";

/**
 * The rule file's content. `host_executable` lists the only absolute paths that count as
 * `culture` (the one on the daemon's PATH): without it Codex also matches any program whose
 * basename is `culture`, so an agent could write `./culture` in its workspace and run it
 * outside the sandbox (seen with Codex 0.169). With no `culture` on PATH the list is empty
 * and only the bare name matches.
 *
 * Codex rejects the whole file when one listed path's basename is not the rule's name
 * ("host_executable path ... must have basename `culture`"; then no custom rule applies and
 * `culture channel` fails with EPERM), so paths named otherwise are left out: npm's bin is a
 * symlink `culture -> .../bin/culture.cjs`, whose real path must not be listed.
 */
export function channelRule(culturePaths: readonly string[]): string {
  const paths = [...new Set(culturePaths)].filter((p) => basename(p) === "culture");
  return `# Written by culture (@culture/backend-codex, channel_access: exec-rule).
# Lets the agent's IRC client, \`culture channel ...\`, run outside Codex's sandbox so it can
# reach the culture daemon's Unix socket; every other command stays sandboxed.
# culture rewrites this file when an agent starts; set channel_access to another value to stop.
host_executable(name = "culture", paths = ${JSON.stringify(paths)})
prefix_rule(
    pattern = ["culture", "channel"],
    decision = "allow",
    match = ["culture channel send '#general' hello"],
    not_match = ["culture start", "sh -c 'culture channel send x y'"],
)
`;
}

/** Appended to the agent prompt with `exec-rule`: only a plain `culture channel ...` command leaves the sandbox. */
export const CHANNEL_RULE_NOTE =
  "Run each `culture channel ...` as a shell command of its own (not after `&&`, `;` or `|`, not inside `sh -c`, no `VAR=...` in front): only then can it reach IRC from Codex's sandbox.";

/** Codex's home for an environment: CODEX_HOME, else `$HOME/.codex`. */
export function codexHomeOf(env: Record<string, string | undefined>): string {
  return env.CODEX_HOME || join(env.HOME || homedir(), ".codex");
}

/**
 * Writes `$CODEX_HOME/rules/culture.rules` unless it already holds the rule for the `culture`
 * found on `env.PATH`. Returns its path. Codex reads rules when it starts, so call this before
 * spawning it.
 */
export async function ensureChannelRule(env: Record<string, string | undefined>, cwd: string, logger: Logger): Promise<string> {
  const dir = join(codexHomeOf(env), "rules");
  const file = join(dir, CHANNEL_RULE_FILE);
  const { content, culture: found } = await channelRuleFor(env, cwd);
  let current: string | null = null;
  try {
    current = readFileSync(file, "utf8");
  } catch {
    current = null;
  }
  if (current !== content) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, content);
    logger.info("wrote the Codex rule that lets `culture channel` reach the daemon through the sandbox", { file, culture: found });
  }
  return file;
}

/** The rule file culture writes for the `culture` found on `env.PATH` (null when there is none). */
export async function channelRuleFor(env: Record<string, string | undefined>, cwd: string): Promise<{ content: string; culture: string | null }> {
  const found = await findExecutable("culture", env.PATH, cwd);
  return { content: channelRule(found ? [found, realpathSync(found)] : []), culture: found ?? null };
}

/** The thread config overrides for a channel access mode (only `network` has any). */
export function channelAccessConfig(access: ChannelAccess): Record<string, unknown> {
  return access === "network" ? { sandbox_workspace_write: { network_access: true } } : {};
}
