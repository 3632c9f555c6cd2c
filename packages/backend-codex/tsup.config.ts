import { defineConfig } from "tsup";
// One plugin for the four backends' configs (scripts/zod-from-core.mjs).
import { zodFromCore } from "../../scripts/zod-from-core.mjs";

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm"],
  dts: true,
  sourcemap: true,
  // No clean: parallel builds and running tests share dist/; stale files are harmless.
  clean: false,
  target: "node20",
  external: [/^@culture\//],
  // zod is taken from @culture/core/zod, where core bundles it, so a daemon loads one copy
  // (as a package, zod's ~100 ES modules cost a daemon 13 MiB of RSS; issue 30).
  // (not external, or the plugin below would never see the import)
  noExternal: [/^zod(\/|$)/],
  esbuildPlugins: [zodFromCore],
});
