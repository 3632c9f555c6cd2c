#!/usr/bin/env node
/**
 * Builds the daemon image (issue 30): `packages/cli/dist/daemon-image.cjs`, the whole agent
 * daemon (the cli's foreground start, all of @culture/core, the account store of
 * @culture/server) as ONE CommonJS script, so that `packages/cli/bin/daemon-image.cjs` can
 * compile it with a V8 code cache. On Node 20 only a classic script (vm.Script) takes cached
 * code; ES modules are compiled from source in every process, and compiling was about half of a
 * daemon's start-up CPU (docs/performance.md, "The daemon image").
 *
 * It bundles core's built chunks (dist/), not its sources, so the image runs exactly the code
 * core's own build made (its shims, the trimmed zod). Three things ESM gave those chunks are
 * given back:
 * - `import.meta.url`: each file's own URL where it is installed, found at run time from its
 *   package (`__cultureUrl`), so core still finds its .wasm files, its package.json and the
 *   backends installed beside it;
 * - packages left out of the bundle (cosmiconfig) are required from the package that imports
 *   them, as Node would have resolved them;
 * - `@culture/core` itself: an ES module a backend imports (`@culture/core`, `/zod`, ...) gets
 *   the image's own modules (core's dist/facade/*.js ask `globalThis[Symbol.for(
 *   "culture.daemon-image")]`), so a daemon holds one core, as before.
 *
 * The backends culture installs with itself (IMAGE_BACKENDS: the ACP one) are in the image too,
 * each with the SHA-256 of the built file it was made from: importing one as an ES module cost
 * an ACP daemon ~20 ms of CPU at every start (its ~100 KB compiled from source, its schemas).
 *
 * Run by the cli's build, after core's:  node ../../scripts/daemon-image.mjs
 * (IMAGE_META=<file> also writes esbuild's metafile: what each input adds to the image.)
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import * as lexer from "es-module-lexer";
import { IMAGE_BACKENDS, IMAGE_ENTRIES } from "./daemon-image-entries.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = join(root, "packages/cli");
const require = createRequire(join(cli, "package.json"));
const { build } = require("esbuild");
await lexer.init;

/** Packages the image requires where they are installed rather than bundling them. */
const LEFT_OUT = new Set(["cosmiconfig"]);

/** The package a file belongs to: its name and folder. */
function packageOf(file) {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      if (pkg.name) return { name: pkg.name, dir };
    } catch {
      // no package.json here
    }
  }
  throw new Error(`daemon image: no package.json above ${file}`);
}

/** `text` with each range (in order, not overlapping) replaced by its text. */
function splice(text, ranges) {
  let out = "";
  let at = 0;
  for (const r of ranges) {
    out += text.slice(at, r.start) + r.text;
    at = r.end;
  }
  return out + text.slice(at);
}

/** A bundled backend's built entry in this workspace (built before the cli: scripts/build.mjs). */
function backendFile(name) {
  return join(root, "packages", name.slice("@culture/".length), IMAGE_BACKENDS[name]);
}

/** SHA-256 of a file, hex. */
function sha256Of(file) {
  try {
    return createHash("sha256").update(readFileSync(file)).digest("hex");
  } catch (err) {
    throw new Error(`daemon image: cannot read ${file} (build that package before the cli): ${err.message}`);
  }
}

const imagePlugin = {
  name: "culture-daemon-image",
  setup(b) {
    // core's entries: the built files themselves (the package's exports name the facades).
    b.onResolve({ filter: /^@culture\/core(\/[a-z-]+)?$/ }, (args) => {
      const file = IMAGE_ENTRIES[args.path];
      if (!file) return { errors: [{ text: `daemon image: ${args.path} is not one of core's image entries (scripts/daemon-image.mjs IMAGE_ENTRIES)` }] };
      return { path: join(root, "packages/core", file) };
    });
    // The bundled backends: their built files, as installed beside the cli.
    b.onResolve({ filter: /^@culture\/backend-[a-z0-9-]+$/ }, (args) => {
      const file = IMAGE_BACKENDS[args.path];
      if (!file) return { errors: [{ text: `daemon image: ${args.path} is not one of its bundled backends (scripts/daemon-image-entries.mjs IMAGE_BACKENDS)` }] };
      return { path: backendFile(args.path) };
    });
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      const name = args.path.split("/").slice(0, args.path.startsWith("@") ? 2 : 1).join("/");
      if (!LEFT_OUT.has(name) || !args.importer) return undefined;
      return { path: args.path, namespace: "left-out", pluginData: { from: packageOf(args.importer).name } };
    });
    b.onLoad({ filter: /.*/, namespace: "left-out" }, (args) => ({
      contents: `module.exports = __cultureRequire(${JSON.stringify(args.pluginData.from)})(${JSON.stringify(args.path)});`,
      loader: "js",
    }));
    // Each file's import.meta.url, where its package is installed. es-module-lexer finds the
    // real ones: the text "import.meta.url" inside a string (an error message) stays as it is.
    b.onLoad({ filter: /\.(js|ts)$/ }, async (args) => {
      if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
      let source = readFileSync(args.path, "utf8");
      if (!source.includes("import.meta")) return undefined;
      if (args.path.endsWith(".ts")) source = (await b.esbuild.transform(source, { loader: "ts", format: "esm", sourcefile: args.path })).code;
      const pkg = packageOf(args.path);
      // cli sources sit in src/ where the built code sits in dist/: the same depth.
      const rel = pkg.name === "culture" ? "dist/daemon-image.cjs" : relative(pkg.dir, args.path).split(sep).join("/");
      const metas = lexer.parse(source)[0].filter((i) => i.d === -2);
      const beyond = metas.find((m) => !source.startsWith(".url", m.e));
      if (beyond) return { errors: [{ text: `daemon image: ${args.path} uses import.meta beyond import.meta.url (at ${beyond.ss})` }] };
      const contents = splice(source, metas.map((m) => ({ start: m.ss, end: m.e + ".url".length, text: `__cultureUrl(${JSON.stringify(pkg.name)}, ${JSON.stringify(rel)})` })));
      return { contents, loader: "js", resolveDir: dirname(args.path) };
    });
  },
};

const entry = `
import { foregroundArgs } from "./src/foreground-args.ts";
import { runForegroundCommand } from "./src/foreground-daemon.ts";
export { foregroundArgs, runForegroundCommand };
/** core's entries by name, for the facades (bin/daemon-image.cjs publishes them). */
export const coreEntries = {
${Object.keys(IMAGE_ENTRIES)
  .map((name) => `  ${JSON.stringify(name)}: () => import(${JSON.stringify(name)}),`)
  .join("\n")}
};
/** The backends bundled whole: where each is installed, the SHA-256 of that file, its module. */
export const bundledBackends = {
${Object.entries(IMAGE_BACKENDS)
  .map(([name, file]) => `  ${JSON.stringify(name)}: { file: ${JSON.stringify(file)}, sha256: ${JSON.stringify(sha256Of(backendFile(name)))}, load: () => import(${JSON.stringify(name)}) },`)
  .join("\n")}
};
/** The URL of \`rel\` in the installed package \`name\`, or null when it is not installed. */
export function installedUrl(name: string, rel: string): string | null {
  try {
    return __cultureUrl(name, rel);
  } catch {
    return null;
  }
}
declare function __cultureUrl(name: string, rel: string): string;
`;

const result = await build({
  stdin: { contents: entry, resolveDir: cli, sourcefile: "daemon-image-entry.ts", loader: "ts" },
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  write: false,
  metafile: Boolean(process.env.IMAGE_META),
  // As core's chunks: whitespace and syntax minified, names kept for stack traces.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: "warning",
  // tree-sitter's Emscripten glue evals its own snippets (core's build bundles it the same way).
  logOverride: { "direct-eval": "silent" },
  plugins: [imagePlugin],
  banner: {
    js: [
      // The helpers the plugin's rewrites call, bound to where this file is installed.
      'var __cultureImageRequire = require("node:module").createRequire(__filename), __culturePackages = new Map();',
      "function __culturePackageDir(name) { let dir = __culturePackages.get(name); if (dir === undefined) { dir = name === \"culture\" ? require(\"node:path\").join(__dirname, \"..\") : require(\"node:path\").dirname(__culturePackageJson(name)); __culturePackages.set(name, dir); } return dir; }",
      // A package's package.json where require.resolve finds it: the first of Node's own lookup
      // folders (require.resolve.paths: node_modules up from this file, NODE_PATH, the global
      // ones) that has it, symlinks resolved. require.resolve itself would follow a package's
      // "exports", which loads Node's ES module resolver: ~4 ms of a daemon's start (issue 30).
      'function __culturePackageJson(name) { const path = require("node:path"), fs = require("node:fs"); for (const dir of __cultureImageRequire.resolve.paths(name) ?? []) { const file = path.join(dir, name, "package.json"); if (fs.existsSync(file)) return fs.realpathSync(file); } return __cultureImageRequire.resolve(name + "/package.json"); }',
      'function __cultureUrl(name, rel) { return require("node:url").pathToFileURL(require("node:path").join(__culturePackageDir(name), rel)).href; }',
      'function __cultureRequire(name) { return require("node:module").createRequire(require("node:path").join(__culturePackageDir(name), "package.json")); }',
    ].join("\n"),
  },
});
// Every import() the bundle kept (node builtins, a backend's file URL) becomes a call of the
// loader's own import(): V8 drops a script's host options when it is compiled from cached data,
// and import() in it then fails ("A dynamic import callback was not specified", Node 20).
// es-module-lexer finds the real ones (not the text of one inside a string).
if (process.env.IMAGE_META) writeFileSync(process.env.IMAGE_META, JSON.stringify(result.metafile));
const bundled = result.outputFiles[0].text;
const calls = lexer.parse(bundled)[0].filter((i) => i.d > -1);
const notCall = calls.find((call) => !bundled.startsWith("import(", call.ss));
if (notCall) throw new Error(`daemon image: a dynamic import at ${notCall.ss} is not an import( call`);
const code = splice(bundled, calls.map((call) => ({ start: call.ss, end: call.ss + "import(".length, text: "__cultureImport(" })));
const id = createHash("sha256").update(code).digest("hex").slice(0, 16);
// The first line names the build: the loader keys its code cache on it. The file is already
// the function the loader calls (a CommonJS module's wrapper, and the loader's import()): the
// loader compiles it as it is read, with no second copy of 1.4 MB made to wrap it.
const out = resolve(cli, "dist/daemon-image.cjs");
writeFileSync(out, `// culture daemon image ${id}\n(function (exports, require, module, __filename, __dirname, __cultureImport) {${code}\n})`);
console.log(`daemon image: ${relative(root, out)} (${(code.length / 1024).toFixed(0)} KiB, ${calls.length} import() calls, build ${id})`);
