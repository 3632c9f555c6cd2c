import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { delimiter, isAbsolute, join, resolve } from "node:path";

/**
 * Finds the program a command name or path would run, the way a shell would: a name with a
 * slash is a path (relative to `cwd`), anything else is looked up in `PATH`. Returns the
 * absolute path of an executable regular file, or null. A `.js` file only has to exist:
 * the Copilot SDK runs it with node.
 */
export async function findExecutable(program: string, pathVariable: string | undefined, cwd: string): Promise<string | null> {
  if (program.includes("/")) {
    const candidate = isAbsolute(program) ? program : resolve(cwd, program);
    return (await isRunnableFile(candidate)) ? candidate : null;
  }
  for (const dir of (pathVariable ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(isAbsolute(dir) ? dir : resolve(cwd, dir), program);
    if (await isRunnableFile(candidate)) return candidate;
  }
  return null;
}

async function isRunnableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    if (path.endsWith(".js")) return true;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
