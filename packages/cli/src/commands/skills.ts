/**
 * `culture skills install <backend|all> [--dry-run]`: copies each backend's SKILL.md (what
 * teaches the agent the `culture channel` commands) to where that agent looks for skills,
 * `backend.skill.installDir(home)` — e.g. `~/.claude/skills/irc/SKILL.md`. `all` means every
 * backend the config's agents use, or every built-in backend when there is no config.
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { errorMessage, isCultureError, listBackends, loadBackend, loadConfig, type BackendDefinition, type CultureConfig } from "@culture/core";
import { configOption } from "../options.js";
import { configDirFor } from "./backend/list.js";

/** Registers `culture skills install`. */
export function registerSkills(program: Command): void {
  const skills = program.command("skills").description("install the skill files that teach agents the culture channel commands");
  skills
    .command("install")
    .description("copy a backend's SKILL.md to where its agent finds skills")
    .argument("<backend>", 'a backend (claude, codex, copilot, acp, a package or path), or "all"')
    .option("--dry-run", "print where each file would go; write nothing")
    .action(async (backend: string, opts: { dryRun?: boolean }, command: Command) => {
      const configPath = configOption(command);
      const home = homedir();
      const targets = backend === "all" ? await allBackends(configPath) : [{ agent: backend, configDir: configDirFor(configPath) }];
      let failed = false;
      for (const { agent, configDir, configFile } of targets) {
        try {
          const { definition } = await loadBackend(agent, { configDir, ...(configFile ? { configFile } : {}) });
          const line = installSkill(definition, home, Boolean(opts.dryRun));
          process.stdout.write(`${line}\n`);
        } catch (err) {
          failed = true;
          process.stderr.write(`${agent}: ${errorMessage(err)}\n`);
        }
      }
      if (failed) process.exitCode = 1;
    });
}

/** What {@link installSkill} did for one backend, as a line of output. */
export function installSkill(definition: BackendDefinition, home: string, dryRun: boolean): string {
  const skill = definition.skill;
  if (!skill) return `${definition.name}: no skill file to install`;
  if (!skill.installDir) return `${definition.name}: its skill (${fileURLToPath(skill.path)}) has no install location; copy it where the agent reads skills`;
  const from = fileURLToPath(skill.path);
  const to = join(skill.installDir(home), "SKILL.md");
  if (dryRun) return `${definition.name}: would copy ${from} -> ${to}`;
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
  return `${definition.name}: installed ${to}`;
}

/** The config's backends (each `agent:` once), or every built-in when there is no config. */
async function allBackends(configPath: string | undefined): Promise<Array<{ agent: string; configDir: string; configFile?: string }>> {
  let config: CultureConfig;
  try {
    config = await loadConfig(configPath ? { configPath } : {});
  } catch (err) {
    if (!isCultureError(err, "E_CONFIG_NOT_FOUND") || configPath) throw err;
    const configDir = configDirFor(undefined);
    const builtins = (await listBackends(configDir)).filter((l) => l.source === "builtin");
    return builtins.map((l) => ({ agent: l.agent, configDir }));
  }
  const configDir = config.filepath ? dirname(config.filepath) : process.cwd();
  const agents = [...new Set(config.agents.map((a) => a.agent))];
  return agents.map((agent) => ({ agent, configDir, ...(config.filepath ? { configFile: config.filepath } : {}) }));
}
