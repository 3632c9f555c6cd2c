/**
 * `culture backend list [--json]`: every backend culture can see from the config's folder —
 * built-ins, the project's packages, culture's backends folder, global ones — loaded with the
 * same loader as `agent:`, so a broken backend shows the error an agent would hit — then
 * culture's own backends that are not installed, with the command that installs each.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Command } from "commander";
import { CONFIG_SEARCH_PLACES, INSTALLABLE_BACKENDS, listBackends, type BackendListing } from "@culture/core";
import { defaultConfigPath } from "@culture/core/paths";
import { configOption } from "../../options.js";
import { renderTable } from "../../table.js";
import { backendCommand } from "./index.js";

/** Registers `culture backend list`. */
export function registerBackendListCommand(program: Command): void {
  backendCommand(program)
    .command("list")
    .description("list every backend culture can load (built-in, project, global), with load errors")
    .option("--json", "print a JSON array (name, agent, package, version, path, apiVersion, source, error)")
    .action(async (options: { json?: boolean }, command: Command) => {
      const configDir = configDirFor(configOption(command));
      const listings = await listBackends(configDir);
      process.stdout.write(options.json ? `${JSON.stringify(listings, null, 2)}\n` : formatListings(listings, configDir));
    });
}

/**
 * The folder backends are resolved from, as for the daemon: the `--config` file's folder, else
 * the folder of the config the search would find (the cwd upward, then `$CULTURE_HOME`), else
 * the cwd. The config itself is not loaded: listing works with a broken or missing config.
 */
export function configDirFor(configPath: string | undefined, cwd = process.cwd()): string {
  if (configPath) return dirname(resolve(cwd, configPath));
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (CONFIG_SEARCH_PLACES.some((name) => existsSync(join(dir, name)))) return dir;
    if (dirname(dir) === dir) break;
  }
  const fallback = defaultConfigPath();
  return existsSync(fallback) ? dirname(fallback) : resolve(cwd);
}

/** The human-readable table: one row per backend, a broken one's error indented under it, then what is not installed. */
export function formatListings(listings: readonly BackendListing[], configDir: string): string {
  const missing = INSTALLABLE_BACKENDS.filter((name) => !listings.some((l) => l.name === name && !l.error));
  const available =
    missing.length === 0
      ? ""
      : `\nNot installed (culture's own backends):\n${renderTable(
          ["NAME", "INSTALL"],
          missing.map((name) => [name, `culture backend add ${name}   (or --global for every project)`]),
        ).replace(/^/gm, "  ")}`;
  if (listings.length === 0) {
    return `No backends found from ${configDir}.\n${available}or create one:  culture backend create <name>\n`;
  }
  const header = ["NAME", "AGENT", "SOURCE", "VERSION", "API", "PACKAGE", "PATH"];
  const rows = listings.map((l) => [
    l.error ? `${l.name} (broken)` : l.name,
    l.agent,
    l.source,
    l.version ?? "-",
    l.apiVersion === null ? "-" : String(l.apiVersion),
    l.package ?? "-",
    l.path,
  ]);
  const below = new Map<number, string[]>();
  listings.forEach((l, i) => {
    if (l.error) below.set(i, l.error.split("\n").map((text) => (text ? `    ${text}` : "")));
  });
  return renderTable(header, rows, { below }) + available;
}
