/**
 * `culture backend list`: every backend culture can see from a config folder — the built-ins
 * beside core, the project's packages, and the global ones — each loaded with the same loader
 * `agent:` uses, so a broken one shows the exact error an agent would hit.
 */
import { readFileSync, realpathSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { errorMessage, isCultureError } from "../errors.js";
import { backendPackagesIn } from "./backend-folders.js";
import { BUILTIN_SCOPE, shortBackendName } from "./candidates.js";
import { loadResolvedBackend } from "./load-backend.js";
import { packageEntry, resolveBackend, searchPlaces, type BackendSource, type ResolveBackendOptions, type SearchPlace } from "./resolve-backend.js";

/** One backend package culture can see. */
export interface BackendListing {
  /** The backend's name (its `name`, or the package's short name when it fails to load). */
  name: string;
  /** What to write in an agent's `agent:` field to use this one. */
  agent: string;
  /** The package name, or null when its package.json has none. */
  package: string | null;
  version: string | null;
  /** The package folder. */
  path: string;
  /** The backend API version it declares (null when it could not be loaded). */
  apiVersion: number | null;
  source: BackendSource;
  /** The loader's error message when the backend is broken, else null. */
  error: string | null;
}

/**
 * Lists every resolvable backend: the built-ins (`@culture/backend-*` beside core), the
 * project's packages (from `configDir` upward: `culture-backend-*`, `@*\/culture-backend-*`,
 * or with the keyword `culture-backend`), and the global ones. A package reachable from two
 * places is listed once, under the first (built-in, project, global).
 */
export async function listBackends(
  configDir: string,
  options: Pick<ResolveBackendOptions, "builtinFrom" | "globalModules"> = {},
): Promise<BackendListing[]> {
  const dir = resolve(configDir);
  const places = await searchPlaces({ configDir: dir, ...options });
  const seen = new Set<string>();
  const listings: BackendListing[] = [];
  for (const place of places.sort((a, b) => ORDER[a.source] - ORDER[b.source])) {
    for (const root of backendPackagesIn(place)) {
      const real = safeRealpath(root);
      if (seen.has(real)) continue;
      seen.add(real);
      listings.push(await describe(root, place.source, dir, options));
    }
  }
  return listings;
}

const ORDER: Record<SearchPlace["source"], number> = { builtin: 0, project: 1, home: 2, global: 3 };

async function describe(
  root: string,
  source: SearchPlace["source"],
  configDir: string,
  options: Pick<ResolveBackendOptions, "builtinFrom" | "globalModules">,
): Promise<BackendListing> {
  const manifest = readJson(join(root, "package.json"));
  const packageName = typeof manifest?.name === "string" ? manifest.name : null;
  const short = packageName ? shortBackendName(packageName) : null;
  const agent = await agentValue(packageName, root, configDir, options);
  const base = {
    name: short ?? packageName ?? root,
    agent,
    package: packageName,
    version: typeof manifest?.version === "string" ? manifest.version : null,
    path: root,
    source,
  };
  try {
    const entry = packageEntry(root, { agent });
    const loaded = await loadResolvedBackend({ agent, specifier: packageName ?? root, ...entry, source });
    return { ...base, name: loaded.definition.name, apiVersion: loaded.definition.apiVersion, error: null };
  } catch (err) {
    const found = isCultureError(err, "E_BACKEND_API_MISMATCH") ? err.details.found : null;
    return { ...base, apiVersion: typeof found === "number" ? found : null, error: errorMessage(err) };
  }
}

/**
 * The `agent:` value that loads this package: the shortest of its short name, its package
 * name and its path that really resolves to it (a built-in of the same short name, or a
 * nearer copy, takes the name otherwise).
 */
async function agentValue(
  packageName: string | null,
  root: string,
  configDir: string,
  options: Pick<ResolveBackendOptions, "builtinFrom" | "globalModules">,
): Promise<string> {
  const real = safeRealpath(root);
  const short = packageName ? shortBackendName(packageName) : null;
  const scope = packageName?.startsWith("@") ? packageName.slice(0, packageName.indexOf("/")) : null;
  const names = [
    ...(short ? [scope && scope !== BUILTIN_SCOPE ? `${scope}/${short}` : short] : []),
    ...(packageName ? [packageName] : []),
  ];
  for (const name of names) {
    try {
      const resolved = await resolveBackend(name, { configDir, ...options });
      if (resolved.packageRoot && safeRealpath(resolved.packageRoot) === real) return name;
    } catch {
      // Not resolvable by this name (or broken): try the next form.
    }
  }
  const rel = relative(configDir, root);
  return rel.startsWith("..") || rel === "" ? root : `.${sep}${rel}`;
}

function readJson(file: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(readFileSync(file, "utf8"));
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function safeRealpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
