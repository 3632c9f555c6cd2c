/**
 * The backend package folders in a search place, found by name or keyword without importing
 * anything: what `culture backend list` loads, and the installed names "did you mean" offers.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BACKEND_KEYWORD, BACKEND_PACKAGE_PREFIX, BUILTIN_SCOPE, shortBackendName } from "./candidates.js";
import type { SearchPlace } from "./resolve-backend.js";

/** The package folders in a place that look like backends. */
export function backendPackagesIn(place: SearchPlace): string[] {
  const found: string[] = [];
  for (const nodeModules of place.nodeModules) {
    if (!existsSync(nodeModules)) continue;
    if (place.source === "builtin") {
      for (const entry of readDir(join(nodeModules, BUILTIN_SCOPE))) {
        if (entry.startsWith("backend-")) found.push(join(nodeModules, BUILTIN_SCOPE, entry));
      }
      continue;
    }
    for (const entry of readDir(nodeModules)) {
      if (entry.startsWith(".")) continue;
      if (entry.startsWith("@")) {
        for (const inner of readDir(join(nodeModules, entry))) {
          const root = join(nodeModules, entry, inner);
          if (isBackendName(`${entry}/${inner}`) || hasKeyword(root)) found.push(root);
        }
      } else {
        const root = join(nodeModules, entry);
        if (isBackendName(entry) || hasKeyword(root)) found.push(root);
      }
    }
  }
  return found;
}

function isBackendName(name: string): boolean {
  return name.startsWith(BACKEND_PACKAGE_PREFIX) || shortBackendName(name) !== null;
}

function hasKeyword(root: string): boolean {
  const keywords = readJson(join(root, "package.json"))?.keywords;
  return Array.isArray(keywords) && keywords.includes(BACKEND_KEYWORD);
}

function readDir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** The short names (`claude`, `foo`) of the backend packages in some places. */
export function installedBackendNames(places: readonly SearchPlace[]): string[] {
  const names = new Set<string>();
  for (const place of places) {
    for (const root of backendPackagesIn(place)) {
      const rel = root.slice(root.lastIndexOf("node_modules") + "node_modules".length + 1).split(/[\\/]/).join("/");
      const short = shortBackendName(rel);
      if (short) names.add(short);
    }
  }
  return [...names];
}

function readJson(file: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(readFileSync(file, "utf8"));
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
