/**
 * Finding, reading and validating agents.yaml (DESIGN.md section 3).
 *
 * cosmiconfig finds the file and reads what only it can (JS configs, `$import`; a named YAML
 * file is read by config-file.ts, without loading cosmiconfig); YAML goes through the `yaml` package so a syntax
 * error carries its line and column. Then, in order: `${ENV}` interpolation, zod validation,
 * the nick rules zod cannot express (`<server>-<name>`, duplicates), and the split of every
 * agent entry into its common fields and its backend's `options`. Every problem becomes one
 * readable line naming the file, the key path and (for YAML) the line — never a zod dump —
 * and all problems are reported at once, so a user fixes a file in one pass.
 */
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { Loader } from "cosmiconfig";
import { isMap, isScalar, LineCounter, parseDocument, type Document } from "yaml";
import type { z } from "zod";
import { didYouMean } from "../did-you-mean.js";
import { readConfigFile } from "./config-file.js";
import { parseWithCache } from "./parse-cache.js";
import {
  configEnvMissing,
  configFileMissing,
  configInvalid,
  configNotFound,
  configParseError,
  errorMessage,
  isCultureError,
  type ConfigProblem,
} from "../errors.js";
import { ircLower } from "../irc/case-mapping.js";
import { defaultConfigPath, NICK_RE } from "../paths.js";
import { AGENT_COMMON_KEYS, configSchema, type AgentConfig, type CultureConfig } from "./schema.js";

/** The file names looked for in each folder from the cwd upward, first match wins. */
export const CONFIG_SEARCH_PLACES: readonly string[] = [
  "agents.yaml",
  "agents.yml",
  "culture.yaml",
  "culture.yml",
  ".culturerc",
  ".culturerc.yaml",
  ".culturerc.yml",
  ".culturerc.json",
  "culture.config.json",
  "culture.config.yaml",
  "culture.config.yml",
  "culture.config.js",
  "culture.config.mjs",
  "culture.config.cjs",
];

/** Where {@link loadConfig} looks. */
export interface LoadConfigOptions {
  /** An explicit file (`--config`); relative to `cwd`. Default: `env.CULTURE_CONFIG`, else search. */
  configPath?: string;
  /** Where the search starts. Default: `process.cwd()`. */
  cwd?: string;
  /** The last folder the upward search looks in. Default: the filesystem root. */
  stopDir?: string;
  /** For `${VAR}` interpolation, `CULTURE_CONFIG`, `CULTURE_HOME` and `~`. Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Finds and loads the config: `configPath` (or `$CULTURE_CONFIG`) when given, else the first of
 * {@link CONFIG_SEARCH_PLACES} in `cwd` or a folder above it, else `$CULTURE_HOME/agents.yaml`.
 *
 * @throws CultureError `E_CONFIG_NOT_FOUND`, `E_CONFIG_PARSE`, `E_CONFIG_ENV` or `E_CONFIG_INVALID`.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<CultureConfig> {
  const env = options.env ?? process.env;
  const cwd = resolve(options.cwd ?? process.cwd());
  // cosmiconfig is loaded only for a search or a file only it reads (config-file.ts).
  const explorer = async () =>
    (await import("cosmiconfig")).cosmiconfig("culture", {
      searchPlaces: [...CONFIG_SEARCH_PLACES],
      searchStrategy: "none", // we walk the folders ourselves, to control where the walk ends
      ignoreEmptySearchPlaces: false, // an empty agents.yaml in the project is still the project's config
      cache: false,
      loaders: { ".yaml": yamlLoader, ".yml": yamlLoader, ".json": yamlLoader, noExt: yamlLoader, default: yamlLoader },
    });
  // A named file's YAML is parsed once per content (parse-cache.ts): a fleet's daemons share it.
  const load = async (path: string) => (await readConfigFile(path, (file, content) => parseYamlKept(content, file, env) ?? {})) ?? (await (await explorer()).load(path));

  const explicit = options.configPath ?? (env.CULTURE_CONFIG || undefined);
  let result: { config: unknown; filepath: string } | null = null;
  try {
    if (explicit !== undefined) {
      const path = resolve(cwd, expandHome(explicit, env));
      try {
        result = await load(path);
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === "ENOENT" || code === "EISDIR" || code === "ENOTDIR") {
          throw configFileMissing(path, options.configPath !== undefined ? "--config" : "CULTURE_CONFIG", err);
        }
        throw err;
      }
      result ??= { config: undefined, filepath: path };
    } else {
      const stopDir = options.stopDir === undefined ? null : resolve(cwd, options.stopDir);
      const search = await explorer();
      for (let dir = cwd; ; dir = dirname(dir)) {
        result = await search.search(dir);
        if (result !== null || dir === stopDir || dirname(dir) === dir) break;
      }
      if (result === null) {
        const fallback = defaultConfigPath(env);
        try {
          result = (await load(fallback)) ?? { config: undefined, filepath: fallback };
        } catch (err) {
          if ((err as { code?: string }).code !== "ENOENT") throw err;
          throw configNotFound({ cwd, stopDir, searchPlaces: CONFIG_SEARCH_PLACES, fallback });
        }
      }
    }
  } catch (err) {
    if (isCultureError(err)) throw err;
    // A JS config that throws, or a JSON/JS file cosmiconfig could not read.
    const file = (err as { filepath?: string }).filepath ?? explicit ?? cwd;
    throw configParseError(file, `couldn't load the config: ${errorMessage(err)}`, err);
  }
  return resolveConfig(result.config ?? {}, { filepath: result.filepath, env });
}

/**
 * Parses config text (YAML, or JSON, which is YAML) as if it had been read from `filepath`:
 * interpolation, validation, defaults and relative directories all behave as in {@link loadConfig}.
 * Pure: reads no file.
 *
 * @throws CultureError `E_CONFIG_PARSE`, `E_CONFIG_ENV` or `E_CONFIG_INVALID`.
 */
export function parseConfig(text: string, filepath: string, env: NodeJS.ProcessEnv = process.env): CultureConfig {
  const absolute = resolve(filepath);
  return resolveConfig(parseYaml(text, absolute) ?? {}, { filepath: absolute, env });
}

/**
 * Validates an already-parsed config object (what a YAML file would hold) and fills in the
 * defaults: for code that builds configs as objects. `directory` entries are resolved against
 * the folder of `filepath`, or the cwd when it is null.
 *
 * @throws CultureError `E_CONFIG_ENV` or `E_CONFIG_INVALID`.
 */
export function resolveConfig(data: unknown, options: { filepath?: string | null; env?: NodeJS.ProcessEnv } = {}): CultureConfig {
  const filepath = options.filepath ? resolve(options.filepath) : null;
  const env = options.env ?? process.env;
  const file = filepath ?? "<config>";
  const source = isObject(data) ? sources.get(data) : undefined;
  const lineOf = (path: readonly PropertyKey[], key?: string) => (source ? sourceLine(source(), path, key) : undefined);

  const missing: (ConfigProblem & { variable: string })[] = [];
  const interpolated = interpolate(data, [], env, (path, variable) =>
    missing.push({ path: formatKeyPath(path), message: `environment variable ${variable} is not set`, variable, line: lineOf(path) }),
  );
  if (missing.length > 0) throw configEnvMissing(file, sortByLine(missing));

  const input = withNullSectionsDropped(interpolated);
  const problems: ConfigProblem[] = [];
  const parsed = configSchema.safeParse(input, { reportInput: true });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(...describeIssue(issue, input, lineOf));
  }
  problems.push(...checkNicks(input, lineOf));
  if (problems.length > 0 || !parsed.success) throw configInvalid(file, sortByLine(problems));

  const base = filepath ? dirname(filepath) : process.cwd();
  const rawAgents = (input as { agents?: unknown[] }).agents ?? [];
  const agents: AgentConfig[] = parsed.data.agents.map((entry, i) => {
    const raw = rawAgents[i] as Record<string, unknown>;
    const agent = {} as Record<string, unknown>;
    for (const key of AGENT_COMMON_KEYS) agent[key] = (entry as Record<string, unknown>)[key];
    agent.directory = resolve(base, expandHome(entry.directory, env));
    agent.options = Object.fromEntries(Object.entries(raw).filter(([key]) => !AGENT_COMMON_KEYS.includes(key)));
    return agent as unknown as AgentConfig;
  });
  return { ...parsed.data, agents, filepath };
}

/** Formats a key path the way config errors show it: `agents[1].channels[0]`. */
export function formatKeyPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (typeof segment === "string" && /^[A-Za-z_][A-Za-z0-9_-]*$/.test(segment)) out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

// --- YAML --------------------------------------------------------------------------------

interface YamlSource {
  doc: Document;
  lines: LineCounter;
}

/** The YAML document each parsed config object came from (parsed when first needed), for line numbers in errors. */
const sources = new WeakMap<object, () => YamlSource>();

/** {@link parseYaml}, or the data it gave for this text before (parse-cache.ts); its YAML document is parsed only if an error needs a line. */
function parseYamlKept(text: string, filepath: string, env: NodeJS.ProcessEnv): unknown {
  let parsed = false;
  const data = parseWithCache(text, env, (t) => {
    parsed = true;
    return parseYaml(t, filepath);
  });
  if (!parsed && isObject(data)) {
    let source: YamlSource | undefined;
    sources.set(data, () => (source ??= yamlSource(text)));
  }
  return data;
}

function yamlSource(text: string): YamlSource {
  const lines = new LineCounter();
  return { doc: parseDocument(text, { lineCounter: lines, prettyErrors: true }), lines };
}

const yamlLoader = ((filepath: string, content: string) => parseYaml(content, filepath) ?? {}) satisfies Loader;

function parseYaml(text: string, filepath: string): unknown {
  const source = yamlSource(text);
  const [first] = source.doc.errors;
  if (first) {
    // yaml's pretty message is "<what> at line L, column C:\n\n<code frame>".
    throw configParseError(filepath, `YAML syntax error: ${first.message.trimEnd()}`, first);
  }
  let data: unknown;
  try {
    data = source.doc.toJS();
  } catch (err) {
    throw configParseError(filepath, `YAML error: ${errorMessage(err)}`, err);
  }
  if (isObject(data)) sources.set(data, () => source);
  return data;
}

function sourceLine(source: YamlSource, path: readonly PropertyKey[], key?: string): number | undefined {
  // The node at the path; for a missing one, the closest existing parent.
  for (let n = path.length; n >= 0; n--) {
    const node = source.doc.getIn(path.slice(0, n) as unknown[], true);
    if (node === undefined && n > 0) continue;
    let range: readonly number[] | null | undefined = (node as { range?: number[] } | undefined)?.range;
    if (key !== undefined && n === path.length && isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && p.key.value === key);
      if (pair && isScalar(pair.key)) range = pair.key.range;
    }
    if (!range) return undefined;
    return source.lines.linePos(range[0] ?? 0).line;
  }
  return undefined;
}

// --- interpolation -----------------------------------------------------------------------

const ENV_REF = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replaces `${VAR}` / `${VAR:-default}` in every string value; `$${` is a literal `${`. A value
 * that had references and came out empty becomes null.
 */
function interpolate(value: unknown, path: PropertyKey[], env: NodeJS.ProcessEnv, onMissing: (path: PropertyKey[], variable: string) => void): unknown {
  if (typeof value === "string") {
    let references = 0;
    const result = value.replace(ENV_REF, (match, name: string | undefined, fallback: string | undefined) => {
      if (name === undefined) return "${";
      references++;
      const set = env[name];
      if (fallback !== undefined) return set ? set : fallback;
      if (set === undefined) {
        onMissing(path, name);
        return match;
      }
      return set;
    });
    // `url: ${WEBHOOK_URL:-}` with the variable unset means "no url", like `url: ~`.
    return result === "" && references > 0 ? null : result;
  }
  if (Array.isArray(value)) return value.map((item, i) => interpolate(item, [...path, i], env, onMissing));
  if (isObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, [...path, k], env, onMissing)]));
  }
  return value;
}

// --- validation messages -----------------------------------------------------------------

type Issue = z.core.$ZodIssue & { input?: unknown };

function describeIssue(issue: Issue, input: unknown, lineOf: (path: readonly PropertyKey[], key?: string) => number | undefined): ConfigProblem[] {
  const path = issue.path;
  const at = formatKeyPath(path);
  const line = lineOf(path);
  const secret = isSecretKey(path[path.length - 1]);
  // Never echo a secret into a terminal or a log; its type is enough to fix it.
  const got = (v: unknown) => (secret && v !== undefined && v !== null ? `${describeKind(v)} (value hidden)` : describeValue(v));
  switch (issue.code) {
    case "unrecognized_keys": {
      const known = objectKeysAt(configSchema, path);
      return issue.keys.map((key) => {
        const near = didYouMean(key, known);
        const hint = near ? ` (did you mean "${near}"?)` : known.length ? ` (known keys: ${known.join(", ")})` : "";
        return { path: at, message: `unknown key "${key}"${hint}`, line: lineOf(path, key) };
      });
    }
    case "invalid_type": {
      if (issue.input === undefined && !hasKey(input, path)) return [{ path: at, message: "is required", line }];
      const value = typeof issue.input === "string" && !secret ? `the string ${describeValue(issue.input)}` : got(issue.input);
      return [{ path: at, message: `expected ${typeWord(issue.expected)}, got ${value}`, line }];
    }
    case "invalid_value": {
      const values = issue.values.map(String);
      const near = typeof issue.input === "string" ? didYouMean(issue.input, values) : null;
      return [{ path: at, message: `expected one of ${values.join(", ")}, got ${got(issue.input)}${near ? ` (did you mean "${near}"?)` : ""}`, line }];
    }
    case "invalid_format": {
      const what = issue.format === "regex" ? issue.message : issue.format === "url" ? "a URL like https://example.com/hook" : `a valid ${issue.format}`;
      return [{ path: at, message: `expected ${what}, got ${got(issue.input)}`, line }];
    }
    case "too_small":
    case "too_big": {
      const small = issue.code === "too_small";
      const bound = Number(small ? (issue as { minimum: unknown }).minimum : (issue as { maximum: unknown }).maximum);
      const inclusive = issue.inclusive !== false;
      if (issue.origin === "string") {
        return [{ path: at, message: small && bound <= 1 ? "must not be empty" : `expected ${small ? "at least" : "at most"} ${bound} characters`, line }];
      }
      if (issue.origin === "array" || issue.origin === "set") {
        const n = Array.isArray(issue.input) ? issue.input.length : undefined;
        return [{ path: at, message: `expected ${small ? "at least" : "at most"} ${bound} item${bound === 1 ? "" : "s"}${n === undefined ? "" : `, got ${n}`}`, line }];
      }
      const op = small ? (inclusive ? ">=" : ">") : inclusive ? "<=" : "<";
      return [{ path: at, message: `expected a number ${op} ${bound}, got ${got(issue.input)}`, line }];
    }
    default:
      return [{ path: at, message: issue.message, line }];
  }
}

/** The `<server>-<name>` rule and duplicate nicks: what zod cannot see in one entry. */
function checkNicks(input: unknown, lineOf: (path: readonly PropertyKey[]) => number | undefined): ConfigProblem[] {
  if (!isObject(input) || !Array.isArray(input.agents)) return [];
  const server = isObject(input.server) && typeof input.server.name === "string" ? input.server.name : null;
  const problems: ConfigProblem[] = [];
  const seen = new Map<string, number>();
  input.agents.forEach((entry: unknown, i: number) => {
    if (!isObject(entry) || typeof entry.nick !== "string" || entry.nick === "") return;
    const nick = entry.nick;
    const path = ["agents", i, "nick"];
    const at = formatKeyPath(path);
    // A line is looked for only when there is a problem: finding one parses the YAML again.
    const line = () => lineOf(path);
    if (!NICK_RE.test(nick)) {
      problems.push({ path: at, message: `"${nick}" is not a valid IRC nick (letters, digits and _ - [ ] \\ \` ^ { | }; not starting with a digit or -)`, line: line() });
    } else if (server !== null) {
      const prefix = `${server}-`;
      if (ircLower(nick.slice(0, prefix.length)) !== ircLower(prefix) || nick.length === prefix.length) {
        problems.push({ path: at, message: `expected <server>-<name> starting with "${prefix}" (server.name is ${server}), got "${nick}"`, line: line() });
      }
    } else {
      const dash = nick.indexOf("-");
      if (dash <= 0 || dash === nick.length - 1) {
        problems.push({ path: at, message: `expected <server>-<name> like spark-${dash < 0 ? nick : "claude"}, got "${nick}"`, line: line() });
      }
    }
    const key = ircLower(nick);
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, i);
    } else {
      const other = (input.agents as Record<string, unknown>[])[first]?.nick;
      problems.push({ path: at, message: `duplicate nick "${nick}": agents[${first}].nick is already "${String(other)}" (IRC nicks ignore case)`, line: line() });
    }
  });
  return problems;
}

function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return value.length ? "a list" : "an empty list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  return String(value);
}

function describeKind(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return typeof value === "boolean" ? "a boolean" : `a ${typeof value}`;
}

function typeWord(expected: string): string {
  const words: Record<string, string> = {
    number: "a number",
    int: "a whole number",
    string: "a string",
    boolean: "true or false",
    array: "a list",
    object: "a mapping (key: value)",
    null: "null",
  };
  return words[expected] ?? expected;
}

/** The keys the schema's object at `path` declares (for did-you-mean). */
function objectKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: unknown = schema;
  for (let i = 0; ; i++) {
    let def = defOf(current);
    // Wrappers (default, nullable, ...) hold the real schema in innerType.
    while (def && def.innerType !== undefined && def.type !== "object") {
      current = def.innerType;
      def = defOf(current);
    }
    if (!def) return [];
    if (i === path.length) return def.type === "object" && def.shape ? Object.keys(def.shape) : [];
    const segment = path[i];
    if (def.type === "object" && typeof segment === "string" && def.shape) current = def.shape[segment];
    else if (def.type === "array" && typeof segment === "number") current = def.element;
    else return [];
  }
}

function defOf(schema: unknown): { type: string; innerType?: unknown; shape?: Record<string, unknown>; element?: unknown } | undefined {
  return (schema as { _zod?: { def?: { type: string } } } | undefined)?._zod?.def;
}

// --- helpers -----------------------------------------------------------------------------

/** Top-level sections left empty (`server:` with everything commented out) mean "the defaults". */
function withNullSectionsDropped(data: unknown): unknown {
  if (!isObject(data)) return data;
  return Object.fromEntries(Object.entries(data).filter(([key, value]) => !(value === null && key !== "supervisor")));
}

function expandHome(path: string, env: NodeJS.ProcessEnv): string {
  if (path !== "~" && !path.startsWith("~/")) return path;
  const home = env.HOME || homedir();
  return path === "~" ? home : join(home, path.slice(2));
}

function isSecretKey(key: PropertyKey | undefined): boolean {
  return typeof key === "string" && /password|secret|token/i.test(key);
}

function hasKey(data: unknown, path: readonly PropertyKey[]): boolean {
  let current = data;
  for (const segment of path) {
    if (current === null || typeof current !== "object" || !(segment in current)) return false;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return true;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function sortByLine<T extends ConfigProblem>(problems: T[]): T[] {
  return problems
    .map((p, i) => ({ p, i }))
    .sort((a, b) => (a.p.line ?? Number.MAX_SAFE_INTEGER) - (b.p.line ?? Number.MAX_SAFE_INTEGER) || a.i - b.i)
    .map(({ p }) => p);
}
