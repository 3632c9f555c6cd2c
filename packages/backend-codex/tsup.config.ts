import { defineConfig } from "tsup";
// One plugin for the four backends' configs (scripts/from-core.mjs).
import { fromCore } from "../../scripts/from-core.mjs";

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm"],
  dts: true,
  sourcemap: true,
  // No clean: parallel builds and running tests share dist/; stale files are harmless.
  clean: false,
  target: "node20",
  // Minified as core is, names kept (see core's tsup.config.ts; issue 30).
  minifyWhitespace: true,
  minifySyntax: true,
  external: [/^@culture\//],
  // zod and execa are taken from @culture/core/zod and @culture/core/execa, where core bundles
  // them, so a daemon loads one copy of each (as packages, they cost a daemon 13 MiB of RSS and
  // ~70 ms of CPU; issue 30).
  // (not external, or the plugin below would never see the import)
  noExternal: [/^zod(\/|$)/, "execa"],
  esbuildPlugins: [fromCore],
});
