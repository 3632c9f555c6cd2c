/**
 * The parsed form of a config file, kept by its content: every daemon of a fleet reads the same
 * agents.yaml, and parsing the YAML of 50 agents took each of them 10–30 ms of CPU at start (the
 * `yaml` library builds a whole document, with source ranges, for a file that is mostly the
 * other agents'; issue 30). `culture start` parses it first and keeps what it parsed; the
 * daemons it starts read that instead, then validate it as always (only the YAML step is kept,
 * never a validated config: `${VAR}` interpolation and the defaults still run in each process).
 *
 * Kept in `$CULTURE_HOME/cache/config-<sha256>.json`, named after the SHA-256 of the text (and of
 * the parser's version), beside the daemon's code cache and under the same rules: a 0600 file of
 * this user, not a symlink, in a 0700 folder of this user. Whoever can write there could as
 * well plant code in the daemon's code cache; every sandbox hides `$CULTURE_HOME`. A file that
 * breaks a rule, or holds something else, is ignored (and replaced). Only values JSON keeps
 * exactly are kept (a `.inf`, a `__proto__` key: parsed every time), and only in a
 * `$CULTURE_HOME` that exists. Any error here only means parsing as before.
 */
import { createHash } from "node:crypto";
import { closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cultureHome } from "../paths.js";

/**
 * What a kept parse depends on besides the text: this module's format and the `yaml` library's
 * version (core's package.json pins it, bundled: a test checks the two agree).
 */
export const PARSE_CACHE_FORMAT = "culture-config-parse 1; yaml 2.9.1";

/** How many parsed configs are kept (the newest); older ones are removed when one is written. */
const KEEP = 8;

/** `$CULTURE_HOME/cache`, where parsed configs are kept. */
export function parseCacheDir(env: NodeJS.ProcessEnv): string {
  return join(cultureHome(env), "cache");
}

/**
 * `parse(text)`, or what it gave for this very text before. `parse` may throw (a syntax error):
 * nothing is kept then.
 */
export function parseWithCache(text: string, env: NodeJS.ProcessEnv, parse: (text: string) => unknown): unknown {
  const key = createHash("sha256").update(PARSE_CACHE_FORMAT).update("\0").update(text).digest("hex");
  const dir = parseCacheDir(env);
  const file = join(dir, `config-${key}.json`);
  const kept = readKept(dir, file, key);
  if (kept !== undefined) return kept;
  const data = parse(text);
  if (keepsExactly(data)) keep(dir, file, key, data);
  return data;
}

/** The kept data for `key`, or undefined when there is none this process may trust. */
function readKept(dir: string, file: string, key: string): unknown {
  try {
    if (!privateToUs(lstatSync(dir), true)) return undefined;
    const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      if (!privateToUs(fstatSync(fd), false)) return undefined;
      const kept = JSON.parse(readFileSync(fd, "utf8")) as { key?: unknown; data?: unknown };
      return kept !== null && typeof kept === "object" && kept.key === key && "data" in kept ? kept.data : undefined;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined; // none yet, a symlink, unreadable, not JSON: parse
  }
}

/** A folder (0700) or file (0600) of this user that no one else may read or write. */
function privateToUs(st: { uid: number; mode: number; isDirectory(): boolean; isFile(): boolean }, directory: boolean): boolean {
  const ours = typeof process.geteuid !== "function" || st.uid === process.geteuid();
  return ours && (directory ? st.isDirectory() : st.isFile()) && (st.mode & 0o077) === 0;
}

/** Writes `data` for `key` (aside, then renamed), and removes all but the newest kept configs. */
function keep(dir: string, file: string, key: string, data: unknown): void {
  try {
    // In an existing $CULTURE_HOME only: checking a config file does not make one.
    if (!existsSync(dir)) mkdirSync(dir, { mode: 0o700 });
    if (!privateToUs(lstatSync(dir), true)) return; // as for the code cache: a folder others may write is not written to
    const aside = `${file}.${process.pid}.tmp`;
    writeFileSync(aside, JSON.stringify({ key, data }), { mode: 0o600, flag: "wx" });
    renameSync(aside, file);
    const kept = readdirSync(dir)
      .filter((name) => name.startsWith("config-") && name.endsWith(".json"))
      .map((name) => ({ path: join(dir, name), mtime: statSync(join(dir, name)).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime);
    for (const old of kept.slice(KEEP)) rmSync(old.path, { force: true });
  } catch {
    // Not kept: the next process parses the text itself.
  }
}

/** True when JSON gives back exactly `value`: plain objects and arrays, strings, booleans, null, finite numbers (not -0), no `__proto__` key. */
export function keepsExactly(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) return value.every(keepsExactly);
  if (typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.keys(value).every((k) => k !== "__proto__") && Object.values(value).every(keepsExactly);
}
