// Backend discovery against real folders: throw-away packages written into temp dirs, real
// Node resolution and real dynamic imports (the loader's native import bypasses vitest).
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CultureError } from "../src/errors.js";
import { isCultureError } from "../src/errors.js";
import { loadBackend } from "../src/discovery/load-backend.js";
import { resolveBackend } from "../src/discovery/resolve-backend.js";
import { backendModule, evaluations, linkZod, removeTempDirs, tempDir, writeFiles, writePackage } from "./fixtures/temp-packages.js";

/** A project folder (where agents.yaml would be) with a node_modules that has zod. */
function project(): { dir: string; modules: string; configFile: string } {
  const dir = tempDir("culture-proj-");
  const modules = join(dir, "node_modules");
  linkZod(modules);
  return { dir, modules, configFile: join(dir, "agents.yaml") };
}

/** A fake culture install: `<dir>/node_modules/@culture/core/dist/index.js` is where built-ins resolve from. */
function fakeInstall(): { modules: string; builtinFrom: string } {
  const dir = tempDir("culture-install-");
  const modules = join(dir, "node_modules");
  linkZod(modules);
  const core = writePackage(modules, "@culture/core", { "dist/index.js": "export {};\n" });
  return { modules, builtinFrom: join(core, "dist", "index.js") };
}

async function failure(promise: Promise<unknown>): Promise<CultureError> {
  try {
    await promise;
  } catch (err) {
    if (isCultureError(err)) return err;
    throw err;
  }
  throw new Error("expected the promise to reject");
}

let globalModules: string;
let savedGlobal: string | undefined;
let emptyInstall: { modules: string; builtinFrom: string };

beforeAll(() => {
  // Every test sees an empty global prefix unless it fills this one: no `npm root -g` runs.
  savedGlobal = process.env.CULTURE_GLOBAL_MODULES;
  globalModules = join(tempDir("culture-global-"), "lib", "node_modules");
  mkdirSync(globalModules, { recursive: true });
  linkZod(globalModules);
  process.env.CULTURE_GLOBAL_MODULES = globalModules;
  emptyInstall = fakeInstall();
});

afterAll(() => {
  if (savedGlobal === undefined) delete process.env.CULTURE_GLOBAL_MODULES;
  else process.env.CULTURE_GLOBAL_MODULES = savedGlobal;
  removeTempDirs();
});

describe("loadBackend: found", () => {
  it("loads a culture-backend-* package from the config file's folder", async () => {
    const p = project();
    const root = writePackage(p.modules, "culture-backend-aaa", { "index.js": backendModule("aaa", "found-project") }, { version: "2.3.4" });
    const loaded = await loadBackend("aaa", { configDir: p.dir, builtinFrom: emptyInstall.builtinFrom });
    expect(loaded.source).toBe("project");
    expect(loaded.packageName).toBe("culture-backend-aaa");
    expect(loaded.version).toBe("2.3.4");
    expect(loaded.path).toBe(realpathSync(join(root, "index.js")));
    expect(loaded.definition.name).toBe("aaa");
    expect((loaded.definition as { marker?: string }).marker).toBe("found-project");
  });

  it("resolves upward from a sub-folder of the project, like Node does", async () => {
    const p = project();
    writePackage(p.modules, "culture-backend-up", { "index.js": backendModule("up", "found-upward") });
    const sub = join(p.dir, "config", "agents");
    mkdirSync(sub, { recursive: true });
    const loaded = await loadBackend("up", { configDir: sub, builtinFrom: emptyInstall.builtinFrom });
    expect(loaded.packageName).toBe("culture-backend-up");
  });

  it("loads a scoped @scope/culture-backend-* package from @scope/name", async () => {
    const p = project();
    writePackage(p.modules, "@acme/culture-backend-bot", { "index.js": backendModule("bot", "found-scoped") });
    const loaded = await loadBackend("@acme/bot", { configDir: p.dir, builtinFrom: emptyInstall.builtinFrom });
    expect(loaded.packageName).toBe("@acme/culture-backend-bot");
  });

  it("finds a backend installed only globally (CULTURE_GLOBAL_MODULES)", async () => {
    const p = project();
    writePackage(globalModules, "culture-backend-globalonly", { "index.js": backendModule("globalonly", "found-global") });
    const loaded = await loadBackend("globalonly", { configDir: p.dir, builtinFrom: emptyInstall.builtinFrom });
    expect(loaded.source).toBe("global");
    expect(loaded.path.startsWith(realpathSync(globalModules))).toBe(true);
  });

  it("prefers the project's copy over the global one of the same package", async () => {
    const p = project();
    writePackage(globalModules, "culture-backend-both", { "index.js": backendModule("both", "both-global") });
    writePackage(p.modules, "culture-backend-both", { "index.js": backendModule("both", "both-project") });
    const loaded = await loadBackend("both", { configDir: p.dir, builtinFrom: emptyInstall.builtinFrom });
    expect((loaded.definition as { marker?: string }).marker).toBe("both-project");
    expect(loaded.source).toBe("project");
  });

  it("loads a folder or a file given as a path relative to the config file", async () => {
    const p = project();
    writeFiles(p.dir, { "backends/mine/index.js": backendModule("mine", "found-folder"), "single.mjs": backendModule("single", "found-file") });
    writeFiles(p.dir, { "backends/pkg/package.json": JSON.stringify({ name: "my-local-backend", type: "module", main: "lib/main.js" }) });
    writeFiles(p.dir, { "backends/pkg/lib/main.js": backendModule("pkg", "found-pkg-folder") });
    const folder = await loadBackend("./backends/mine", { configDir: p.dir });
    expect(folder.source).toBe("path");
    expect(folder.packageName).toBeNull();
    const file = await loadBackend("./single.mjs", { configDir: p.dir });
    expect(file.definition.name).toBe("single");
    const pkg = await loadBackend(join(p.dir, "backends/pkg"), { configDir: "/" });
    expect(pkg.packageName).toBe("my-local-backend");
    expect(pkg.path).toBe(join(p.dir, "backends/pkg/lib/main.js"));
  });

  it("follows an ESM-only exports map (import condition), which require.resolve would miss", async () => {
    const p = project();
    writePackage(
      p.modules,
      "culture-backend-esm",
      { "esm/index.js": backendModule("esm", "found-esm"), "cjs/index.cjs": "throw new Error('the require entry must not be loaded');" },
      { exports: { ".": { import: "./esm/index.js", require: "./cjs/index.cjs" }, "./package.json": "./package.json" } },
    );
    const loaded = await loadBackend("esm", { configDir: p.dir, builtinFrom: emptyInstall.builtinFrom });
    expect((loaded.definition as { marker?: string }).marker).toBe("found-esm");
  });

  it("evaluates a module once however many times it is loaded", async () => {
    const p = project();
    writePackage(p.modules, "culture-backend-once", { "index.js": backendModule("once", "eval-once") });
    const a = await loadBackend("once", { configDir: p.dir, builtinFrom: emptyInstall.builtinFrom });
    const b = await loadBackend("culture-backend-once", { configDir: p.dir, builtinFrom: emptyInstall.builtinFrom });
    expect(b.definition).toBe(a.definition);
    expect(evaluations("eval-once")).toBe(1);
  });
});

describe("loadBackend: built-ins win", () => {
  it("loads @culture/backend-<name> from culture's install over a project culture-backend-<name>", async () => {
    const p = project();
    const install = fakeInstall();
    writePackage(install.modules, "@culture/backend-zzz", { "index.js": backendModule("zzz", "zzz-builtin") });
    writePackage(p.modules, "culture-backend-zzz", { "index.js": backendModule("zzz", "zzz-third-party") });
    const loaded = await loadBackend("zzz", { configDir: p.dir, builtinFrom: install.builtinFrom });
    expect(loaded.packageName).toBe("@culture/backend-zzz");
    expect(loaded.source).toBe("builtin");
    expect((loaded.definition as { marker?: string }).marker).toBe("zzz-builtin");
    expect(evaluations("zzz-third-party")).toBe(0);
  });

  it("prefers @culture/backend-<name> over culture-backend-<name> in the same project", async () => {
    const p = project();
    writePackage(p.modules, "@culture/backend-yyy", { "index.js": backendModule("yyy", "yyy-scoped") });
    writePackage(p.modules, "culture-backend-yyy", { "index.js": backendModule("yyy", "yyy-third-party") });
    const loaded = await loadBackend("yyy", { configDir: p.dir, builtinFrom: emptyInstall.builtinFrom });
    expect(loaded.packageName).toBe("@culture/backend-yyy");
    expect(loaded.source).toBe("project");
  });

  it("tries candidates before places: a global @culture/backend-x beats a project culture-backend-x", async () => {
    const p = project();
    writePackage(globalModules, "@culture/backend-xxg", { "index.js": backendModule("xxg", "xxg-global-builtin") });
    writePackage(p.modules, "culture-backend-xxg", { "index.js": backendModule("xxg", "xxg-project") });
    const resolved = await resolveBackend("xxg", { configDir: p.dir, builtinFrom: emptyInstall.builtinFrom });
    expect(resolved.specifier).toBe("@culture/backend-xxg");
    expect(resolved.source).toBe("global");
  });

  it("labels a built-in reached through a node_modules folder culture itself uses as builtin", async () => {
    // A project that installed culture locally: its node_modules is also culture's.
    const p = project();
    const core = writePackage(p.modules, "@culture/core", { "dist/index.js": "export {};\n" });
    writePackage(p.modules, "@culture/backend-shared", { "index.js": backendModule("shared", "shared-builtin") });
    const loaded = await loadBackend("shared", { configDir: p.dir, builtinFrom: join(core, "dist/index.js") });
    expect(loaded.source).toBe("builtin");
  });
});

describe("loadBackend: failures", () => {
  it("not installed: E_BACKEND_NOT_FOUND names every candidate and place, the install and create commands, the agent and the file", async () => {
    const p = project();
    const err = await failure(
      loadBackend("nope", { configDir: p.dir, nick: "spark-nope", configFile: p.configFile, builtinFrom: emptyInstall.builtinFrom }),
    );
    expect(err.code).toBe("E_BACKEND_NOT_FOUND");
    expect(err.message).toContain(`culture couldn't find the backend "nope" used by agent "spark-nope" in ${p.configFile}.`);
    expect(err.message).toContain("Tried: @culture/backend-nope, culture-backend-nope");
    expect(err.message).toContain(`${p.dir} (project)`);
    expect(err.message).toContain(`${globalModules} (global)`);
    expect(err.message).toContain("(culture's install)");
    expect(err.message).toContain("npm install culture-backend-nope");
    expect(err.message).toContain("culture backend create nope");
  });

  it("suggests the @culture package for a missing built-in", async () => {
    const p = project();
    const err = await failure(loadBackend("codex", { configDir: p.dir, builtinFrom: emptyInstall.builtinFrom }));
    expect(err.code).toBe("E_BACKEND_NOT_FOUND");
    expect(err.message).toContain("npm install @culture/backend-codex");
  });

  it("a path that does not exist: E_BACKEND_NOT_FOUND with the resolved path", async () => {
    const p = project();
    const err = await failure(loadBackend("./backends/ghost", { configDir: p.dir, nick: "spark-ghost" }));
    expect(err.code).toBe("E_BACKEND_NOT_FOUND");
    expect(err.message).toContain(join(p.dir, "backends/ghost"));
    expect(err.message).toContain("culture backend create ghost --dir ./backends/ghost");
  });

  it("throws on import: E_BACKEND_LOAD_FAILED with the real error, and the module is evaluated once", async () => {
    const p = project();
    writePackage(p.modules, "culture-backend-throws", {
      "index.js": backendModule("throws", "throws-on-import", `throw new Error("kaboom at import time");`),
    });
    const opts = { configDir: p.dir, nick: "spark-throws", configFile: p.configFile, builtinFrom: emptyInstall.builtinFrom };
    const first = await failure(loadBackend("throws", opts));
    expect(first.code).toBe("E_BACKEND_LOAD_FAILED");
    expect(first.message).toContain("kaboom at import time");
    expect(first.message).toContain("culture-backend-throws");
    expect(first.message).toContain(`used by agent "spark-throws"`);
    expect((first.cause as Error).message).toBe("kaboom at import time");
    const second = await failure(loadBackend("throws", opts));
    expect(second.code).toBe("E_BACKEND_LOAD_FAILED");
    expect(evaluations("throws-on-import")).toBe(1);
  });

  it("a syntax error: E_BACKEND_LOAD_FAILED (never 'not found') with the file and line", async () => {
    const p = project();
    const root = writePackage(p.modules, "culture-backend-syntax", { "index.js": "export default {\n  name: 'syntax',,\n};\n" });
    const err = await failure(loadBackend("syntax", { configDir: p.dir, builtinFrom: emptyInstall.builtinFrom }));
    expect(err.code).toBe("E_BACKEND_LOAD_FAILED");
    expect(err.message).toContain("SyntaxError");
    expect(err.message).toContain(`${join(root, "index.js")}:2`);
  });

  it("a missing dependency: E_BACKEND_LOAD_FAILED naming the dependency", async () => {
    const p = project();
    writePackage(p.modules, "culture-backend-deps", { "index.js": `import "culture-missing-dependency";\nexport default {};\n` });
    const err = await failure(loadBackend("deps", { configDir: p.dir, builtinFrom: emptyInstall.builtinFrom }));
    expect(err.code).toBe("E_BACKEND_LOAD_FAILED");
    expect(err.message).toContain("culture-missing-dependency");
    expect(err.message).toContain("A dependency of the backend is missing");
  });

  it("an entry point that does not exist (not built): E_BACKEND_LOAD_FAILED", async () => {
    const p = project();
    writePackage(p.modules, "culture-backend-unbuilt", {}, { exports: { ".": { default: "./dist/index.js" } } });
    const err = await failure(loadBackend("unbuilt", { configDir: p.dir, builtinFrom: emptyInstall.builtinFrom }));
    expect(err.code).toBe("E_BACKEND_LOAD_FAILED");
    expect(err.message).toContain("./dist/index.js does not exist (is the package built?)");
  });

  it("no default export: E_BACKEND_INVALID saying so, with what it does export", async () => {
    const p = project();
    writePackage(p.modules, "culture-backend-nodefault", { "index.js": "export const backend = {};\nexport const other = 1;\n" });
    const err = await failure(loadBackend("nodefault", { configDir: p.dir, builtinFrom: emptyInstall.builtinFrom }));
    expect(err.code).toBe("E_BACKEND_INVALID");
    expect(err.message).toContain("it has no default export (it exports: backend, other)");
  });

  it("a default export that is not a backend: E_BACKEND_INVALID listing every problem", async () => {
    const p = project();
    writePackage(p.modules, "culture-backend-shape", { "index.js": `export default { name: "Bad Name", apiVersion: 1, configSchema: {} };\n` });
    const err = await failure(loadBackend("shape", { configDir: p.dir, builtinFrom: emptyInstall.builtinFrom }));
    expect(err.code).toBe("E_BACKEND_INVALID");
    expect(err.message).toContain("it has no createRunner function");
    expect(err.message).toContain("configSchema must be a zod schema");
    expect(err.message).toContain(`name must be lower case letters`);
  });

  it("a name that does not match the package: E_BACKEND_INVALID", async () => {
    const p = project();
    writePackage(p.modules, "culture-backend-named", { "index.js": backendModule("other", "named-mismatch") });
    const err = await failure(loadBackend("named", { configDir: p.dir, builtinFrom: emptyInstall.builtinFrom }));
    expect(err.code).toBe("E_BACKEND_INVALID");
    expect(err.message).toContain(`its name is "other", but the package culture-backend-named makes it "named"`);
  });

  it("another API version: E_BACKEND_API_MISMATCH with both versions", async () => {
    const p = project();
    writePackage(p.modules, "culture-backend-future", {
      "index.js": `export default { name: "future", apiVersion: 2, createRunner() {}, configSchema: { safeParse() {} } };\n`,
    });
    const err = await failure(loadBackend("future", { configDir: p.dir, builtinFrom: emptyInstall.builtinFrom }));
    expect(err.code).toBe("E_BACKEND_API_MISMATCH");
    expect(err.message).toContain("written for backend API version 2, but this culture implements version 1");
    expect(err.message).toContain("Upgrade culture");
  });
});
