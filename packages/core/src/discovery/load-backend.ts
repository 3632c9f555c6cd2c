/**
 * Loading a backend: resolve it (resolve-backend.ts), import it once, and check what it
 * exports. Each step has its own error, so a user is told whether the backend is missing,
 * broken, not a backend, or written for another API version.
 */
import { execFile } from "node:child_process";
import { pathToFileURL } from "node:url";
import type { BackendDefinition } from "../backend.js";
import { backendInvalid, backendLoadFailed, type ConfigReference } from "../errors.js";
import { assertBackendDefinition } from "./assert-backend.js";
import { shortBackendName } from "./candidates.js";
import { resolveBackend, type BackendSource, type ResolveBackendOptions, type ResolvedBackend } from "./resolve-backend.js";

/** A backend that was found, imported and checked. */
export interface LoadedBackend {
  definition: BackendDefinition;
  /** The package's name, or null for a folder or file without a package.json. */
  packageName: string | null;
  version: string | null;
  /** The module file that was imported (absolute, symlinks resolved). */
  path: string;
  source: BackendSource;
}

/** Options of {@link loadBackend}: where to look, and who asked (for error messages). */
export type LoadBackendOptions = ResolveBackendOptions;

/**
 * Finds, imports and checks the backend an `agent:` value names.
 *
 * Throws E_BACKEND_NOT_FOUND, E_BACKEND_LOAD_FAILED, E_BACKEND_INVALID or
 * E_BACKEND_API_MISMATCH. A module is evaluated at most once per process (cached by its
 * resolved path), whether it loads or throws.
 */
export async function loadBackend(agent: string, options: LoadBackendOptions): Promise<LoadedBackend> {
  const resolved = await resolveBackend(agent, options);
  return loadResolvedBackend(resolved, { nick: options.nick, configFile: options.configFile });
}

/** Imports and checks a backend that {@link resolveBackend} found. */
export async function loadResolvedBackend(resolved: ResolvedBackend, ref: ConfigReference = {}): Promise<LoadedBackend> {
  const what = resolved.packageName ?? resolved.path;
  let mod: Record<string, unknown>;
  try {
    mod = await importOnce(resolved.path);
  } catch (cause) {
    const frame = cause instanceof SyntaxError ? await syntaxErrorFrame(resolved.path) : null;
    throw backendLoadFailed({ agent: resolved.agent, what, path: resolved.path, cause, frame, ...ref });
  }
  const where = resolved.packageName ? `The backend ${resolved.packageName} (${resolved.path})` : `The backend ${resolved.path}`;
  const definition = defaultExport(mod);
  if (definition === undefined) {
    const named = Object.keys(mod).filter((k) => k !== "default");
    throw backendInvalid(
      where,
      [`it has no default export${named.length ? ` (it exports: ${named.join(", ")})` : ""}; add: export default defineBackend({ ... })`],
      ref,
    );
  }
  assertBackendDefinition(definition, where, ref);
  const expected = resolved.source === "path" || !resolved.packageName ? null : shortBackendName(resolved.packageName);
  if (expected !== null && definition.name !== expected) {
    throw backendInvalid(where, [`its name is "${definition.name}", but the package ${resolved.packageName} makes it "${expected}"`], ref);
  }
  return {
    definition,
    packageName: resolved.packageName,
    version: resolved.version,
    path: resolved.path,
    source: resolved.source,
  };
}

/**
 * Imports a module file once per process: later calls get the same namespace, or the same
 * error, without evaluating it again.
 */
export function importOnce(path: string): Promise<Record<string, unknown>> {
  let pending = imported.get(path);
  if (!pending) {
    pending = nativeImport(pathToFileURL(path).href) as Promise<Record<string, unknown>>;
    imported.set(path, pending);
  }
  return pending;
}
const imported = new Map<string, Promise<Record<string, unknown>>>();

/**
 * A plain dynamic `import()`. In production Node evaluates the file itself, with its own
 * errors and module cache. (Under vitest, packages in node_modules are still imported
 * natively; loose files are transformed by vite first.) `new Function("return import(u)")`
 * would dodge that transform but breaks under any vm-based runner, vitest included.
 */
const nativeImport = (url: string): Promise<unknown> => import(/* @vite-ignore */ url);

/** The default export, unwrapping a CommonJS module compiled from ESM (`exports.default`). */
function defaultExport(mod: Record<string, unknown>): unknown {
  const value = mod.default;
  if (value && typeof value === "object" && (value as { __esModule?: unknown }).__esModule && "default" in value) {
    return (value as { default: unknown }).default;
  }
  return value;
}

/**
 * Where a syntax error is. Node's ESM SyntaxError carries no file or line (only its fatal
 * error printer shows them), so the import is repeated in a child Node and the location read
 * from what it prints. Safe: a module graph with a syntax error fails before any of it runs.
 */
export function syntaxErrorFrame(path: string): Promise<string | null> {
  const script = `await import(${JSON.stringify(pathToFileURL(path).href)})`;
  return new Promise((resolve) => {
    execFile(process.execPath, ["--input-type=module", "-e", script], { timeout: 10_000 }, (_err, _stdout, stderr) => {
      const at = String(stderr).search(/\n\s*\nSyntaxError/);
      resolve(at > 0 ? String(stderr).slice(0, at).trimEnd() : null);
    });
  });
}
