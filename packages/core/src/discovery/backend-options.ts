/**
 * An agent entry's backend-specific fields (everything that is not a common agent key) are
 * validated by the backend's own `configSchema`, with culture's wording: one line per field,
 * and a did-you-mean for unknown keys (which also catches typos of the common keys, since
 * those land among the backend fields too).
 */
import { dirname } from "node:path";
import type { BackendDefinition } from "../backend.js";
import { AGENT_COMMON_KEYS, type AgentConfig, type CultureConfig } from "../config/schema.js";
import { agentFieldLine } from "../config/field-lines.js";
import { didYouMean } from "../did-you-mean.js";
import { backendOptionsInvalid } from "../errors.js";
import { loadBackend, type LoadedBackend } from "./load-backend.js";
import type { ResolveBackendOptions } from "./resolve-backend.js";

/**
 * Validates `agent.options` with the backend's configSchema and returns the parsed value
 * (defaults filled in). Throws E_BACKEND_OPTIONS, one line per problem.
 */
export function parseBackendOptions(backend: BackendDefinition, agent: AgentConfig, configFile: string | null): unknown {
  const result = backend.configSchema.safeParse(agent.options ?? {});
  if (result.success) return result.data;
  const known = schemaKeys(backend.configSchema);
  const candidates = [...known, ...AGENT_COMMON_KEYS];
  const lines: string[] = [];
  // "(line N)" after each problem, as the config's own errors have it.
  const lineOf = (first: PropertyKey | undefined) => {
    const line = agentFieldLine(configFile, agent.nick, typeof first === "string" ? first : undefined);
    return line === undefined ? "" : ` (line ${line})`;
  };
  for (const issue of result.error.issues) {
    const at = formatPath(issue.path);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const field = at ? `${at}.${key}` : key;
        const guess = didYouMean(key, candidates);
        lines.push(
          (guess
            ? `${field}: unknown field. Did you mean "${guess}"?`
            : `${field}: unknown field${known.length ? ` (the backend "${backend.name}" knows: ${known.join(", ")})` : ` (the backend "${backend.name}" has no fields of its own)`}`) +
            lineOf(issue.path[0] ?? key),
        );
      }
    } else {
      lines.push(`${at || "(fields)"}: ${issue.message}${lineOf(issue.path[0])}`);
    }
  }
  throw backendOptionsInvalid(backend.name, lines, { nick: agent.nick, configFile: configFile ?? undefined });
}

/** A loaded backend and an agent's parsed options for it. */
export interface BackendForAgent {
  loaded: LoadedBackend;
  options: unknown;
}

/**
 * Loads the backend of one agent of a loaded config and validates the agent's fields for it.
 * Paths and the project's packages are resolved from the config file's folder (the cwd for a
 * config built in code). `overrides` changes where culture looks (tests).
 */
export async function resolveBackendForAgent(
  config: CultureConfig,
  agent: AgentConfig,
  overrides: Pick<ResolveBackendOptions, "builtinFrom" | "globalModules"> = {},
): Promise<BackendForAgent> {
  const configDir = config.filepath ? dirname(config.filepath) : process.cwd();
  const loaded = await loadBackend(agent.agent, {
    configDir,
    nick: agent.nick,
    ...(config.filepath ? { configFile: config.filepath } : {}),
    ...overrides,
  });
  return { loaded, options: parseBackendOptions(loaded.definition, agent, config.filepath) };
}

/** The keys of an object schema, looking through wrappers (default, optional, pipe...). */
export function schemaKeys(schema: unknown): string[] {
  let current = schema as SchemaLike | undefined;
  for (let depth = 0; current && depth < 8; depth++) {
    const shape = current.shape ?? current._zod?.def?.shape;
    if (shape && typeof shape === "object") return Object.keys(shape);
    const def = current._zod?.def;
    current = def?.innerType ?? def?.in ?? def?.schema;
  }
  return [];
}

type SchemaLike = {
  shape?: Record<string, unknown>;
  _zod?: { def?: { shape?: Record<string, unknown>; innerType?: SchemaLike; in?: SchemaLike; schema?: SchemaLike } };
};

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}
