/**
 * `culture backend create <name> [--dir DIR] [--scope @acme] [--install]`: scaffolds a
 * third-party backend package (create-vite style). The template is a real, working package in
 * `templates/backend/` of the cli package — it is even tested in place — written out with the
 * name substituted in code and `_gitignore` renamed to `.gitignore` (npm drops a `.gitignore`
 * from published packages, so the cli could not ship one).
 *
 * The template uses the sample name `myagent`; these exact strings are replaced, in order:
 * `culture-backend-myagent` (the package name), `name: "myagent"` (the backend's short name),
 * `agent: myagent` (an agents.yaml value, quoted when scoped since YAML reserves `@`), then any
 * other `myagent` (what a user types for the agent: `myagent` or `@acme/myagent`).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { BACKEND_NAME_PATTERN, BACKEND_PACKAGE_PREFIX, BUILTIN_SCOPE, KNOWN_BACKENDS, npmInstallFailed, usageError } from "@culture/core";
import { backendCommand } from "./index.js";

/** The sample name the template is written with. */
export const TEMPLATE_NAME = "myagent";

/** Template files whose name is changed when written (npm would drop the real names from the cli's tarball). */
const RENAMES: Record<string, string> = { _gitignore: ".gitignore" };
/** Never copied, should they appear in the template folder (a test run in place, a build). */
const SKIPPED = new Set(["node_modules", "dist"]);
/** npm's limit on a package name's length. */
const MAX_PACKAGE_NAME = 214;

/** Options of {@link createBackendPackage}. */
export interface CreateBackendOptions {
  /** The short name (`foo`), or `@scope/foo`, or a full `culture-backend-foo` / `@scope/culture-backend-foo`. */
  name: string;
  /** The package folder itself. Default: `./<package name without scope>` in `cwd`. */
  dir?: string;
  /** npm scope for the package (`@acme` or `acme`). */
  scope?: string;
  /** Folder `dir` is relative to. Default: the process's cwd. */
  cwd?: string;
}

/** The names a new backend goes by. */
export interface BackendNames {
  /** The backend's `name`: the package suffix (`foo`). */
  short: string;
  /** The npm package: `culture-backend-foo` or `@acme/culture-backend-foo`. */
  packageName: string;
  /** What an agent's `agent:` field says: `foo` or `@acme/foo`. */
  agent: string;
}

/** What {@link createBackendPackage} wrote. */
export interface CreatedBackend extends BackendNames {
  /** The package folder (absolute). */
  dir: string;
  /** The files written, relative to `dir`, `/`-separated, sorted. */
  files: string[];
}

/** The backend template folder shipped in the cli package (`templates/backend`). */
export function backendTemplateDir(): string {
  // Found from this file upward, so it works from dist/ (bundled) and from src/commands (tests).
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const candidate = join(dir, "templates", "backend");
    if (existsSync(join(dir, "package.json")) && existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) throw new Error(`culture's backend template (templates/backend) is missing from its install near ${fileURLToPath(import.meta.url)}`);
  }
}

/**
 * The files of the template as they are written: relative paths, `/`-separated, sorted, with
 * the renames applied (`_gitignore` -> `.gitignore`).
 */
export function templateFiles(templateDir = backendTemplateDir()): string[] {
  return walk(templateDir)
    .map((file) => writtenName(file))
    .sort();
}

/**
 * The built-in backends' short names (`claude`, `codex`, ...): culture's own `@culture/backend-*`
 * packages, bundled or installed on demand. An unscoped third-party backend cannot take one of
 * these names: `agent: <name>` would always load the built-in.
 */
export function builtinBackendNames(): string[] {
  return [...KNOWN_BACKENDS];
}

/**
 * Checks a backend name (and scope) and returns the names the package goes by. Throws a usage
 * error (E_USAGE) that says what is wrong and what would do: npm package-name rules, lower case,
 * and not a built-in's name unless scoped.
 */
export function backendNames(name: string, scope?: string): BackendNames {
  let short = name.trim();
  let scopeName = scope?.trim() || undefined;
  if (short.startsWith("@")) {
    const slash = short.indexOf("/");
    if (slash === -1) throw usageError(`"${name}" is a scope, not a backend name. Write: culture backend create <name> --scope ${short}`);
    const fromName = short.slice(0, slash);
    if (scopeName && normaliseScope(scopeName) !== fromName) {
      throw usageError(`The name "${name}" has the scope ${fromName}, but --scope says ${scopeName}. Give the scope once.`);
    }
    scopeName = fromName;
    short = short.slice(slash + 1);
  }
  if (short.startsWith(BACKEND_PACKAGE_PREFIX)) short = short.slice(BACKEND_PACKAGE_PREFIX.length);
  const normalisedScope = scopeName === undefined ? undefined : normaliseScope(scopeName);

  if (!short) throw usageError(`The backend name is empty. Example: culture backend create myagent`);
  if (short !== short.toLowerCase()) {
    throw usageError(`The backend name "${short}" has upper-case letters; npm package names are lower case. Try: culture backend create ${short.toLowerCase()}`);
  }
  if (!BACKEND_NAME_PATTERN.test(short)) {
    throw usageError(
      `The backend name "${short}" is not valid: use lower-case letters, digits, ".", "_" and "-", starting with a letter or digit (like "myagent").`,
    );
  }
  if (normalisedScope !== undefined && !/^@[a-z0-9][a-z0-9._-]*$/.test(normalisedScope)) {
    throw usageError(`The scope "${scopeName}" is not a valid npm scope: use @ and lower-case letters, digits, ".", "_" and "-" (like @acme).`);
  }
  const builtins = builtinBackendNames();
  if (normalisedScope === undefined && builtins.includes(short)) {
    throw usageError(
      `"${short}" is a built-in backend (${BUILTIN_SCOPE}/backend-${short}): agent: ${short} always loads the built-in, never a culture-backend-${short}.\n` +
        `Pick another name, or publish under your scope: culture backend create ${short} --scope @yourscope\n` +
        `Built-in names: ${builtins.join(", ")}`,
    );
  }
  const packageName = `${normalisedScope ? `${normalisedScope}/` : ""}${BACKEND_PACKAGE_PREFIX}${short}`;
  if (packageName.length > MAX_PACKAGE_NAME) {
    throw usageError(`The package name ${packageName} is ${packageName.length} characters long; npm allows at most ${MAX_PACKAGE_NAME}. Pick a shorter name.`);
  }
  return { short, packageName, agent: normalisedScope ? `${normalisedScope}/${short}` : short };
}

/**
 * Writes a new backend package from the template. Refuses a `dir` that exists and is not an
 * empty folder (E_USAGE). Does not run npm.
 */
export function createBackendPackage(options: CreateBackendOptions): CreatedBackend {
  const names = backendNames(options.name, options.scope);
  const cwd = resolve(options.cwd ?? process.cwd());
  const dir = resolve(cwd, options.dir ?? basename(names.packageName));
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw usageError(`${dir} exists and is a file. Choose another folder with --dir.`);
    if (readdirSync(dir).length > 0) {
      throw usageError(`${dir} is not empty; culture backend create writes a new package there and overwrites nothing.\nChoose another folder with --dir, or empty this one.`);
    }
  }

  const templateDir = backendTemplateDir();
  const replacements = substitutions(names);
  const files: string[] = [];
  for (const file of walk(templateDir)) {
    const target = writtenName(file);
    const source = readFileSync(join(templateDir, ...file.split("/")));
    const content = isText(source) ? Buffer.from(substitute(source.toString("utf8"), replacements)) : source;
    const out = join(dir, ...target.split("/"));
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, target === "package.json" ? packageJson(content.toString("utf8")) : content);
    files.push(target);
  }
  mkdirSync(dir, { recursive: true });
  return { ...names, dir, files: files.sort() };
}

/** Runs `npm install` in `dir` with npm's output shown. Throws E_NPM_INSTALL_FAILED. */
export async function npmInstall(dir: string): Promise<void> {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const code = await new Promise<number | null>((done) => {
    const child = spawn(npm, ["install"], { cwd: dir, stdio: ["ignore", "inherit", "inherit"] });
    child.once("error", () => done(null));
    child.once("close", (exitCode) => done(exitCode ?? 1));
  });
  if (code !== 0) {
    throw npmInstallFailed(
      dir,
      code,
      `@culture/core (a peer and dev dependency) must be installable from your npm registry; see docs/authoring-backends.md.`,
    );
  }
}

/** Registers `culture backend create`. */
export function registerBackendCreateCommand(program: Command): void {
  backendCommand(program)
    .command("create")
    .description("create a new backend package (culture-backend-<name>) from the template")
    .argument("<name>", 'the backend\'s name: "foo" makes culture-backend-foo, used as agent: foo')
    .option("--dir <dir>", "the package folder itself (default: ./culture-backend-<name>); must be empty or absent")
    .option("--scope <scope>", "publish under an npm scope: @acme/culture-backend-<name>, used as agent: @acme/<name>")
    .option("--install", "run npm install in the new package")
    .action(async (name: string, opts: { dir?: string; scope?: string; install?: boolean }) => {
      const created = createBackendPackage({
        name,
        ...(opts.dir !== undefined ? { dir: opts.dir } : {}),
        ...(opts.scope !== undefined ? { scope: opts.scope } : {}),
      });
      const shown = relative(process.cwd(), created.dir) || ".";
      process.stdout.write(`Created ${created.packageName} in ${created.dir} (${created.files.length} files).\n`);
      if (opts.install) {
        process.stdout.write(`\nRunning npm install in ${shown} ...\n`);
        await npmInstall(created.dir);
      }
      process.stdout.write(nextSteps(created, shown, Boolean(opts.install)));
    });
}

/** The text printed after a package was created. */
export function nextSteps(created: CreatedBackend, shownDir: string, installed: boolean): string {
  const cd = shownDir === "." ? [] : [`  cd ${quoteShell(shownDir)}`];
  const yamlAgent = yamlScalar(created.agent);
  return [
    "",
    "Next steps:",
    ...cd,
    ...(installed ? [] : [`  npm install${coreCheckout() ? `                   # @culture/core links to your clone of culture (file:${coreCheckout()})` : ""}`]),
    "  npm test                      # culture's conformance kit, against the stand-in agent (agent.mjs)",
    "  then edit src/agent-cli-runner.ts and src/wire-protocol.ts to drive your agent CLI",
    "",
    "Try it from a project without publishing (after npm run build):",
    `  agents.yaml:   agent: ${quoteYamlPath(created.dir)}`,
    "Publish it, then in the project of your agents.yaml:",
    `  npm publish    and    npm install ${created.packageName}`,
    `  agents.yaml:   agent: ${yamlAgent}`,
    `  culture backend list          # shows it, or why it does not load`,
    "",
  ].join("\n");
}

// --- helpers ---

function normaliseScope(scope: string): string {
  return scope.startsWith("@") ? scope : `@${scope}`;
}

/** The (from, to) pairs applied in order; see the module comment. */
function substitutions(names: BackendNames): [string, string][] {
  return [
    [`${BACKEND_PACKAGE_PREFIX}${TEMPLATE_NAME}`, names.packageName],
    [`name: "${TEMPLATE_NAME}"`, `name: "${names.short}"`],
    [`agent: ${TEMPLATE_NAME}`, `agent: ${yamlScalar(names.agent)}`],
    [TEMPLATE_NAME, names.agent],
  ];
}

function substitute(text: string, replacements: readonly [string, string][]): string {
  return replacements.reduce((acc, [from, to]) => acc.split(from).join(to), text);
}

/**
 * The package.json as written: `@culture/core` pinned to this culture's core version. Run from
 * a clone of culture (core is a source checkout, not an installed package), the dev dependency
 * links to that checkout (`file:`), so `npm install` works before @culture/core is on a registry;
 * the peer range stays what users install against.
 */
function packageJson(text: string): string {
  const manifest = JSON.parse(text) as Record<string, unknown>;
  const range = `^${coreVersion()}`;
  const checkout = coreCheckout();
  for (const key of ["peerDependencies", "devDependencies"]) {
    const deps = manifest[key] as Record<string, string> | undefined;
    if (deps && "@culture/core" in deps) deps["@culture/core"] = key === "devDependencies" && checkout ? `file:${checkout}` : range;
  }
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

function coreVersion(): string {
  const require = createRequire(import.meta.url);
  return (require("@culture/core/package.json") as { version: string }).version;
}

/** The folder of @culture/core when it is a source checkout (a clone of culture), else null. */
export function coreCheckout(): string | null {
  const require = createRequire(import.meta.url);
  const manifest = realpathSync(require.resolve("@culture/core/package.json"));
  return manifest.split(sep).includes("node_modules") ? null : dirname(manifest);
}

/** Files under `root`, relative and `/`-separated, skipping {@link SKIPPED} folders. */
function walk(root: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!SKIPPED.has(entry.name)) out.push(...walk(root, rel));
    } else if (entry.isFile()) out.push(rel);
  }
  return out;
}

function writtenName(file: string): string {
  const parts = file.split("/");
  const last = parts.pop() ?? "";
  return [...parts, RENAMES[last] ?? last].join("/");
}

function isText(content: Buffer): boolean {
  return !content.includes(0);
}

/** A YAML plain scalar, or a quoted one when it starts with a character YAML reserves (`@`). */
function yamlScalar(value: string): string {
  return /^[@`!&*|>%#'"{}[\],?:-]/.test(value) ? JSON.stringify(value) : value;
}

function quoteYamlPath(path: string): string {
  return /^[\w./-]+$/.test(path) ? path : JSON.stringify(path);
}

function quoteShell(path: string): string {
  return /^[\w./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
