/**
 * Config `plugins:` entries: modules that only tap the daemon's hooks. Unlike backends there
 * is no name rewriting — an entry is a package name (resolved from the config file's folder
 * upward, like `import` would from there) or a path relative to the config file.
 */
import { existsSync, realpathSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import type { PluginDefinition } from "../backend.js";
import { errorMessage, isCultureError, pluginLoadFailed, pluginNotFound, type ConfigReference } from "../errors.js";
import { isPathSpecifier } from "./candidates.js";
import { importOnce } from "./load-backend.js";
import { findPackage, packageEntry } from "./resolve-backend.js";

/**
 * Loads every `plugins:` entry, in order. Throws E_PLUGIN_NOT_FOUND when one is not
 * installed, E_PLUGIN_LOAD_FAILED when it fails to import or its default export is not a
 * plugin (`{ name, apply }`, or a backend with `apply`).
 */
export async function loadPlugins(names: string[], configDir: string, ref: ConfigReference = {}): Promise<PluginDefinition[]> {
  const plugins: PluginDefinition[] = [];
  for (const name of names) plugins.push(await loadPlugin(name, resolve(configDir), ref));
  return plugins;
}

async function loadPlugin(name: string, configDir: string, ref: ConfigReference): Promise<PluginDefinition> {
  const path = resolvePlugin(name, configDir, ref);
  let mod: Record<string, unknown>;
  try {
    mod = await importOnce(path);
  } catch (cause) {
    throw pluginLoadFailed(name, path, "failed to load", cause, ref);
  }
  const value = mod.default as { name?: unknown; apply?: unknown; createRunner?: unknown } | null | undefined;
  if (value === undefined) {
    throw pluginLoadFailed(name, path, "has no default export; add: export default definePlugin({ name, apply(hooks) { ... } })", undefined, ref);
  }
  if (value === null || typeof value !== "object") {
    throw pluginLoadFailed(name, path, `default-exports ${value === null ? "null" : typeof value}, not a plugin ({ name, apply(hooks) })`, undefined, ref);
  }
  if (typeof value.apply !== "function") {
    const why =
      typeof value.createRunner === "function"
        ? "is a backend without apply(hooks): name it in an agent's agent: field instead, or give it apply(hooks)"
        : "has no apply(hooks) function; a plugin is definePlugin({ name, apply(hooks) { ... } })";
    throw pluginLoadFailed(name, path, why, undefined, ref);
  }
  if (typeof value.name !== "string" || value.name === "") {
    throw pluginLoadFailed(name, path, "has no name; give it name: \"my-plugin\" (taps and errors are reported under it)", undefined, ref);
  }
  return value as PluginDefinition;
}

/** The module file a `plugins:` entry names. */
function resolvePlugin(name: string, configDir: string, ref: ConfigReference): string {
  if (isPathSpecifier(name)) {
    const target = resolve(configDir, name);
    if (existsSync(target) && statSync(target).isFile()) return realpathSync(target);
    if (existsSync(target) && statSync(target).isDirectory()) return entryOf(name, target, ref);
    for (const ext of [".js", ".mjs", ".cjs"]) if (existsSync(target + ext)) return realpathSync(target + ext);
    throw pluginNotFound(name, [target], ref);
  }
  const require = createRequire(join(configDir, "noop.js"));
  const chain = require.resolve.paths(name) ?? [];
  const hit = findPackage(chain, name);
  if (hit) return entryOf(name, hit.root, ref);
  // A subpath (`pkg/plugin.js`) or something only Node's resolver knows how to find.
  try {
    return realpathSync(require.resolve(name));
  } catch {
    throw pluginNotFound(name, chain.filter((d) => !d.endsWith(".node_libraries") && !d.endsWith("lib/node")).map((d) => join(d, name)), ref);
  }
}

function entryOf(name: string, root: string, ref: ConfigReference): string {
  try {
    return packageEntry(root, { agent: name }).path;
  } catch (err) {
    const reason = isCultureError(err) && err.cause instanceof Error ? err.cause.message : errorMessage(err);
    throw pluginLoadFailed(name, root, `can't be loaded: ${reason}`, undefined, ref);
  }
}
