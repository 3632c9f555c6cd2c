/**
 * Which folders a program needs to run inside the sandbox. $HOME is hidden there, but the
 * agent CLI, node and culture itself often live under it (`~/.cache/culture/agent-clis`,
 * `~/.nvm`, a clone in `~/src/culture`): each program's install folder is bound back read-only
 * so the agent (and `culture channel` in its shell) still run. Found from the program's real
 * path, never from a table of known CLIs.
 */
import { accessSync, constants, existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, delimiter, dirname, isAbsolute, join, resolve, sep } from "node:path";

/**
 * The program an argv names, the way a shell finds it (a name with a slash is a path relative
 * to `cwd`; else the first executable file on `PATH`), or null. The sync twin of findExecutable.
 */
export function whichSync(program: string, pathVariable: string | undefined, cwd: string): string | null {
  if (program.includes("/")) {
    const candidate = isAbsolute(program) ? program : resolve(cwd, program);
    return isExecutableFile(candidate) ? candidate : null;
  }
  for (const dir of (pathVariable ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(isAbsolute(dir) ? dir : resolve(cwd, dir), program);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/**
 * The folder a file of an installed program belongs to: for a file inside `node_modules`, the
 * folder that holds that `node_modules` (or the npm prefix above `lib/node_modules`, so its
 * `bin/` comes along); for a file in a checkout, the workspace root above its package (its
 * `node_modules` links point into the checkout); else the package's folder; else the
 * `bin/`'s parent or the file's folder. `tooWide` says which folders may never be returned
 * (the home folder itself): then the narrowest candidate is used.
 */
export function installRoot(file: string, tooWide: (dir: string) => boolean): string {
  const real = safeRealpath(file) ?? file;
  const marker = `${sep}node_modules${sep}`;
  const at = real.indexOf(marker);
  const fallback = basename(dirname(real)) === "bin" ? dirname(dirname(real)) : dirname(real);
  const ok = (dir: string) => !tooWide(dir);
  if (at > 0) {
    const prefix = real.slice(0, at);
    const npmPrefix = basename(prefix) === "lib" ? dirname(prefix) : prefix;
    if (ok(npmPrefix)) return npmPrefix;
    if (ok(prefix)) return prefix;
    return ok(fallback) ? fallback : dirname(real);
  }
  let nearestPackage: string | null = null;
  let workspaceRoot: string | null = null;
  for (let dir = dirname(real); ; dir = dirname(dir)) {
    if (tooWide(dir)) break;
    const pkg = readPackageJson(join(dir, "package.json"));
    if (pkg) {
      nearestPackage ??= dir;
      if (Array.isArray(pkg.workspaces) || (pkg.workspaces !== null && typeof pkg.workspaces === "object")) workspaceRoot = dir;
    }
    if (dirname(dir) === dir) break;
  }
  return workspaceRoot ?? nearestPackage ?? (ok(fallback) ? fallback : dirname(real));
}

/** `realpathSync`, or null when the path does not exist. */
export function safeRealpath(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** True when `path` exists and is a directory. */
export function isDirectoryPath(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function readPackageJson(path: string): { workspaces?: unknown } | null {
  if (!existsSync(path)) return null;
  try {
    const value: unknown = JSON.parse(readFileSync(path, "utf8"));
    return value !== null && typeof value === "object" ? (value as { workspaces?: unknown }) : null;
  } catch {
    return null;
  }
}
