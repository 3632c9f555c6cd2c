/**
 * `culture backend remove <name> [--global]`: uninstalls a backend package that
 * `culture backend add` installed, from the project or from culture's backends folder.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { BUNDLED_BACKENDS, CultureError, usageError } from "@culture/core";
import { backendCommand } from "./index.js";
import { installDir, installSpec } from "./add.js";
import { runNpm } from "./npm-run.js";

/** Registers `culture backend remove`. */
export function registerBackendRemoveCommand(program: Command): void {
  backendCommand(program)
    .command("remove")
    .description("uninstall a backend that culture backend add installed")
    .argument("<name>", "the name given to culture backend add")
    .option("-g, --global", "remove it from culture's backends folder ($CULTURE_HOME/backends)")
    .action(async (name: string, opts: { global?: boolean }, command: Command) => {
      if (!name.trim()) throw usageError("culture backend remove needs a backend name, e.g. culture backend remove claude");
      if ((BUNDLED_BACKENDS as readonly string[]).includes(name.trim())) {
        throw usageError(`The ${name.trim()} backend comes with culture and cannot be removed.`);
      }
      const { dir, where } = installDir(command, opts.global);
      const { packageName } = installSpec(name);
      if (!existsSync(join(dir, "node_modules", packageName))) {
        throw new CultureError(
          "E_BACKEND_NOT_FOUND",
          `${packageName} is not installed in ${dir} (${where}).` +
            (opts.global ? "" : ` If you added it with --global, run: culture backend remove ${name.trim()} --global`) +
            `\nculture backend list shows where each backend is.`,
        );
      }
      const code = await runNpm(["uninstall", packageName], dir);
      if (code !== 0) throw new CultureError("E_NPM_INSTALL_FAILED", `npm uninstall ${packageName} failed in ${dir} (exit code ${code}); npm's output is above.`);
      process.stdout.write(`Removed ${packageName} from ${dir} (${where}).\n`);
    });
}
