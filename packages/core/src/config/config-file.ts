/**
 * Reading one named config file (`--config`, `CULTURE_CONFIG`, `$CULTURE_HOME/agents.yaml`)
 * without cosmiconfig. Every daemon of a fleet is started with `--config <file>`, and loading
 * cosmiconfig (nine CommonJS modules, and a search for its own meta config in the cwd) cost each
 * of them CPU for a file it reads the way this does (issue 30). What only cosmiconfig does —
 * JS/TS configs, `package.json`'s `culture` key, `$import` — is left to it: the caller falls
 * back to cosmiconfig when this returns null.
 */
import { readFile } from "node:fs/promises";
import { basename, extname } from "node:path";

/** The extensions cosmiconfig loads as code (its default loaders); any other file is YAML to it. */
const CODE_EXTENSIONS: ReadonlySet<string> = new Set([".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"]);

/** A config file as cosmiconfig's `load` gives it: `config` is undefined for an empty file. */
export interface ConfigFile {
  config: unknown;
  filepath: string;
}

/**
 * Reads the YAML (or JSON) config file at the absolute `filepath` and parses it with `parse`, as
 * cosmiconfig's `load` does with culture's loaders; null when the file needs cosmiconfig (a JS or
 * TS config, a `package.json`, a config with `$import`). Read errors (ENOENT, EISDIR...) are
 * thrown as `fs` gives them, like cosmiconfig's.
 */
export async function readConfigFile(filepath: string, parse: (filepath: string, content: string) => unknown): Promise<ConfigFile | null> {
  const extension = extname(filepath);
  if (CODE_EXTENSIONS.has(extension) || basename(filepath, extension) === "package") return null;
  const content = await readFile(filepath, "utf8");
  if (content.trim() === "") return { config: undefined, filepath };
  const config = parse(filepath, content);
  if (config !== null && typeof config === "object" && Object.hasOwn(config, "$import")) return null;
  return { config, filepath };
}
