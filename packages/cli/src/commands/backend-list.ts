/**
 * `culture backend list [--json]`: every backend culture can see from the config's folder —
 * built-ins, the project's packages, global ones — loaded with the same loader as `agent:`,
 * so a broken backend shows the error an agent would hit. Also owns the `backend` command
 * group, which other files (`backend create`) extend through {@link backendCommand}.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Command } from "commander";
import { CONFIG_SEARCH_PLACES, listBackends, type BackendListing } from "@culture/core";
import { defaultConfigPath } from "@culture/core/paths";
import { configOption } from "../program.js";

/** The `backend` command group: registered on first use, returned as is afterwards. */
export function backendCommand(program: Command): Command {
  const existing = program.commands.find((c) => c.name() === "backend");
  if (existing) return existing;
  return program.command("backend").description("list, check and create agent backends");
}

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

/** The human-readable table: one row per backend, a broken one's error indented under it. */
export function formatListings(listings: readonly BackendListing[], configDir: string): string {
  if (listings.length === 0) {
    return (
      `No backends found from ${configDir}.\n` +
      `Install one:    npm install @culture/backend-claude   (or any culture-backend-<name>)\n` +
      `or create one:  culture backend create <name>\n`
    );
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
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  const out = [line(header)];
  listings.forEach((l, i) => {
    out.push(line(rows[i] ?? []));
    if (l.error) out.push(...l.error.split("\n").map((text) => (text ? `    ${text}` : "")));
  });
  return `${out.join("\n")}\n`;
}
