import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { defineConfig } from "tsup";
// zod compiles no parsers at run time in culture's processes (scripts/zod-jitless.mjs).
import { zodJitless } from "../../scripts/zod-jitless.mjs";

const require = createRequire(import.meta.url);

// Separate entries keep the hot paths lean: `culture channel` imports only ./paths and
// ./ipc-client, which pull in node builtins and nothing from the heavy barrel.
export default defineConfig({
  entry: {
    index: "src/index.ts",
    "testing/index": "src/testing/index.ts",
    paths: "src/paths.ts",
    // What `culture start` needs before it spawns the daemons (config, paths, PID files, errors):
    // the parent of a fleet start loads this, not the barrel (issue 30).
    config: "src/config-entry.ts",
    "ipc/ipc-client": "src/ipc/ipc-client.ts",
    "irc-tools/index": "src/irc-tools/index.ts",
    "irc-tools/channel-commands": "src/irc-tools/channel-commands.ts",
    // zod as core bundles it, for the backends (they alias "zod" here): one copy per process.
    zod: "src/zod.ts",
    // execa likewise (the backends alias "execa" here): one bundled copy per process.
    execa: "src/execa.ts",
  },
  format: ["esm"],
  dts: true,
  sourcemap: true,
  // No clean: parallel builds and running tests share dist/; stale files are harmless.
  clean: false,
  target: "node20",
  splitting: true,
  // Whitespace and syntax minified, names kept: V8 keeps every loaded module's source for the
  // life of the process, and a crash's stack trace in a daemon log still names its functions
  // (minifying identifiers too saved ~0.4 MiB more of an idle daemon's heap, but renamed
  // functions and classes, e.g. execa's error name; keepNames cost more than it saved; issue 30).
  minifyWhitespace: true,
  minifySyntax: true,
  // irc-framework is bundled: of its dependencies Node needs a few lodash functions and small
  // helpers, but npm would install all of them (core-js alone is 16 MB, for browsers). Bundled
  // CommonJS calls require() for node builtins, so each ESM chunk gets a real one. (`?? __filename`:
  // the cli bundles ./paths into a CommonJS file, where import.meta.url is undefined.)
  //
  // The bash parser (web-tree-sitter + tree-sitter-bash) is bundled too, and its two .wasm
  // files copied next to the chunks: the packages hold sources, debug builds and native
  // prebuilds for six platforms (26 MB) around the 1.6 MB culture needs, which would break the
  // install-size budget (issue #18).
  //
  // zod and yaml are bundled as well, for memory: Node's ESM loader keeps a lot per module,
  // and zod alone is ~100 of them. Imported as a package, zod added 13 MiB to a daemon's RSS;
  // bundled, 4.5 MiB (bench/daemon-idle.mjs, issue 30). The built-in backends import zod from
  // here (@culture/core/zod), so a daemon holds one copy. yaml is only core's, so it is a dev
  // dependency (nothing installs it twice); zod stays installed for the MCP SDK, which
  // `culture mcp` takes with zod/v3 and zod/v4-mini. execa is bundled for the same reason:
  // as a package it is ~135 ES modules with its dependencies, ~70 ms of CPU and ~6 MiB of RSS
  // for every daemon (it starts the agent, so it always loads); bundled, ~40 ms and ~3 MiB less.
  // The built-in backends import it from here (@culture/core/execa) too. It stays installed as
  // the cli's and backends' dependency (their package.json), so nothing is installed twice.
  // tapable (core's hooks) is bundled too: as a package it was the daemon's one CommonJS
  // import besides cosmiconfig (16 files; ~0.4 MiB and a few ms). Both stay dependencies, as
  // core's type declarations import their types. (cosmiconfig stays a package: bundled, it
  // would carry its TypeScript config loader, 6.9 MB.)
  noExternal: ["irc-framework", "web-tree-sitter", /^zod(\/|$)/, "yaml", "execa", "tapable"],
  // Four of irc-framework's dependencies are replaced by what culture uses of them (see the
  // files; issue 30): iconv-lite by UTF-8 through Buffer, socks by its absence (~600 KB of code
  // that every daemon loaded and none ran), lodash by one small module of the 14 functions it
  // requires (~190 KB), grapheme-splitter by Intl.Segmenter (114 KB of Unicode tables).
  esbuildPlugins: [
    zodJitless,
    {
      name: "irc-framework-shims",
      setup(build) {
        // ES modules whose namespace is what irc-framework expects of require().
        // (irc-framework's node:tls too: loaded by the first TLS connection, src/irc/shims/tls-lazy.ts.)
        const modules: Record<string, string> = { "iconv-lite": "src/irc/shims/iconv-lite-utf8.ts", socks: "src/irc/shims/socks-none.ts", tls: "src/irc/shims/tls-lazy.ts" };
        build.onResolve({ filter: /^(iconv-lite|socks|tls)$/ }, (args) =>
          args.path !== "tls" || /[\\/]irc-framework[\\/]/.test(args.importer) ? { path: resolve(modules[args.path]!) } : undefined,
        );
        // Packages whose require() is one function or class: a CommonJS module re-exports it.
        const lodash = resolve("src/irc/shims/lodash-lite.ts");
        const graphemes = resolve("src/irc/shims/grapheme-splitter-intl.ts");
        build.onResolve({ filter: /^(lodash(\/.*)?|grapheme-splitter)$/ }, (args) =>
          /[\\/]irc-framework[\\/]/.test(args.importer) ? { path: args.path, namespace: "irc-framework-shim" } : undefined,
        );
        const lodashNames = new Set([...readFileSync(lodash, "utf8").matchAll(/^export function (\w+)/gm)].map((m) => m[1]));
        build.onLoad({ filter: /.*/, namespace: "irc-framework-shim" }, (args) => {
          if (args.path === "grapheme-splitter") return { contents: `module.exports = require(${JSON.stringify(graphemes)}).default;`, loader: "js", resolveDir: "." };
          const name = args.path.slice("lodash/".length);
          if (!lodashNames.has(name)) {
            return { errors: [{ text: `irc-framework requires "${args.path}", which src/irc/shims/lodash-lite.ts does not provide: add it there (with lodash's semantics) and to test/irc-shims.test.ts` }] };
          }
          return { contents: `module.exports = require(${JSON.stringify(lodash)}).${name};`, loader: "js", resolveDir: "." };
        });
      },
    },
    {
      // zod as core bundles it, less what no culture process uses (issue 30): its 62 locales
      // other than English (300 KB, half of zod's chunk) and fromJSONSchema (a JSON Schema
      // reader). Each becomes a function that says so when called; English messages, parsing
      // and toJSONSchema (the MCP SDK turns the IRC tools' shapes into JSON Schema) stay whole.
      name: "zod-trim",
      setup(build) {
        build.onResolve({ filter: /^\.\.\/locales\/index\.js$|^\.\/from-json-schema\.js$/ }, (args) =>
          /[\\/]zod[\\/]v4[\\/]/.test(args.importer) ? { path: resolve(args.resolveDir, args.path), namespace: "zod-trim" } : undefined,
        );
        const missing = (what: string, instead: string) =>
          `() => { throw new Error(${JSON.stringify(`culture's bundled zod (@culture/core/zod) leaves out ${what}, which no culture process uses: ${instead}`)}); }`;
        build.onLoad({ filter: /.*/, namespace: "zod-trim" }, (args) => {
          if (args.path.endsWith("from-json-schema.js")) {
            return { contents: `export const fromJSONSchema = ${missing("z.fromJSONSchema", 'import { fromJSONSchema } from "zod" instead')};`, loader: "js" };
          }
          const names = [...readFileSync(args.path, "utf8").matchAll(/export \{ default as (\w+) \}/g)].map((m) => m[1]!);
          if (!names.includes("en")) return { errors: [{ text: `zod's ${args.path} no longer lists its locales as this plugin expects` }] };
          const lines = names.map((n) => (n === "en" ? `export { default as en } from ${JSON.stringify(resolve(dirname(args.path), "en.js"))};` : `export const ${n} = ${missing(`zod's "${n}" locale`, "its messages are in English")};`));
          return { contents: lines.join("\n"), loader: "js", resolveDir: dirname(args.path) };
        });
      },
    },
  ],
  onSuccess: async () => {
    mkdirSync("dist", { recursive: true });
    copyFileSync(require.resolve("web-tree-sitter/tree-sitter.wasm"), "dist/tree-sitter.wasm");
    copyFileSync(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"), "dist/tree-sitter-bash.wasm");
  },
  banner: {
    js: 'import { createRequire as __cultureCreateRequire } from "node:module"; const require = __cultureCreateRequire(import.meta.url ?? __filename);',
  },
});
