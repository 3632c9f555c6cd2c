/**
 * `culture backend add <name> [--global]`: installs a backend package with npm — into the
 * project (the config file's folder), or with `--global` into culture's own backends folder
 * (`$CULTURE_HOME/backends`), which discovery searches from every project. Culture's own
 * backends (`claude`, `codex`, `copilot`) are `@culture/backend-<name>` at this culture's
 * version; other names are `culture-backend-<name>` or a full package name. `acp` comes with
 * culture. After npm, the backend is loaded the way an agent would load it, so a broken
 * install is reported here and not at `culture start`.
 */
import type { Command } from "commander";
import {
  backendPackageFor,
  BUNDLED_BACKENDS,
  CultureError,
  errorMessage,
  INSTALLABLE_BACKENDS,
  loadBackend,
  shortBackendName,
  usageError,
} from "@culture/core";
import { backendsDir } from "@culture/core/paths";
import { configOption } from "../../options.js";
import { cliVersion } from "../../version.js";
import { backendCommand } from "./index.js";
import { configDirFor } from "./list.js";
import { ensureNpmPrefix, runNpm } from "./npm-run.js";

/** Where `culture backend add/remove` installs: the project's folder, or culture's backends folder. */
export function installDir(command: Command, global: boolean | undefined): { dir: string; where: string } {
  if (global) return { dir: backendsDir(), where: "culture's backends folder, for every project" };
  return { dir: configDirFor(configOption(command)), where: "this project" };
}

/** The npm spec `culture backend add` installs for a name (culture's own at this culture's version). */
export function installSpec(name: string): { packageName: string; spec: string; agent: string } {
  const { name: packageName, version } = backendPackageFor(name);
  const short = shortBackendName(packageName) ?? packageName;
  const own = (INSTALLABLE_BACKENDS as readonly string[]).includes(short) && packageName.startsWith("@culture/");
  const pinned = version ?? (own ? cliVersion() : null);
  const scope = packageName.startsWith("@") && !packageName.startsWith("@culture/") ? packageName.slice(0, packageName.indexOf("/")) : null;
  return { packageName, spec: pinned ? `${packageName}@${pinned}` : packageName, agent: scope ? `${scope}/${short}` : short };
}

/** Registers `culture backend add`. */
export function registerBackendAddCommand(program: Command): void {
  backendCommand(program)
    .command("add")
    .description("install a backend: claude, codex, copilot (@culture/backend-*), or any culture-backend-<name> / package name")
    .argument("<name>", "claude | codex | copilot | <name> (culture-backend-<name>) | a full package name, optionally @version")
    .option("-g, --global", "install into culture's backends folder ($CULTURE_HOME/backends), for every project")
    .action(async (name: string, opts: { global?: boolean }, command: Command) => {
      if (!name.trim()) throw usageError("culture backend add needs a backend name, e.g. culture backend add claude");
      if ((BUNDLED_BACKENDS as readonly string[]).includes(name.trim())) {
        process.stdout.write(`The ${name.trim()} backend comes with culture ${cliVersion()}: nothing to install. Use it with agent: ${name.trim()}\n`);
        return;
      }
      const { dir, where } = installDir(command, opts.global);
      const { packageName, spec, agent } = installSpec(name);
      if (opts.global) ensureNpmPrefix(dir, "Backends installed by `culture backend add --global`.");
      process.stdout.write(`Installing ${spec} into ${dir} (${where}) ...\n`);
      const code = await runNpm(["install", spec], dir);
      if (code !== 0) {
        throw new CultureError(
          "E_NPM_INSTALL_FAILED",
          `npm install ${spec} failed in ${dir} (${code === null ? "npm could not be run: is npm on your PATH?" : `exit code ${code}`}); npm's output is above.\n` +
            `Check the name (culture's own backends: ${INSTALLABLE_BACKENDS.join(", ")}; others are culture-backend-<name>) and your npm registry.`,
          { details: { dir, spec, exitCode: code } },
        );
      }
      const loaded = await loadBackend(agent, { configDir: dir }).catch((err: unknown) => {
        throw new CultureError("E_BACKEND_LOAD_FAILED", `${packageName} was installed into ${dir}, but culture cannot load it:\n${errorMessage(err)}`, { cause: err });
      });
      process.stdout.write(
        `Installed ${packageName} ${loaded.version ?? ""} (backend "${loaded.definition.name}", API ${loaded.definition.apiVersion}).\n` +
          `Use it in agents.yaml:  agent: ${agent}\n`,
      );
    });
}
