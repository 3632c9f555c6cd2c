/**
 * Finding a backend on disk, without running it. Resolution is its own step so that "not
 * installed" (E_BACKEND_NOT_FOUND) can never be confused with "installed but broken"
 * (E_BACKEND_LOAD_FAILED): Rollup's bare `catch {}` around its prefix loop reported broken
 * plugins as missing, and Verdaccio had to fix the same bug.
 *
 * Places, in order: the config file's folder (Node's resolution upward), culture's own
 * install (where the bundled `@culture/backend-acp` sits beside core), culture's backends folder
 * (`$CULTURE_HOME/backends`, filled by `culture backend add --global`), then the global
 * prefix (`npm root -g`). Candidates are tried one at a time across all places, so a built-in
 * `@culture/backend-foo` wins over a third-party `culture-backend-foo` wherever each is.
 *
 * Package folders are found with Node's own list of `node_modules` folders
 * (`createRequire(...).resolve.paths`), and the entry point is read from the package's
 * `exports` with the conditions `import` sees (`node`, `import`, `default`): `require.resolve`
 * would apply `require` conditions and miss ESM-only packages.
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  backendLoadFailed,
  backendNotFound,
  errorMessage,
  type CultureError,
} from "../errors.js";
import { backendsDir } from "../paths.js";
import { didYouMean } from "../did-you-mean.js";
import { installedBackendNames } from "./backend-folders.js";
import { BUILTIN_SCOPE, backendCandidates, isPathSpecifier, shortBackendName } from "./candidates.js";
import { ACP_AGENTS, KNOWN_BACKENDS } from "./known-backends.js";

/**
 * Where a backend was found. `builtin`: beside culture's own core; `home`: culture's backends
 * folder (`$CULTURE_HOME/backends`, where `culture backend add --global` installs);
 * `global`: npm's global prefix; `path`: the `agent:` value was a path.
 */
export type BackendSource = "project" | "builtin" | "home" | "global" | "path";

/** Where to look, and who asked (for error messages). */
export interface ResolveBackendOptions {
  /** The config file's folder: relative paths and the project's packages are resolved from here. */
  configDir: string;
  /** The nick of the agent whose backend this is (for error messages). */
  nick?: string;
  /** The config file that names the backend (for error messages). */
  configFile?: string;
  /**
   * A file or folder inside culture's own install, from which the built-ins are resolved.
   * Default: this copy of @culture/core. Tests point it at a fake install.
   */
  builtinFrom?: string;
  /**
   * The global `node_modules` folder, or null for none. Default: `$CULTURE_GLOBAL_MODULES`
   * (empty: none), else `npm root -g` (run once per process, only when needed).
   */
  globalModules?: string | null;
}

/** A backend found on disk. */
export interface ResolvedBackend {
  /** The `agent:` value. */
  agent: string;
  /** The candidate that matched: a package name, or the path as written. */
  specifier: string;
  /** The package's name (from its package.json; null for a folder or file without one). */
  packageName: string | null;
  version: string | null;
  /** The package folder (null for a single-file backend). */
  packageRoot: string | null;
  /** The module file to import: absolute, symlinks resolved. */
  path: string;
  source: BackendSource;
}

/** One place a backend is looked for. */
export interface SearchPlace {
  source: Exclude<BackendSource, "path">;
  /** The folder shown to the user. */
  dir: string;
  /** The `node_modules` folders searched, nearest first. */
  nodeModules: string[];
}

/** Finds the backend an `agent:` value names. Throws E_BACKEND_NOT_FOUND when nothing matches. */
export async function resolveBackend(agent: string, options: ResolveBackendOptions): Promise<ResolvedBackend> {
  const configDir = resolve(options.configDir);
  const candidates = backendCandidates(agent);
  const ref = { nick: options.nick, configFile: options.configFile };

  if (isPathSpecifier(agent)) {
    const target = resolve(configDir, agent.trim());
    const found = resolvePathTarget(target, ref, agent);
    if (found) return { agent, specifier: agent, ...found, source: "path" };
    throw notFound(agent, candidates, [], options, target);
  }

  const local = await searchPlaces(options, false);
  const builtinDirs = new Set(local.find((p) => p.source === "builtin")?.nodeModules ?? []);
  let global: SearchPlace[] | undefined;
  const tryPlace = (place: SearchPlace, candidate: string): ResolvedBackend | null => {
    const hit = findPackage(place.nodeModules, candidate);
    if (!hit) return null;
    const entry = packageEntry(hit.root, { agent, ...ref });
    // A built-in found through the project's node_modules is still the built-in when that
    // folder is also culture's own (a monorepo, or a project that installed culture locally).
    const source =
      place.source === "project" && candidate.startsWith(`${BUILTIN_SCOPE}/`) && builtinDirs.has(hit.nodeModules)
        ? "builtin"
        : place.source;
    return { agent, specifier: candidate, ...entry, source };
  };
  for (const candidate of candidates) {
    for (const place of local) {
      const found = tryPlace(place, candidate);
      if (found) return found;
    }
    // The global prefix may need `npm root -g`: asked only once a candidate is missing locally.
    global ??= await globalPlaces(options);
    for (const place of global) {
      const found = tryPlace(place, candidate);
      if (found) return found;
    }
  }
  throw notFound(agent, candidates, await searchPlaces(options, true), options, null);
}

/**
 * The places culture looks for backends, in order: the project (from `configDir` upward),
 * culture's own install, and the global prefix. With `withGlobal: false` the global prefix is
 * left out (it may need `npm root -g`).
 */
export async function searchPlaces(
  options: Pick<ResolveBackendOptions, "configDir" | "builtinFrom" | "globalModules">,
  withGlobal = true,
): Promise<SearchPlace[]> {
  const configDir = resolve(options.configDir);
  const builtinFrom = options.builtinFrom ? resolve(options.builtinFrom) : fileURLToPath(import.meta.url);
  const places: SearchPlace[] = [
    { source: "project", dir: configDir, nodeModules: nodeModulesChain(join(configDir, "noop.js")) },
    { source: "builtin", dir: packageRootOf(builtinFrom), nodeModules: nodeModulesChain(builtinFrom) },
    { source: "home", dir: backendsDir(), nodeModules: [join(backendsDir(), "node_modules")] },
  ];
  return withGlobal ? [...places, ...(await globalPlaces(options))] : places;
}

/**
 * The global `node_modules` folder: the given value, else `$CULTURE_GLOBAL_MODULES` (empty
 * means none), else `npm root -g` — computed once per process, and only when asked.
 */
export async function globalModulesDir(explicit?: string | null): Promise<string | null> {
  if (explicit !== undefined) return explicit === null || explicit === "" ? null : resolve(explicit);
  const env = process.env.CULTURE_GLOBAL_MODULES;
  if (env !== undefined) return env === "" ? null : resolve(env);
  // execa is loaded only here: a daemon whose backend is found without asking npm never loads it.
  npmRootGlobal ??= import("execa")
    .then(({ execa }) => execa("npm", ["root", "-g"], { reject: false, timeout: 20_000 }))
    .then(
      (r) => (r.exitCode === 0 && r.stdout.trim() ? r.stdout.trim() : null),
      () => null,
    );
  return npmRootGlobal;
}
let npmRootGlobal: Promise<string | null> | undefined;

/** A package folder found in one of `nodeModules`. */
export interface FoundPackage {
  root: string;
  /** The `node_modules` folder it was found in. */
  nodeModules: string;
}

/** The first `<dir>/<name>` that is a package (has a package.json or an index file). */
export function findPackage(nodeModules: readonly string[], name: string): FoundPackage | null {
  for (const dir of nodeModules) {
    const root = join(dir, name);
    if (existsSync(join(root, "package.json")) || existsSync(join(root, "index.js")) || existsSync(join(root, "index.mjs"))) {
      return { root, nodeModules: dir };
    }
  }
  return null;
}

/** What {@link packageEntry} reads from a package folder. */
export interface PackageEntry {
  packageName: string | null;
  version: string | null;
  packageRoot: string;
  path: string;
}

/**
 * The file `import("<package>")` would load from a package folder: `exports["."]` under the
 * `node`/`import`/`default` conditions, else `main`, else `index.js`. Throws
 * E_BACKEND_LOAD_FAILED when the package is there but its entry point is not (not built,
 * broken package.json).
 */
export function packageEntry(root: string, ref: { agent: string; nick?: string; configFile?: string }): PackageEntry {
  const manifest = readManifest(root, ref);
  const name = typeof manifest?.name === "string" ? manifest.name : null;
  const version = typeof manifest?.version === "string" ? manifest.version : null;
  const fail = (reason: string) =>
    backendLoadFailed({ agent: ref.agent, what: name ?? root, path: root, cause: new Error(reason), nick: ref.nick, configFile: ref.configFile });
  let target: string | null;
  if (manifest && manifest.exports !== undefined) {
    target = exportsTarget(manifest.exports);
    if (target === null) throw fail(`its package.json "exports" has no "." entry for import (conditions: node, import, default)`);
  } else {
    target = typeof manifest?.main === "string" ? manifest.main : null;
  }
  const file = target === null ? fileWithIndex(root) : fileWithExtensions(resolve(root, target));
  if (!file) {
    throw fail(
      target === null
        ? `it has no entry point (no "exports", no "main", no index.js)`
        : `its entry point ${target} does not exist (is the package built?)`,
    );
  }
  return { packageName: name, version, packageRoot: root, path: realpathSync(file) };
}

/** The package.json of a folder, or null when it has none. */
export function readManifest(
  root: string,
  ref: { agent: string; nick?: string; configFile?: string },
): Record<string, unknown> | null {
  const file = join(root, "package.json");
  if (!existsSync(file)) return null;
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
    return parsed !== null && typeof parsed === "object" ? (parsed as Record<string, unknown>) : null;
  } catch (err) {
    throw backendLoadFailed({
      agent: ref.agent,
      what: root,
      path: file,
      cause: new Error(`its package.json is not valid JSON: ${errorMessage(err)}`, { cause: err }),
      nick: ref.nick,
      configFile: ref.configFile,
    });
  }
}

// --- internals ---

function resolvePathTarget(
  target: string,
  ref: { nick?: string; configFile?: string },
  agent: string,
): Omit<ResolvedBackend, "agent" | "specifier" | "source"> | null {
  if (!existsSync(target)) return null;
  if (statSync(target).isDirectory()) {
    if (existsSync(join(target, "package.json"))) return packageEntry(target, { agent, ...ref });
    const file = fileWithIndex(target);
    return file ? { packageName: null, version: null, packageRoot: target, path: realpathSync(file) } : null;
  }
  return { packageName: null, version: null, packageRoot: null, path: realpathSync(target) };
}

function notFound(
  agent: string,
  candidates: string[],
  places: SearchPlace[],
  options: ResolveBackendOptions,
  pathTried: string | null,
): CultureError {
  const candidate = candidates[candidates.length - 1] ?? agent;
  const short = pathTried ? basename(pathTried).replace(/^culture-backend-/, "") : (shortBackendName(candidate) ?? agent);
  const installName = pathTried
    ? null
    : KNOWN_BACKENDS.includes(short) && candidates[0]?.startsWith(`${BUILTIN_SCOPE}/`)
      ? candidates[0]
      : candidate;
  const name = agent.trim();
  // A typo of a name culture knows or has installed gets "did you mean", never install advice.
  const near = pathTried ? null : didYouMean(name, [...KNOWN_BACKENDS, ...installedBackendNames(places)]);
  return backendNotFound({
    agent,
    candidates: pathTried ? [pathTried] : candidates,
    places: places.map((p) => ({ label: PLACE_LABELS[p.source], dir: p.dir })),
    installName: installName ?? null,
    didYouMean: near !== null && near !== name ? near : null,
    acpCommand: pathTried ? null : (ACP_AGENTS[name.toLowerCase()] ?? null),
    createName: short,
    createDir: pathTried ? agent : undefined,
    configDir: resolve(options.configDir),
    nick: options.nick,
    configFile: options.configFile,
  });
}

const PLACE_LABELS: Record<SearchPlace["source"], string> = {
  project: "project",
  builtin: "culture's install",
  home: "culture's backends folder",
  global: "global",
};

async function globalPlaces(options: ResolveBackendOptions): Promise<SearchPlace[]> {
  const global = await globalModulesDir(options.globalModules);
  return global ? [{ source: "global", dir: global, nodeModules: [global] }] : [];
}

/** Node's own list of node_modules folders searched from `fromFile` (nearest first). */
function nodeModulesChain(fromFile: string): string[] {
  // `resolve.paths` of a bare name is the upward node_modules walk plus the legacy global folders.
  return createRequire(fromFile).resolve.paths("x") ?? [];
}

/** The nearest folder at or above `file` that has a package.json (or the file's folder). */
function packageRootOf(file: string): string {
  let dir = existsSync(file) && statSync(file).isDirectory() ? file : dirname(file);
  for (;;) {
    if (existsSync(join(dir, "package.json"))) return dir;
    const up = dirname(dir);
    if (up === dir) return existsSync(file) && statSync(file).isDirectory() ? file : dirname(file);
    dir = up;
  }
}

const CONDITIONS = new Set(["node", "import", "default"]);

/** The target of `exports["."]` under the conditions `import()` uses in Node. */
function exportsTarget(exports: unknown): string | null {
  if (typeof exports === "string" || Array.isArray(exports)) return conditionalTarget(exports);
  if (exports === null || typeof exports !== "object") return null;
  const keys = Object.keys(exports);
  if (keys.some((k) => k.startsWith("."))) return conditionalTarget((exports as Record<string, unknown>)["."]);
  return conditionalTarget(exports);
}

function conditionalTarget(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    for (const item of value) {
      const target = conditionalTarget(item);
      if (target !== null) return target;
    }
    return null;
  }
  if (value === null || typeof value !== "object") return null;
  for (const [condition, inner] of Object.entries(value)) {
    if (!CONDITIONS.has(condition)) continue;
    const target = conditionalTarget(inner);
    if (target !== null) return target;
  }
  return null;
}

function fileWithExtensions(path: string): string | null {
  for (const candidate of [path, `${path}.js`, `${path}.mjs`, `${path}.cjs`]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return existsSync(path) && statSync(path).isDirectory() ? fileWithIndex(path) : null;
}

function fileWithIndex(dir: string): string | null {
  for (const name of ["index.js", "index.mjs", "index.cjs"]) {
    const file = join(dir, name);
    if (existsSync(file) && statSync(file).isFile()) return file;
  }
  return null;
}
