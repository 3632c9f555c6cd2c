/**
 * How an `agent:` value becomes package names to look for (DESIGN.md section 2, "Backend
 * discovery"). Kept pure and separate from resolution so the naming rules have their own
 * table-driven test, like ESLint's and Rollup's plugin-name normalisers.
 */
import { isAbsolute } from "node:path";

/** The scope of the built-in backends (`@culture/backend-<name>`). */
export const BUILTIN_SCOPE = "@culture";
/** The package-name prefix of third-party backends (`culture-backend-<name>`, `@scope/culture-backend-<name>`). */
export const BACKEND_PACKAGE_PREFIX = "culture-backend-";
/** The keyword a backend package may carry instead of following the naming convention. */
export const BACKEND_KEYWORD = "culture-backend";

/**
 * The package names (or the path) to try for an `agent:` value, in order of preference.
 *
 * - `foo` -> `@culture/backend-foo`, `culture-backend-foo` (a built-in wins over a third-party package of the same short name)
 * - `@scope/foo` -> `@scope/culture-backend-foo`; `@culture/foo` -> `@culture/backend-foo`
 * - `culture-backend-foo`, `@scope/culture-backend-foo`, `@culture/backend-foo` -> as is
 * - `./path`, `../path`, `.`, `..`, an absolute path -> the path (resolved against the config file's folder later)
 */
export function backendCandidates(agent: string): string[] {
  const name = agent.trim();
  if (isPathSpecifier(name)) return [name];
  if (name.startsWith("@")) {
    const slash = name.indexOf("/");
    const scope = slash === -1 ? name : name.slice(0, slash);
    const rest = slash === -1 ? "" : name.slice(slash + 1);
    if (scope === BUILTIN_SCOPE) return [rest.startsWith("backend-") ? name : `${scope}/backend-${rest}`];
    return [rest.startsWith(BACKEND_PACKAGE_PREFIX) ? name : `${scope}/${BACKEND_PACKAGE_PREFIX}${rest}`];
  }
  if (name.startsWith(BACKEND_PACKAGE_PREFIX)) return [name];
  return [`${BUILTIN_SCOPE}/backend-${name}`, `${BACKEND_PACKAGE_PREFIX}${name}`];
}

/** True when an `agent:` (or `plugins:`) value is a path rather than a package name. */
export function isPathSpecifier(value: string): boolean {
  return (
    value === "." ||
    value === ".." ||
    value.startsWith("./") ||
    value.startsWith("../") ||
    value.startsWith(".\\") ||
    value.startsWith("..\\") ||
    isAbsolute(value)
  );
}

/**
 * True when a package name follows a backend naming convention: `@culture/backend-*`,
 * `culture-backend-*` or `@scope/culture-backend-*`.
 */
export function isBackendPackageName(packageName: string): boolean {
  return shortBackendName(packageName) !== null;
}

/**
 * The short backend name a package name stands for (`@culture/backend-claude` -> `claude`,
 * `culture-backend-foo` -> `foo`, `@acme/culture-backend-foo` -> `foo`), or null when the
 * name follows no backend convention.
 */
export function shortBackendName(packageName: string): string | null {
  const builtin = `${BUILTIN_SCOPE}/backend-`;
  if (packageName.startsWith(builtin)) return packageName.slice(builtin.length) || null;
  const bare = packageName.startsWith("@") ? packageName.slice(packageName.indexOf("/") + 1) : packageName;
  if (packageName.startsWith("@") && !packageName.includes("/")) return null;
  return bare.startsWith(BACKEND_PACKAGE_PREFIX) ? bare.slice(BACKEND_PACKAGE_PREFIX.length) || null : null;
}
