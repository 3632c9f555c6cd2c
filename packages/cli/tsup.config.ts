import { fileURLToPath } from "node:url";
import { defineConfig } from "tsup";
// The ACP SDK's schemas built when first used (scripts/lazy-acp-schemas.mjs).
import { lazyAcpSchemas } from "../../scripts/lazy-acp-schemas.mjs";

export default defineConfig([
  // The program (ESM). main.ts is a tiny dispatcher: `culture channel ...` takes a fast path
  // that never loads commander or the @culture/core barrel.
  {
    // daemon-flags: the daemon's node flags, also imported by bench/daemon*.mjs.
    entry: { main: "src/main.ts", "daemon-flags": "src/daemon-flags.ts" },
    format: ["esm"],
    // main.d.ts (an empty module) so "exports" can name types like every package's.
    dts: true,
    sourcemap: true,
    // No clean: parallel builds and running tests share dist/; stale files are harmless.
    clean: false,
    target: "node20",
    // Minified as core is, names kept: every daemon loads the program's chunks (issue 30).
    minifyWhitespace: true,
    minifySyntax: true,
    splitting: true,
    external: [/^@culture\//],
    banner: { js: "#!/usr/bin/env node" },
  },
  // The hot path as one CommonJS file for bin/culture.cjs: `culture channel` with the two lean
  // core modules it needs bundled in, so a call loads a single file and no ESM loader.
  {
    entry: { channel: "src/channel/run.ts" },
    format: ["cjs"],
    // Less for V8 to scan on every call; names are kept, so a bug's stack trace still reads.
    minifyWhitespace: true,
    dts: false,
    sourcemap: false,
    clean: false,
    target: "node20",
    splitting: false,
    noExternal: ["@culture/core/paths", "@culture/core/ipc-client", "@culture/core/channel-commands"],
    // From core's TypeScript sources rather than its built chunks: each chunk starts with a
    // require() made by createRequire (bundled CommonJS in core needs one), and a chunk shared
    // with the daemon may hold more than this path uses; from the sources esbuild keeps only
    // what `culture channel` runs.
    esbuildPlugins: [
      coreSources({ "@culture/core/paths": "src/paths.ts", "@culture/core/ipc-client": "src/ipc/ipc-client.ts", "@culture/core/channel-commands": "src/irc-tools/channel-commands.ts" }),
    ],
    // core's paths.ts needs os only for homedir(), and only when neither XDG_RUNTIME_DIR nor
    // CULTURE_HOME is set: src/channel/lazy-os.ts loads os then, not on every call (~0.1 ms).
    // (tsup's own handling of `node:` imports would mark node:os external before the alias applies).
    removeNodeProtocol: false,
    esbuildOptions(options) {
      options.alias = { ...options.alias, "node:os": fileURLToPath(new URL("src/channel/lazy-os.ts", import.meta.url)) };
    },
  },

  // `culture mcp`: the MCP server (ESM), loaded only by that command, with the lean core modules
  // and the MCP SDK's server side bundled in (the SDK's package pulls HTTP frameworks that the
  // stdio server never loads, so bundling keeps `npm i culture` light); zod stays external.
  {
    entry: { mcp: "src/mcp/server.ts" },
    format: ["esm"],
    dts: false,
    sourcemap: true,
    clean: false,
    target: "node20",
    splitting: false,
    // @culture/core/irc-tools stays core's own module: its chunks hold core's bundled zod,
    // which a bundle here would copy (700 KB more to install, issue 18's budget).
    noExternal: ["@culture/core/paths", "@culture/core/channel-commands", /^@modelcontextprotocol\/sdk/],
    external: ["zod", "@culture/core/irc-tools"],
  },

  // `culture console`'s server (ESM), loaded only by that command, with hono and its Node adapter
  // bundled in (their packages are 4 MB, over the install budget; what the console uses is
  // small), at a stable name bench/console.mjs imports.
  {
    entry: { "console-server": "src/console/console-server.ts" },
    format: ["esm"],
    dts: false,
    sourcemap: true,
    clean: false,
    target: "node20",
    splitting: false,
    external: [/^@culture\//, "zod", "commander", "execa"],
    noExternal: ["hono", /^hono\//, "@hono/node-server"],
  },

  // The offline demo agent (`culture-demo-agent`, used by `culture demo`): one CommonJS file with
  // no dependencies (it speaks ACP itself), minified. CommonJS because each agent of a fleet
  // starts it: Node's ES module loader cost ~5 ms of CPU more per start (bench/fleet.mjs).
  {
    entry: { "demo-agent": "demo/demo-agent.mjs" },
    format: ["cjs"],
    shims: true,
    dts: false,
    sourcemap: false,
    clean: false,
    target: "node20",
    splitting: false,
    minifyWhitespace: true,
    minifySyntax: true,
  },
]);

/** Resolves the named `@culture/core/...` entries to core's source files (paths relative to packages/core). */
function coreSources(entries: Record<string, string>) {
  const core = fileURLToPath(new URL("../core/", import.meta.url));
  return {
    name: "core-sources",
    setup(build: { onResolve: (o: { filter: RegExp }, cb: (a: { path: string }) => { path: string } | undefined) => void }) {
      build.onResolve({ filter: /^@culture\/core\// }, (args) => (entries[args.path] ? { path: core + entries[args.path] } : undefined));
    },
  };
}
