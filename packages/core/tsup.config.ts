import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { defineConfig } from "tsup";

const require = createRequire(import.meta.url);

// Separate entries keep the hot paths lean: `culture channel` imports only ./paths and
// ./ipc-client, which pull in node builtins and nothing from the heavy barrel.
export default defineConfig({
  entry: {
    index: "src/index.ts",
    "testing/index": "src/testing/index.ts",
    paths: "src/paths.ts",
    "ipc/ipc-client": "src/ipc/ipc-client.ts",
    "irc-tools/index": "src/irc-tools/index.ts",
    "irc-tools/channel-commands": "src/irc-tools/channel-commands.ts",
    // zod as core bundles it, for the backends (they alias "zod" here): one copy per process.
    zod: "src/zod.ts",
  },
  format: ["esm"],
  dts: true,
  sourcemap: true,
  // No clean: parallel builds and running tests share dist/; stale files are harmless.
  clean: false,
  target: "node20",
  splitting: true,
  minifyWhitespace: true,
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
  // `culture mcp` takes with zod/v3 and zod/v4-mini. execa stays a package: the cli and
  // every backend depend on it anyway, and a second copy would only grow the install.
  noExternal: ["irc-framework", "web-tree-sitter", /^zod(\/|$)/, "yaml"],
  // Two of irc-framework's dependencies are replaced by what culture uses of them (see the
  // files): iconv-lite by UTF-8 through Buffer, socks by its absence (~600 KB of code that
  // every daemon loaded and none ran; issue 30).
  esbuildPlugins: [
    {
      name: "irc-framework-shims",
      setup(build) {
        const shims: Record<string, string> = { "iconv-lite": "src/irc/shims/iconv-lite-utf8.ts", socks: "src/irc/shims/socks-none.ts" };
        build.onResolve({ filter: /^(iconv-lite|socks)$/ }, (args) => ({ path: resolve(shims[args.path]!) }));
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
