/**
 * The one check of "is this a backend?", shared by the loader and the conformance kit so the
 * two cannot drift apart (ESLint's RuleTester and its rule loader share theirs the same way).
 */
import { BACKEND_API_VERSION, type BackendDefinition } from "../backend.js";
import { backendApiMismatch, backendInvalid, type ConfigReference } from "../errors.js";

/** What a backend's `name` may look like: lower case letters, digits, `.`, `_`, `-` (an npm name suffix). */
export const BACKEND_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]*$/;

/**
 * Throws unless `value` is a {@link BackendDefinition} for this core's API version.
 *
 * The API version is checked first: a backend written for another version may legitimately
 * have another shape, and "upgrade" is the useful message then. Every other problem is
 * collected and reported at once (E_BACKEND_INVALID, one line each).
 *
 * @param where Names the backend in messages, e.g. `culture-backend-foo (/path/index.js)`.
 */
export function assertBackendDefinition(
  value: unknown,
  where: string,
  ref: ConfigReference = {},
): asserts value is BackendDefinition {
  if (value === null || typeof value !== "object") {
    const what = value === null ? "null" : typeof value;
    throw backendInvalid(where, [`its default export is ${what}, not an object made with defineBackend()`], ref);
  }
  const def = value as Record<string, unknown>;
  const apiVersion = def.apiVersion;
  if (typeof apiVersion === "number" && Number.isInteger(apiVersion) && apiVersion !== BACKEND_API_VERSION) {
    throw backendApiMismatch(where, apiVersion, BACKEND_API_VERSION, ref);
  }

  const problems: string[] = [];
  if (apiVersion === undefined) problems.push(`it has no apiVersion (set apiVersion: ${BACKEND_API_VERSION}, i.e. BACKEND_API_VERSION)`);
  else if (typeof apiVersion !== "number" || !Number.isInteger(apiVersion)) {
    problems.push(`apiVersion must be an integer (${BACKEND_API_VERSION}), not ${JSON.stringify(apiVersion)}`);
  }
  if (def.name === undefined) problems.push(`it has no name (the short name, e.g. "foo" for culture-backend-foo)`);
  else if (typeof def.name !== "string" || !BACKEND_NAME_PATTERN.test(def.name)) {
    problems.push(`name must be lower case letters, digits, ".", "_" or "-" (like "foo"), not ${JSON.stringify(def.name)}`);
  }
  const schema = def.configSchema as { safeParse?: unknown } | null | undefined;
  if (schema === undefined) problems.push(`it has no configSchema (a zod schema of the agent's backend fields, e.g. z.object({}).strict())`);
  else if (schema === null || typeof schema !== "object" || typeof schema.safeParse !== "function") {
    problems.push(`configSchema must be a zod schema (something with safeParse)`);
  }
  if (def.createRunner === undefined) problems.push(`it has no createRunner function`);
  else if (typeof def.createRunner !== "function") problems.push(`createRunner must be a function, not ${typeof def.createRunner}`);

  for (const key of ["createEvaluator", "apply", "doctor"] as const) {
    if (def[key] !== undefined && typeof def[key] !== "function") problems.push(`${key} must be a function when set, not ${typeof def[key]}`);
  }
  if (def.defaults !== undefined) {
    const defaults = def.defaults as { model?: unknown } | null;
    if (defaults === null || typeof defaults !== "object") problems.push(`defaults must be an object when set`);
    else if (defaults.model !== undefined && typeof defaults.model !== "string") problems.push(`defaults.model must be a string`);
  }
  if (def.skill !== undefined) {
    const skill = def.skill as { path?: unknown; installDir?: unknown } | null;
    if (skill === null || typeof skill !== "object") problems.push(`skill must be an object { path: URL } when set`);
    else {
      // Checked by shape, not instanceof: a URL from another realm (vm, worker) is still a URL.
      const path = skill.path as { href?: unknown; protocol?: unknown } | null | undefined;
      if (!path || typeof path !== "object" || typeof path.href !== "string" || path.protocol !== "file:") {
        problems.push(`skill.path must be a file: URL (new URL("./skill/SKILL.md", import.meta.url))`);
      }
      if (skill.installDir !== undefined && typeof skill.installDir !== "function") problems.push(`skill.installDir must be a function when set`);
    }
  }
  if (problems.length) throw backendInvalid(where, problems, ref);
}
